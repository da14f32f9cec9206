"""A retrain as the API takes it (``RetrainIn``: what it starts from, and every field of the core's retrain
settings, :mod:`xmd.core.options`), the estimate it answers before it starts, and two versions compared (its result)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from xmd.core.retrain import RETRAIN_SETTINGS
from xmd.explanations.schemas import ExplanationOut
from xmd.http.fields import settings_fields
from xmd.http.pagination import Page
from xmd.http.params import BodyId
from xmd.versions.schemas import VersionOut


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
    controls_s: float | None = Field(
        default=None,
        description="with controls: how much longer until every control job that follows the retrain is done "
        "(they run after the new version is ready, one after another on the retrain queue); None without "
        "controls or when a rate was never measured",
    )
    until_controls_s: float | None = Field(
        default=None, description="with controls: expected_s (until the new version is ready) plus controls_s"
    )
    control_runs: int = Field(default=0, description="with controls: the follow-up jobs (arm x seed) queued")


class EvalSetOut(BaseModel):
    """What an eval set holds, to read its metrics right (a one-class set caps macro-F1)."""

    dataset_id: int
    n_examples: int
    classes: dict[str, int] = Field(description="gold examples per class name (classes with none left out)")


class CompareOut(BaseModel):
    a: VersionOut
    b: VersionOut
    metrics: dict[str, Any]
    shares: dict[str, Any] | None
    example: dict[str, ExplanationOut] | None = None
    sets: dict[str, EvalSetOut] = Field(default_factory=dict, description="the eval sets of ``metrics``, by name")


class PickOut(BaseModel):
    """An example the side-by-side picker offers, with the id users see (``ext_id``) and why."""

    id: int = Field(description="database id (what ``compare?example_id=`` takes)")
    ext_id: str = Field(description="the example's id in its file: the id every screen shows")
    dataset: str
    snippet: str = Field(description="the text's first 200 characters")
    label: int | None
    change: float | None = Field(
        description="largest change of one class's probability from a to b (null: not both explained)"
    )
    pred_a: int | None
    pred_b: int | None
    words: list[str] = Field(default_factory=list, description="task-level feedback words it contains")


class PicksPage(Page[PickOut]):
    group: str
    method: str
    words: list[str] = Field(default_factory=list, description="the task-level feedback words (group task_words)")
    scanned: int | None = Field(
        default=None, description="rows read: candidate texts (task_words) or explanation pairs (changed)"
    )
    capped: bool = Field(default=False, description="more rows exist than were read: the total is a lower bound")
    note: str | None = Field(default=None, description="why the group is empty, when it is")


class ForecastIn(BaseModel):
    """What a forecast predicts: a version (default: latest ready) on eval sets, with the project's feedback."""

    model_config = ConfigDict(extra="forbid")

    version_id: BodyId | None = Field(default=None, description="the version to forecast (default: latest ready)")
    train_dataset_ids: list[BodyId] | None = Field(
        default=None, description="where instance marks and the flagged class are read (default: every training set)"
    )
    eval_dataset_ids: list[BodyId] | None = Field(default=None, description="default: every eval dataset")
    max_examples: int = Field(default=2000, ge=1, le=20000, strict=True, description="examples per eval set")
