"""Job rows and their metric points (the live loss curve).

A worker owns a running job: it reports progress (which is also its heartbeat) and finishes or fails
it. Anything else (the API) only reads, or asks for cancellation through ``cancel_requested``.
"""

from __future__ import annotations

import enum
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Double, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from xmd.db.base import Base, enum_column, utcnow


class JobStatus(str, enum.Enum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)


KIND_LENGTH = 40
"""The longest job kind name (:func:`xmd.jobs.kinds.register` checks it)."""


def new_job_id() -> str:
    return str(uuid.uuid4())


class Job(Base):
    __tablename__ = "jobs"
    __table_args__ = (Index(None, "project_id", "created_at"), Index(None, "status", "heartbeat_at"))

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_job_id)
    project_id: Mapped[int | None] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(KIND_LENGTH))
    """A kind a domain registered (:mod:`xmd.jobs.kinds`): a plain string, so a new kind needs no migration."""
    status: Mapped[JobStatus] = mapped_column(enum_column(JobStatus, "job_status"), default=JobStatus.QUEUED)
    progress: Mapped[float] = mapped_column(Double, default=0.0)
    step: Mapped[int | None]
    total_steps: Mapped[int | None]
    epoch: Mapped[float | None] = mapped_column(Double)
    params: Mapped[dict[str, Any]] = mapped_column(default=dict)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    error: Mapped[str | None] = mapped_column(Text)
    worker_host: Mapped[str | None] = mapped_column(String(255))
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    phase: Mapped[str | None] = mapped_column(String(200))
    """The running phase's label ("measuring v1 on test_clean"); its progress is phase_done / phase_total."""
    phase_done: Mapped[int | None]
    phase_total: Mapped[int | None]
    phase_unit: Mapped[str | None] = mapped_column(String(20))
    eta_s: Mapped[float | None] = mapped_column(Double)
    """Seconds left, from the rates measured so far (None until one is measured)."""
    phases: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON(none_as_null=True))
    """The phase log (plan, progress and seconds of each), which later jobs take their expected rates from."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    heartbeat_at: Mapped[datetime | None]


class JobMetric(Base):
    __tablename__ = "job_metrics"
    __table_args__ = (Index(None, "job_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    step: Mapped[int]
    epoch: Mapped[float | None] = mapped_column(Double)
    task_loss: Mapped[float | None] = mapped_column(Double)
    er_loss: Mapped[float | None] = mapped_column(Double)
    loss: Mapped[float | None] = mapped_column(Double)
    lr: Mapped[float | None] = mapped_column(Double)
    at: Mapped[datetime] = mapped_column(default=utcnow)


class JobSecret(Base):
    """Half of a secret a job needs (a Hub token): ``sealed`` is the secret XOR a random pad that only
    the job's broker message carries, so neither the database nor the broker ever holds the secret.
    The worker reads the row once and deletes it (:mod:`xmd.jobs.secrets`)."""

    __tablename__ = "job_secrets"

    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    sealed: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
