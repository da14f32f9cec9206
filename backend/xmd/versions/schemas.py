"""Model versions as the API shows them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy.orm import Session

from xmd.explanations.schemas import ExplanationOut
from xmd.jobs import service as jobs_service
from xmd.jobs.models import JobKind, JobStatus
from xmd.versions.models import ModelKind, ModelStatus, ModelVersion


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


class CompareOut(BaseModel):
    a: VersionOut
    b: VersionOut
    metrics: dict[str, Any]
    shares: dict[str, Any] | None
    example: dict[str, ExplanationOut] | None = None


def _retrain_result(db: Session, mv: ModelVersion) -> dict[str, Any] | None:
    """The result of the retrain job that produced ``mv`` (metrics before/after, shares of the
    corrected words before/after), if one did."""
    if mv.kind is not ModelKind.DEBUGGED:
        return None
    for job in jobs_service.list_jobs(
        db_session=db, project_id=mv.project_id, kind=JobKind.RETRAIN, status=JobStatus.SUCCEEDED, limit=500
    ):
        if job.result and job.result.get("version_id") == mv.id:
            return job.result
    return None


def version_out(db: Session, mv: ModelVersion) -> VersionOut:
    out = VersionOut.model_validate(mv, from_attributes=True)
    out.retrain = _retrain_result(db, mv)
    return out


class DownloadLinkOut(BaseModel):
    url: str
    expires_at: datetime
