"""Jobs over HTTP: start (202 + job id), status, loss curve, server-sent events, cancel.

The API only writes the job row and enqueues its id (:mod:`xmd.jobs.queue`); workers do the work and
write progress to the row, which is what every read here returns. What a job needs is checked by its
flow (:mod:`xmd.jobs.flows`) before the row exists.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from xmd.db.errors import NotFoundError
from xmd.http.deps import DB, Admin, Annotator, Viewer, user_from_token
from xmd.http.pagination import Offset, Page, page, page_of
from xmd.jobs import flows, service
from xmd.jobs.models import Job, JobKind, JobMetric, JobStatus
from xmd.jobs.queue import Enqueue
from xmd.jobs.schemas import EvaluateIn, ExplainIn, JobOut, MetricOut, PushIn, RetrainIn, job_out, metric_out
from xmd.projects import service as projects_service
from xmd.users.models import User

router = APIRouter(prefix="/api", tags=["jobs"])
SSE_POLL_S = 0.5


def enqueue_of(request: Request) -> Enqueue:
    """How this app sends jobs (set by the composition root; tests record instead)."""
    return request.app.state.enqueue


@router.post("/projects/{project_id}/jobs/explain", status_code=202, response_model=JobOut)
def start_explain(project_id: int, body: ExplainIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Explain every example of a training dataset (default: the first) with a version and method."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_explain(db, enqueue_of(request), project, body))


@router.post("/projects/{project_id}/jobs/retrain", status_code=202, response_model=JobOut)
def start_retrain(project_id: int, body: RetrainIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Retrain a version with the project's feedback (L = L_task + λ·L_ER) into a new version."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_retrain(db, enqueue_of(request), project, body))


@router.post("/projects/{project_id}/jobs/evaluate", status_code=202, response_model=JobOut)
def start_evaluate(project_id: int, body: EvaluateIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Measure a version on eval sets (default: all of them); results land in the version's metrics."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_evaluate(db, enqueue_of(request), project, body))


@router.post("/projects/{project_id}/jobs/push", status_code=202, response_model=JobOut)
def start_push(project_id: int, body: PushIn, request: Request, db: DB, _: Admin) -> JobOut:
    """Push a version to the Hugging Face Hub; the token travels in the job message only, never the DB."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_push(db, enqueue_of(request), project, body))


@router.get("/projects/{project_id}/jobs", response_model=Page[JobOut])
def list_jobs(
    project_id: int,
    db: DB,
    _: Viewer,
    status: JobStatus | None = None,
    kind: JobKind | None = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> Page[JobOut]:
    """The project's jobs, newest first."""
    projects_service.get_or_raise(db_session=db, project_id=project_id)
    args: dict[str, Any] = {"project_id": project_id, "status": status, "kind": kind}
    rows = service.list_jobs(db_session=db, offset=offset, limit=limit, **args)
    total = service.count_jobs(db_session=db, **args)
    return Page[JobOut](**page([job_out(j) for j in rows], total, offset, limit))


@router.get("/jobs/{job_id}", response_model=JobOut)
def get_job(job_id: str, db: DB, _: Viewer) -> JobOut:
    """Status, progress (0–100, step, epoch), timings, worker, error and result of a job."""
    return job_out(service.get_or_raise(db_session=db, job_id=job_id))


@router.get("/jobs/{job_id}/metrics", response_model=Page[MetricOut])
def get_metrics(
    job_id: str, db: DB, _: Viewer, after: int | None = None, limit: Annotated[int, Query(ge=1, le=10000)] = 10000
) -> Page[MetricOut]:
    """Loss-curve points (task loss, ER loss) in order; ``after`` = the last id seen, for increments
    (``total`` counts the points after it)."""
    service.get_or_raise(db_session=db, job_id=job_id)
    points = service.metrics(db_session=db, job_id=job_id, after_id=after)
    return Page[MetricOut](**page_of([metric_out(m) for m in points], 0, limit))


@router.post("/jobs/{job_id}/cancel", response_model=JobOut)
def cancel_job(job_id: str, db: DB, _: Annotator) -> JobOut:
    """Stop a job: a queued one at once, a running one at its next step (409 if it already ended)."""
    return job_out(service.request_cancel(db_session=db, job_id=job_id))


def _sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, default=str)}\n\n"


@router.get("/jobs/{job_id}/events", response_class=StreamingResponse)
async def job_events(
    job_id: str,
    request: Request,
    user: Annotated[User, Depends(user_from_token)],
) -> StreamingResponse:
    """Server-sent events: ``job`` on every status/progress change, ``metric`` per new loss point, then
    ``end``. Browsers' EventSource cannot set headers, so ``?token=`` is accepted here too."""
    factory = request.app.state.session_factory

    def read(after: int | None) -> tuple[Job | None, list[JobMetric]]:
        with factory() as db:
            job = service.get(db_session=db, job_id=job_id)
            return job, ([] if job is None else service.metrics(db_session=db, job_id=job_id, after_id=after))

    first, _ = await run_in_threadpool(read, -1)
    if first is None:
        raise NotFoundError(f"job {job_id} not found")

    async def stream() -> AsyncIterator[str]:
        last_state: tuple[Any, ...] | None = None
        after: int | None = None
        while True:
            job, points = await run_in_threadpool(read, after)
            if job is None:
                yield _sse("end", {"status": "deleted"})
                return
            for m in points:
                after = m.id
                yield _sse("metric", metric_out(m).model_dump())
            state = (job.status, job.progress, job.step, job.epoch, job.error, job.cancel_requested)
            if state != last_state:
                last_state = state
                yield _sse("job", job_out(job).model_dump(mode="json"))
            if job.status.finished:
                yield _sse("end", {"status": job.status.value})
                return
            if await request.is_disconnected():
                return
            await asyncio.sleep(SSE_POLL_S)

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
