"""Jobs over HTTP: start (202 + job id), status, loss curve, server-sent events, cancel.

The API only writes the job row and enqueues its id (:mod:`xmd.jobs.queue`); workers do the work and
write progress to the row, which is what every read here returns. If the broker refuses the message,
the job is marked failed at once (a row never says "queued" for work nobody will do).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field, SecretStr
from sqlalchemy.orm import Session

from xmd.api.deps import DB, require, user_from_token
from xmd.api.resolve import method_for, version_for
from xmd.api.runtime import enqueue_of
from xmd.core.training import LOSSES, OBJECTIVES
from xmd.core.types import DataError, FeedbackError
from xmd.datasets import service as datasets_service
from xmd.datasets.models import DatasetRole
from xmd.db.errors import NotFoundError
from xmd.feedback_store import service as feedback_service
from xmd.jobs import service
from xmd.jobs.models import Job, JobKind, JobMetric, JobStatus
from xmd.projects import service as projects_service
from xmd.projects.models import Project
from xmd.users.models import Role, User

router = APIRouter(prefix="/api", tags=["jobs"])
Viewer = Annotated[User, Depends(require(Role.VIEWER))]
Annotator = Annotated[User, Depends(require(Role.ANNOTATOR))]
Admin = Annotated[User, Depends(require(Role.ADMIN))]
SSE_POLL_S = 0.5
REPO_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?$"


class JobOut(BaseModel):
    id: str
    project_id: int | None
    kind: JobKind
    status: JobStatus
    progress: float
    step: int | None
    total_steps: int | None
    epoch: float | None
    params: dict[str, Any]
    result: dict[str, Any] | None
    error: str | None
    worker_host: str | None
    cancel_requested: bool
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    heartbeat_at: datetime | None


class MetricOut(BaseModel):
    id: int
    step: int
    epoch: float | None
    task_loss: float | None
    er_loss: float | None
    loss: float | None
    lr: float | None


class ExplainIn(BaseModel):
    dataset_id: int | None = Field(default=None, description="default: every training dataset")
    version_id: int | None = None
    method: str | None = None
    chunk_size: int = Field(default=256, ge=8, le=10_000)


class RetrainIn(BaseModel):
    version_id: int | None = Field(default=None, description="the version to start from (default: latest ready)")
    loss: Literal["mse", "mae", "huber"] = "mse"
    lam: float = Field(default=1.0, ge=0, le=1000, description="λ, the weight of the ER loss")
    objective: Literal["both", "erasure", "attribution"] = "both"
    attribution_weight: float = Field(default=5.0, ge=0, le=1000)
    epochs: int = Field(default=2, ge=1, le=50)
    lr: float = Field(default=3e-5, gt=0, le=1)
    batch_size: int = Field(default=16, ge=1, le=512)
    max_length: int = Field(default=128, ge=8, le=4096)
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    train_dataset_ids: list[int] | None = Field(default=None, description="default: every training dataset")
    eval_dataset_ids: list[int] | None = Field(default=None, description="default: every eval dataset")


class EvaluateIn(BaseModel):
    version_id: int
    dataset_ids: list[int] | None = Field(default=None, description="default: every eval dataset")


class PushIn(BaseModel):
    version_id: int
    repo_id: str = Field(min_length=1, max_length=96, pattern=REPO_ID)
    private: bool = True
    token: SecretStr | None = Field(
        default=None, description="a Hugging Face write token; used for this push only, never stored"
    )


def job_out(job: Job) -> JobOut:
    return JobOut.model_validate(job, from_attributes=True)


def metric_out(m: JobMetric) -> MetricOut:
    return MetricOut.model_validate(m, from_attributes=True)


def _datasets(db: Session, project: Project, ids: list[int] | None, role: DatasetRole) -> list[int]:
    if ids is None:
        return [d.id for d in datasets_service.list_datasets(db_session=db, project_id=project.id, role=role)]
    for did in ids:
        ds = datasets_service.get_or_raise(db_session=db, dataset_id=did)
        if ds.project_id != project.id:
            raise NotFoundError(f"dataset {did} not found in project {project.name!r}")
        if ds.role is not role:
            raise DataError(f"dataset {ds.name!r} is a {ds.role.value} set, not a {role.value} set")
    return list(dict.fromkeys(ids))


def _start(
    request: Request,
    db: Session,
    project: Project,
    kind: JobKind,
    params: dict[str, Any],
    secrets: dict[str, str] | None = None,
) -> JobOut:
    job = service.create(db_session=db, kind=kind, project_id=project.id, params=params)
    try:
        enqueue_of(request)(job, secrets)
    except Exception as exc:  # the broker is down or refused: say so on the row and to the caller
        service.fail(db_session=db, job_id=job.id, error=f"could not reach the job queue: {type(exc).__name__}: {exc}")
        raise HTTPException(
            503, f"the job queue is unavailable ({type(exc).__name__}); job {job.id} was marked failed"
        ) from exc
    return job_out(service.get_or_raise(db_session=db, job_id=job.id))


@router.post("/projects/{project_id}/jobs/explain", status_code=202, response_model=JobOut)
def start_explain(project_id: int, body: ExplainIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Explain every example of a training dataset (default: the first) with a version and method."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    mv = version_for(db, project, body.version_id)
    method = method_for(project, body.method)
    ids = _datasets(db, project, None if body.dataset_id is None else [body.dataset_id], DatasetRole.TRAIN)
    if not ids:
        raise DataError("the project has no training dataset to explain; upload one first")
    params = {"version_id": mv.id, "dataset_id": ids[0], "method": method, "chunk_size": body.chunk_size}
    return _start(request, db, project, JobKind.EXPLAIN, params)


@router.post("/projects/{project_id}/jobs/retrain", status_code=202, response_model=JobOut)
def start_retrain(project_id: int, body: RetrainIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Retrain a version with the project's feedback (L = L_task + λ·L_ER) into a new version."""
    assert body.loss in LOSSES and body.objective in OBJECTIVES
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    mv = version_for(db, project, body.version_id)
    train = _datasets(db, project, body.train_dataset_ids, DatasetRole.TRAIN)
    if not train:
        raise DataError("the project has no training dataset; upload one first")
    evals = _datasets(db, project, body.eval_dataset_ids, DatasetRole.EVAL)
    if not feedback_service.list_feedback(db_session=db, project_id=project.id, limit=1):
        raise FeedbackError("there is no feedback to train with yet: mark words to remove or add first")
    params = body.model_dump(exclude={"train_dataset_ids", "eval_dataset_ids", "version_id"})
    params.update(version_id=mv.id, train_dataset_ids=train, eval_dataset_ids=evals)
    return _start(request, db, project, JobKind.RETRAIN, params)


