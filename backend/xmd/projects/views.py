"""Projects over HTTP: create from a model directory, a Hub id or an uploaded archive; list; get; delete."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field, model_validator
from sqlalchemy import func, select

from xmd.api.deps import DB, require
from xmd.api.runtime import settings_of
from xmd.api.uploads import remove, save_upload
from xmd.core.types import DataError
from xmd.datasets.models import Dataset
from xmd.feedback_store.models import Feedback
from xmd.models import service as models_service
from xmd.projects import flows, paths, service
from xmd.projects.models import Project
from xmd.users.models import Role, User

router = APIRouter(prefix="/api", tags=["projects"])
Viewer = Annotated[User, Depends(require(Role.VIEWER))]
Admin = Annotated[User, Depends(require(Role.ADMIN))]


class ProjectCreate(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    labels: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        default=None, description="class names in the model's order; default: the model's own id2label"
    )
    model_path: str | None = Field(default=None, max_length=1000, description="a save_pretrained directory")
    hub_id: str | None = Field(default=None, max_length=200, description="a Hugging Face Hub model id")
    description: str = Field(default="", max_length=5000)

    @model_validator(mode="after")
    def one_source(self) -> ProjectCreate:
        if (self.model_path is None) == (self.hub_id is None):
            raise ValueError("give exactly one of model_path and hub_id")
        if self.labels is not None and not self.labels:
            raise ValueError("labels, when given, must not be empty")
        return self


class ProjectOut(BaseModel):
    id: int
    name: str
    description: str
    labels: list[str]
    model_source: str
    created_at: datetime
    base_version_id: int | None
    latest_version_id: int | None
    n_datasets: int
    n_examples: int
    n_feedback: int


def project_out(db: Any, project: Project) -> ProjectOut:
    versions = models_service.list_versions(db_session=db, project_id=project.id)
    n_ds, n_ex = db.execute(
        select(func.count(Dataset.id), func.coalesce(func.sum(Dataset.n_examples), 0)).where(
            Dataset.project_id == project.id
        )
    ).one()
    n_fb = db.scalar(select(func.count()).select_from(Feedback).where(Feedback.project_id == project.id))
    ready = [v for v in versions if v.status.value == "ready"]
    return ProjectOut(
        id=project.id,
        name=project.name,
        description=project.description,
        labels=list(project.labels),
        model_source=project.model_source,
        created_at=project.created_at,
        base_version_id=versions[0].id if versions else None,
        latest_version_id=ready[-1].id if ready else None,
        n_datasets=int(n_ds),
        n_examples=int(n_ex),
        n_feedback=int(n_fb or 0),
    )


@router.get("/projects", response_model=list[ProjectOut])
def list_projects(db: DB, _: Viewer) -> list[ProjectOut]:
    """All projects, newest first."""
    return [project_out(db, p) for p in service.list_projects(db_session=db)]


@router.post("/projects", status_code=201, response_model=ProjectOut)
async def create_project(body: ProjectCreate, request: Request, db: DB, user: Admin) -> ProjectOut:
    """Create a project from a model directory on the server or a Hub id; the model is loaded to check
    it (422 with the reason when it does not load or its classes do not match ``labels``)."""
    settings = settings_of(request)
    source = await run_in_threadpool(paths.model_source, settings, model_path=body.model_path, hub_id=body.hub_id)
    project = await run_in_threadpool(
        flows.create_project,
        db_session=db,
        settings=settings,
        name=body.name,
        source=source.record,
        model_dir=source.folder,
        labels=body.labels,
        description=body.description,
        user_id=user.id,
    )
    return project_out(db, project)


def _parse_labels(raw: str | None) -> list[str] | None:
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"labels look like JSON but do not parse: {exc}") from None
        if not isinstance(value, list) or not all(isinstance(x, str) and x.strip() for x in value):
            raise DataError("labels must be a JSON list of non-empty strings")
        return [x.strip() for x in value]
    labels = [x.strip() for x in text.split(",")]
    if not all(labels):
        raise DataError("labels must be comma-separated non-empty names")
    return labels


@router.post("/projects/upload", status_code=201, response_model=ProjectOut)
async def create_project_from_archive(
    request: Request,
    db: DB,
    user: Admin,
    name: Annotated[str, Form(min_length=1, max_length=200)],
    archive: Annotated[UploadFile, File(description=".zip or .tar.gz of a save_pretrained folder")],
    labels: Annotated[str | None, Form(description="comma-separated or a JSON list")] = None,
    description: Annotated[str, Form(max_length=5000)] = "",
) -> ProjectOut:
    """Create a project from an uploaded model archive (size-limited by ``XMD_MAX_UPLOAD_MB``)."""
    settings = settings_of(request)
    label_list = _parse_labels(labels)
    work = flows.temp_dir(settings)
    try:
        suffix = "".join(Path(archive.filename or "model.zip").suffixes[-2:]) or ".zip"
        path = await save_upload(archive, work / f"archive{suffix}", settings)
        model_dir = await run_in_threadpool(flows.extract_model_archive, path, work / "model", settings)
        project = await run_in_threadpool(
            flows.create_project,
            db_session=db,
            settings=settings,
            name=name,
            source=f"upload:{archive.filename or 'archive'}",
            labels=label_list,
            description=description,
            user_id=user.id,
            model_dir=model_dir,
        )
    finally:
        remove(work)
    return project_out(db, project)


@router.get("/projects/{project_id}", response_model=ProjectOut)
def get_project(project_id: int, db: DB, _: Viewer) -> ProjectOut:
    """One project with its counts and its base and latest model versions."""
    return project_out(db, service.get_or_raise(db_session=db, project_id=project_id))


@router.delete("/projects/{project_id}", status_code=204)
def delete_project(project_id: int, request: Request, db: DB, _: Admin) -> None:
    """Delete a project, everything it owns in the database, and its model versions on disk."""
    project = service.get_or_raise(db_session=db, project_id=project_id)
    service.delete(db_session=db, project=project)
    shutil.rmtree(settings_of(request).models_dir / f"p{project_id}", ignore_errors=True)
