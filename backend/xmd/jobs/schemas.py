"""Jobs as the API takes and shows them.

``RetrainIn`` carries the retrain settings of the core's dataclasses (see :mod:`xmd.core.options`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, create_model

from xmd.core.options import options
from xmd.core.retrain import RETRAIN_SETTINGS
from xmd.http.params import BodyId
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


class ExplainIn(BaseModel):
    dataset_id: BodyId | None = Field(default=None, description="default: every training dataset")
    version_id: BodyId | None = None
    method: str | None = None
    chunk_size: int = Field(default=256, ge=8, le=10_000)


def settings_fields(*classes: type) -> dict[str, Any]:
    """Pydantic field definitions read off settings dataclasses (type, default, bounds, choices, help)."""
    fields: dict[str, Any] = {}
    for o in options(*classes):
        kind: Any = Literal[o.choices] if o.choices else o.type  # type: ignore[valid-type]
        if o.many:  # several of the choices: a JSON list of distinct names
            kind = list[Literal[o.choices]] if o.choices else list[str]  # type: ignore[valid-type]
            field = Field(default=list(o.default), description=o.help, json_schema_extra={"uniqueItems": True})
        else:
            field = Field(default=o.default, ge=o.ge, gt=o.gt, le=o.le, description=o.help)
        fields[o.name] = (kind, field)
    return fields


class _RetrainTargets(BaseModel):
    """What a retrain starts from and trains on; the settings are added from :data:`RETRAIN_SETTINGS`.
    An unknown field (a setting removed since, docs/settings.md) answers 422 instead of being ignored."""

    model_config = ConfigDict(extra="forbid")

    version_id: BodyId | None = Field(default=None, description="the version to start from (default: latest ready)")
    train_dataset_ids: list[BodyId] | None = Field(default=None, description="default: every training dataset")
    eval_dataset_ids: list[BodyId] | None = Field(default=None, description="default: every eval dataset")


RetrainIn = create_model(
    "RetrainIn",
    __base__=_RetrainTargets,
    __doc__="A retrain: what it starts from, and every field of the core's retrain settings.",
    **settings_fields(*RETRAIN_SETTINGS),
)


class PhaseEstimate(BaseModel):
    name: str
    label: str
    total: int
    unit: str
    expected_s: float | None = Field(description="at the rate of ``rates_from``; None: never measured")


class RetrainEstimate(BaseModel):
    """What a retrain will do and how long it should take, before it starts."""

    phases: list[PhaseEstimate]
    expected_s: float | None = Field(description="the whole retrain; None until a retrain has measured every phase")
    measured_before: bool = Field(description="whether an earlier retrain measured the rates used")
    rates_from: Literal["retrain", "calibration"] | None = Field(
        default=None,
        description="where the rates come from: an earlier retrain, or the calibration the project's first "
        "explain job ran (a few timed batches of each kind of a retrain's work); None: nothing measured yet",
    )
    graphs_priced: bool = Field(
        default=False,
        description="with cuda_graphs: whether the project's calibration timed graphed training steps, which price "
        "the training here; false: priced on eager steps (a GPU's graphed retrain then takes less)",
    )


class EvaluateIn(BaseModel):
    version_id: BodyId
    dataset_ids: list[BodyId] | None = Field(default=None, description="default: every eval dataset")


class PushIn(BaseModel):
    version_id: BodyId
    repo_id: str = Field(min_length=1, max_length=96, pattern=REPO_ID)
    private: bool = True
    token: SecretStr | None = Field(
        default=None, description="a Hugging Face write token; used for this push only, never stored"
    )


def job_out(job: Job, queue: dict[str, Any] | None = None) -> JobOut:
    """The job as the API shows it; ``queue`` (from ``jobs.service.queue_info``) places a queued one."""
    out = JobOut.model_validate(job, from_attributes=True)
    if queue is not None:
        out.queue_position, out.waiting_behind = queue.get("position"), queue.get("behind")
    return out


def metric_out(m: JobMetric) -> MetricOut:
    return MetricOut.model_validate(m, from_attributes=True)