@router.post("/projects/{project_id}/jobs/evaluate", status_code=202, response_model=JobOut)
def start_evaluate(project_id: int, body: EvaluateIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Measure a version on eval sets (default: all of them); results land in the version's metrics."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    mv = version_for(db, project, body.version_id)
    evals = _datasets(db, project, body.dataset_ids, DatasetRole.EVAL)
    if not evals:
        raise DataError("the project has no eval dataset; upload one with role=eval first")
    return _start(request, db, project, JobKind.EVALUATE, {"version_id": mv.id, "dataset_ids": evals})


@router.post("/projects/{project_id}/jobs/push", status_code=202, response_model=JobOut)
def start_push(project_id: int, body: PushIn, request: Request, db: DB, _: Admin) -> JobOut:
    """Push a version to the Hugging Face Hub; the token travels in the job message only, never the DB."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    mv = version_for(db, project, body.version_id)
    secrets = {"hf_token": body.token.get_secret_value()} if body.token is not None else None
    params = {"version_id": mv.id, "repo_id": body.repo_id, "private": body.private}
    return _start(request, db, project, JobKind.PUSH, params, secrets)


@router.get("/projects/{project_id}/jobs", response_model=list[JobOut])
def list_jobs(
    project_id: int,
    db: DB,
    _: Viewer,
    status: JobStatus | None = None,
    kind: JobKind | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> list[JobOut]:
    """The project's jobs, newest first."""
    projects_service.get_or_raise(db_session=db, project_id=project_id)
    rows = service.list_jobs(db_session=db, project_id=project_id, status=status, kind=kind, limit=limit)
    return [job_out(j) for j in rows]


@router.get("/jobs/{job_id}", response_model=JobOut)
def get_job(job_id: str, db: DB, _: Viewer) -> JobOut:
    """Status, progress (0–100, step, epoch), timings, worker, error and result of a job."""
    return job_out(service.get_or_raise(db_session=db, job_id=job_id))


@router.get("/jobs/{job_id}/metrics", response_model=list[MetricOut])
def get_metrics(
    job_id: str, db: DB, _: Viewer, after: int | None = None, limit: Annotated[int, Query(ge=1, le=10000)] = 10000
) -> list[MetricOut]:
    """Loss-curve points (task loss, ER loss) in order; ``after`` = the last id seen, for increments."""
    service.get_or_raise(db_session=db, job_id=job_id)
    return [metric_out(m) for m in service.metrics(db_session=db, job_id=job_id, after_id=after, limit=limit)]


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
