"""A retrain as the API takes it (``RetrainIn``: what it starts from, and every field of the core's retrain
settings, :mod:`xmd.core.options`) and the estimate it answers before it starts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from xmd.core.retrain import RETRAIN_SETTINGS
from xmd.http.fields import settings_fields
from xmd.http.params import BodyId


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
