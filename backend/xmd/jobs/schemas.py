"""Jobs as the API shows them. A job's ``kind`` is any kind a domain registered (:mod:`xmd.jobs.kinds`);
the OpenAPI schema lists them as the ``JobKind`` enum."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, Field, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import core_schema

from xmd.http.pagination import Page
from xmd.jobs import kinds
from xmd.jobs.models import Job, JobMetric, JobStatus
from xmd.jobs.supervision import WorkerEvent


def _registered(name: str) -> str:
    if name not in kinds.names():
        raise ValueError(f"unknown job kind {name!r}; the kinds are {', '.join(kinds.names())}")
    return name


class _Registered:
    """A registered kind: checked against :mod:`xmd.jobs.kinds` when validated, and listed as the
    ``JobKind`` enum when the OpenAPI schema is built (by then every domain has registered)."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(_registered, core_schema.str_schema(), ref="JobKind")

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler) -> Any:
        out = handler(schema)
        handler.resolve_ref_schema(out).update(type="string", enum=kinds.names(), title="JobKind")
        return out


JobKind = Annotated[str, _Registered]
"""A job kind as the API takes and shows it."""


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
    phase: str | None = Field(default=None, description='the running phase, e.g. "measuring v1 on test_clean"')
    phase_done: int | None = None
    phase_total: int | None = None
    phase_unit: str | None = Field(default=None, description="what phase_done counts: examples, steps, model")
    eta_s: float | None = Field(
        default=None, description="seconds left at the rates measured so far (None: unknown yet)"
    )
    phases: list[dict[str, Any]] | None = Field(
        default=None, description="each phase: name, label, done, total, unit and seconds once finished"
    )
    queue_position: int | None = Field(default=None, description="a queued job's place in its queue (1 = next)")
    waiting_behind: dict[str, Any] | None = Field(
        default=None, description="the job a queued one waits behind: id, kind, status, project_id, project_name"
    )
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


class WorkerNoticeOut(BaseModel):
    """An embedded worker of ``xmd serve`` that died, and whether the supervisor has restarted it."""

    queue: str
    role: str = Field(description='what the worker runs: "retrain" or the other kinds in words')
    exit_code: int | None = Field(description="the dead worker's exit status (-9: killed by SIGKILL)")
    died_at: datetime
    restart_in_s: float | None = Field(description="the back-off before the restart, when it died")
    restarted_at: datetime | None = Field(description="None while the restart is still due")
    restarts: int = Field(description="restarts of this worker since the server started")
    message: str = Field(description="the notice in words (UTC times)")


class JobPage(Page[JobOut]):
    """A page of jobs, and what happened to ``xmd serve``'s embedded workers lately (empty elsewhere)."""

    workers: list[WorkerNoticeOut] = Field(default_factory=list)


def worker_notice_out(event: WorkerEvent) -> WorkerNoticeOut:
    return WorkerNoticeOut(
        queue=event.queue,
        role=event.role,
        exit_code=event.exit_code,
        died_at=event.died_at,
        restart_in_s=event.restart_in_s,
        restarted_at=event.restarted_at,
        restarts=event.restarts,
        message=event.message(),
    )


def job_out(job: Job, queue: dict[str, Any] | None = None) -> JobOut:
    """The job as the API shows it; ``queue`` (from ``jobs.service.queue_info``) places a queued one."""
    out = JobOut.model_validate(job, from_attributes=True)
    if queue is not None:
        out.queue_position, out.waiting_behind = queue.get("position"), queue.get("behind")
    return out


def metric_out(m: JobMetric) -> MetricOut:
    return MetricOut.model_validate(m, from_attributes=True)
