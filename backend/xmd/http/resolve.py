"""Defaults shared by the views: which model version and attribution method a request means."""

from __future__ import annotations

from sqlalchemy.orm import Session

from xmd.core.attribution import METHODS
from xmd.core.types import DataError
from xmd.db.errors import ConflictError, NotFoundError
from xmd.models import service as models_service
from xmd.models.models import ModelStatus, ModelVersion
from xmd.projects.models import Project

DEFAULT_METHOD = "grad_x_input"


def method_for(project: Project, method: str | None) -> str:
    """The request's method, else the project's default, else grad_x_input; 422 for unknown ones."""
    chosen = method or project.settings.get("method") or DEFAULT_METHOD
    if chosen not in METHODS:
        raise DataError(f"unknown attribution method {chosen!r}; choose one of {', '.join(METHODS)}")
    return chosen


def version_for(db: Session, project: Project, version_id: int | None, *, ready: bool = True) -> ModelVersion:
    """The requested version of ``project`` (404 if it belongs elsewhere), else its latest ready one."""
    if version_id is not None:
        mv = models_service.get_or_raise(db_session=db, model_version_id=version_id)
        if mv.project_id != project.id:
            raise NotFoundError(f"model version {version_id} not found in project {project.name!r}")
        if ready and mv.status is not ModelStatus.READY:
            raise ConflictError(f"model version {mv.name} is {mv.status.value}, not ready")
        return mv
    versions = [
        v for v in models_service.list_versions(db_session=db, project_id=project.id) if v.status is ModelStatus.READY
    ]
    if not versions:
        raise NotFoundError(f"project {project.name!r} has no ready model version")
    return versions[-1]
