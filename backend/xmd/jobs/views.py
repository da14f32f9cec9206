"""Jobs over HTTP: start (202 + job id), lists (a project's, and all), status, loss curve, server-sent
events, cancel.

The API only writes the job row and enqueues its id (:mod:`xmd.jobs.queue`); workers do the work and
write progress to the row, which is what every read here returns. What a job needs is checked by its
flow (:mod:`xmd.jobs.flows`) before the row exists.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials

from xmd.db.errors import NotFoundError
from xmd.http.deps import DB, Admin, Annotator, Viewer, bearer, user_from_token
from xmd.http.pagination import Offset, Page, page, page_of
from xmd.http.params import Cursor, Id, JobId, OptId
from xmd.jobs import flows, service
from xmd.jobs.models import JobKind, JobStatus
from xmd.jobs.queue import Enqueue, queue_for
from xmd.jobs.schemas import (
    EvaluateIn,
    ExplainIn,
    JobOut,
    MetricOut,
    PushIn,
    RetrainEstimate,
    RetrainIn,
    job_out,
    metric_out,
)
from xmd.jobs.watch import JobWatch, TooManyStreams
from xmd.projects import service as projects_service
from xmd.users.models import User

router = APIRouter(prefix="/api", tags=["jobs"])
SSE_POLL_S = 0.5


def queue_of(request: Request) -> Callable[[JobKind], str]:
    """Which queue a job kind goes to under this app's settings (retrains may have their own)."""
    settings = request.app.state.settings
    return lambda kind: queue_for(settings, kind)


def enqueue_of(request: Request) -> Enqueue:
    """How this app sends jobs (set by the composition root; tests record instead)."""
    return request.app.state.enqueue


