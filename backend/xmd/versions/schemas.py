"""Model versions as the API shows them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, SecretStr

from xmd.explanations.schemas import ExplanationOut
from xmd.http.pagination import Page
from xmd.http.params import BodyId
from xmd.versions.models import ModelKind, ModelStatus, ModelVersion

REPO_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?$"


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


class VersionOut(BaseModel):
    id: int
    project_id: int
    parent_id: int | None
    version: int
    name: str
    kind: ModelKind
    status: ModelStatus
    metrics: dict[str, Any]
    feedback_snapshot: dict[str, Any] | None
    config: dict[str, Any]
    created_at: datetime
    retrain: dict[str, Any] | None = None


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


def version_out(mv: ModelVersion, retrain: dict[str, Any] | None) -> VersionOut:
    """``retrain``: :func:`xmd.versions.service.retrain_result` (the result of the retrain that made ``mv``)."""
    out = VersionOut.model_validate(mv, from_attributes=True)
    out.retrain = retrain
    return out


class DownloadLinkOut(BaseModel):
    url: str
    expires_at: datetime
