"""Jobs over HTTP: the list of all jobs, status, loss curve, server-sent events, cancel.

The API only writes the job row and enqueues its id (:mod:`xmd.jobs.queue`); workers do the work and
write progress to the row, which is what every read here returns. Each domain starts its own kinds
(e.g. ``POST /projects/{id}/jobs/explain`` in :mod:`xmd.explanations.views`), checking what a job
needs before the row exists; a project's job list is :mod:`xmd.projects.views`'.
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
from xmd.http.deps import DB, Annotator, Viewer, bearer, user_from_token
from xmd.http.pagination import Offset, Page, page_of
from xmd.http.params import Cursor, JobId, OptId
from xmd.jobs import flows, service
from xmd.jobs.models import JobStatus
from xmd.jobs.queue import queue_for
from xmd.jobs.schemas import JobKind, JobOut, JobPage, MetricOut, job_out, metric_out
from xmd.jobs.supervision import notices_of
from xmd.jobs.watch import JobWatch, TooManyStreams
from xmd.users.models import User

router = APIRouter(prefix="/api", tags=["jobs"])
SSE_POLL_S = 0.5


def queue_of(request: Request) -> Callable[[str], str]:
    """Which queue a job kind goes to under this app's settings (retrains may have their own)."""
    settings = request.app.state.settings
    return lambda kind: queue_for(settings, kind)


@router.get("/jobs", response_model=JobPage)
def list_all_jobs(
    request: Request,
    db: DB,
    _: Viewer,
    status: JobStatus | None = None,
    kind: JobKind | None = None,
    project_id: OptId = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> JobPage:
    """Every job, newest first, including those of no project (``prepare_demo``: ``xmd serve --demo``
    setting up the demo project, which the project list shows while it runs). ``workers``: an embedded
    worker of ``xmd serve`` that died lately, and its restart."""
    filters = {"project_id": project_id, "status": status, "kind": kind}
    return flows.jobs_page(db, queue_of(request), filters, offset, limit, notices_of(request.app.state))


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
