"""Jobs as the API takes and shows them.

``RetrainIn`` carries the retrain settings of the core's dataclasses (see :mod:`xmd.core.options`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr, create_model

from xmd.core.options import options
from xmd.core.training import RETRAIN_SETTINGS
from xmd.jobs.models import Job, JobKind, JobMetric, JobStatus

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


def settings_fields(*classes: type) -> dict[str, Any]:
    """Pydantic field definitions read off settings dataclasses (type, default, bounds, choices, help)."""
    fields: dict[str, Any] = {}
    for o in options(*classes):
        kind: Any = Literal[o.choices] if o.choices else o.type  # type: ignore[valid-type]
        fields[o.name] = (kind, Field(default=o.default, ge=o.ge, gt=o.gt, le=o.le, description=o.help))
    return fields


class _RetrainTargets(BaseModel):
    """What a retrain starts from and trains on; the settings are added from :data:`RETRAIN_SETTINGS`."""

    version_id: int | None = Field(default=None, description="the version to start from (default: latest ready)")
    train_dataset_ids: list[int] | None = Field(default=None, description="default: every training dataset")
    eval_dataset_ids: list[int] | None = Field(default=None, description="default: every eval dataset")


RetrainIn = create_model(
    "RetrainIn",
    __base__=_RetrainTargets,
    __doc__="A retrain: what it starts from, and every field of the core's retrain settings.",
    **settings_fields(*RETRAIN_SETTINGS),
)


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