@router.post("/projects/{project_id}/jobs/explain", status_code=202, response_model=JobOut)
def start_explain(project_id: Id, body: ExplainIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Explain every example of a training dataset (default: the first) with a version and method."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_explain(db, enqueue_of(request), project, body))


@router.post("/projects/{project_id}/jobs/retrain", status_code=202, response_model=JobOut)
def start_retrain(project_id: Id, body: RetrainIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Retrain a version with the project's feedback (L = L_task + λ·L_ER) into a new version."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_retrain(db, enqueue_of(request), project, body))


@router.post("/projects/{project_id}/jobs/retrain/estimate", response_model=RetrainEstimate)
def estimate_retrain(project_id: Id, body: RetrainIn, db: DB, _: Viewer) -> RetrainEstimate:
    """The phases a retrain with these settings will run and its expected duration, from the rates the
    last retrain measured (nothing is started)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return RetrainEstimate(**flows.estimate_retrain(db, project, body))


@router.post("/projects/{project_id}/jobs/evaluate", status_code=202, response_model=JobOut)
def start_evaluate(project_id: Id, body: EvaluateIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Measure a version on eval sets (default: all of them); results land in the version's metrics."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_evaluate(db, enqueue_of(request), project, body))


@router.post("/projects/{project_id}/jobs/push", status_code=202, response_model=JobOut)
def start_push(project_id: Id, body: PushIn, request: Request, db: DB, _: Admin) -> JobOut:
    """Push a version to the Hugging Face Hub; the token is stored nowhere whole (xmd.jobs.secrets)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_push(db, enqueue_of(request), project, body))


@router.get("/projects/{project_id}/jobs", response_model=Page[JobOut])
def list_jobs(
    project_id: Id,
    request: Request,
    db: DB,
    _: Viewer,
    status: JobStatus | None = None,
    kind: JobKind | None = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> Page[JobOut]:
    """The project's jobs, newest first."""
    projects_service.get_or_raise(db_session=db, project_id=project_id)
    return _page(request, db, {"project_id": project_id, "status": status, "kind": kind}, offset, limit)


@router.get("/jobs", response_model=Page[JobOut])
def list_all_jobs(
    request: Request,
    db: DB,
    _: Viewer,
    status: JobStatus | None = None,
    kind: JobKind | None = None,
    project_id: OptId = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> Page[JobOut]:
    """Every job, newest first, including those of no project (``prepare_demo``: ``xmd serve --demo``
    setting up the demo project, which the project list shows while it runs)."""
    return _page(request, db, {"project_id": project_id, "status": status, "kind": kind}, offset, limit)


def _page(request: Request, db: DB, args: dict[str, Any], offset: int, limit: int) -> Page[JobOut]:
    """A page of jobs with their queue places (a queued job says whom it waits behind)."""
    rows = service.list_jobs(db_session=db, offset=offset, limit=limit, **args)
    total = service.count_jobs(db_session=db, **args)
    queued = [j.id for j in rows if j.status is JobStatus.QUEUED]
    places = service.queue_info(db_session=db, job_ids=queued, queue_of=queue_of(request)) if queued else {}
    return Page[JobOut](**page([job_out(j, places.get(j.id)) for j in rows], total, offset, limit))


@router.get("/jobs/{job_id}", response_model=JobOut)
def get_job(job_id: JobId, request: Request, db: DB, _: Viewer) -> JobOut:
    """Status, progress (0–100, step, epoch), the running phase and ETA, timings, worker, error and result
    of a job; a queued one also says its place in its queue and the job it waits behind."""
    job = service.get_or_raise(db_session=db, job_id=job_id)
    places = service.queue_info(db_session=db, job_ids=[job.id], queue_of=queue_of(request))
    return job_out(job, places.get(job.id))


@router.get("/jobs/{job_id}/metrics", response_model=Page[MetricOut])
def get_metrics(
    job_id: JobId, db: DB, _: Viewer, after: Cursor = None, limit: Annotated[int, Query(ge=1, le=10000)] = 10000
) -> Page[MetricOut]:
    """Loss-curve points (task loss, ER loss) in order; ``after`` = the last id seen, for increments
    (``total`` counts the points after it)."""
    service.get_or_raise(db_session=db, job_id=job_id)
    points = service.metrics(db_session=db, job_id=job_id, after_id=after)
    return Page[MetricOut](**page_of([metric_out(m) for m in points], 0, limit))


@router.post("/jobs/{job_id}/cancel", response_model=JobOut)
def cancel_job(job_id: JobId, db: DB, _: Annotator) -> JobOut:
    """Stop a job: a queued one at once, a running one at its next step (409 if it already ended)."""
    return job_out(service.request_cancel(db_session=db, job_id=job_id))


def _sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, default=str)}\n\n"


def _stream_user(request: Request, credentials: HTTPAuthorizationCredentials | None, token: str | None) -> User:
    """Authenticate in a session of its own, closed before the stream starts: a stream must not hold a
    pool connection for as long as it is open."""
    with request.app.state.session_factory() as db:
        user = user_from_token(credentials, db, token)
        db.expunge(user)
        return user


@router.get("/jobs/{job_id}/events", response_class=StreamingResponse)
async def job_events(
    job_id: JobId,
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    token: Annotated[str | None, Query(description="for EventSource, which cannot send headers")] = None,
) -> StreamingResponse:
    """Server-sent events: ``job`` on every status/progress change, ``metric`` per new loss point, then
    ``end``. Browsers' EventSource cannot set headers, so ``?token=`` is accepted here too. The streams
    of a process share one database poller (:mod:`xmd.jobs.watch`); a user may hold
    ``XMD_EVENT_STREAMS_PER_USER`` streams at once (429 past that)."""
    user = await run_in_threadpool(_stream_user, request, credentials, token)
    watch: JobWatch = request.app.state.job_watch
    subscription = watch.subscribe(job_id, user.id)
    try:
        entry = await subscription.__aenter__()
    except TooManyStreams as exc:
        raise HTTPException(429, str(exc), headers={"Retry-After": "5"}) from exc
    if entry.job is None:
        await subscription.__aexit__(None, None, None)
        raise NotFoundError(f"job {job_id} not found")

    async def stream() -> AsyncIterator[str]:
        last_state: tuple[Any, ...] | None = None
        after = -1
        try:
            while True:
                job = entry.job
                if job is None:
                    yield _sse("end", {"status": "deleted"})
                    return
                for m in [p for p in entry.points if p.id > after]:
                    after = m.id
                    yield _sse("metric", metric_out(m).model_dump())
                state = (job.status, job.progress, job.step, job.phase, job.phase_done, job.eta_s, job.error)
                state += (job.cancel_requested, str(entry.queue))
                if state != last_state:
                    last_state = state
                    yield _sse("job", job_out(job, entry.queue).model_dump(mode="json"))
                if job.status.finished:
                    yield _sse("end", {"status": job.status.value})
                    return
                if await request.is_disconnected():
                    return
                await watch.wait(SSE_POLL_S * 4)
        finally:
            await subscription.__aexit__(None, None, None)

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
