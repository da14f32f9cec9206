"""Model versions as the API shows them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, SecretStr

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
    controls: dict[str, Any] | None = None


def version_out(mv: ModelVersion, retrain: dict[str, Any] | None, controls: dict[str, Any] | None = None) -> VersionOut:
    """``retrain``: :func:`xmd.versions.service.retrain_result` (the result of the retrain that made ``mv``);
    ``controls``: :func:`xmd.versions.service.live_controls` (its controls that run after it)."""
    out = VersionOut.model_validate(mv, from_attributes=True)
    out.retrain = retrain
    out.controls = controls
    return out


class DownloadLinkOut(BaseModel):
    url: str
    expires_at: datetime
