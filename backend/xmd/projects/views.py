"""Projects over HTTP: create from a model directory, a Hub id or an uploaded archive; list; get; delete."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.concurrency import run_in_threadpool

from xmd.core.types import DataError
from xmd.http.deps import DB, Admin, Viewer, settings_of
from xmd.http.pagination import Limit, Offset, Page, page_of
from xmd.http.uploads import remove, save_upload, temp_dir
from xmd.projects import flows, service
from xmd.projects.schemas import ProjectCreate, ProjectOut, project_out
from xmd.versions import service as versions_service

router = APIRouter(prefix="/api", tags=["projects"])


@router.get("/projects", response_model=Page[ProjectOut])
def list_projects(db: DB, _: Viewer, offset: Offset = 0, limit: Limit = 100) -> Page[ProjectOut]:
    """All projects, newest first."""
    rows = page_of(service.list_projects(db_session=db), offset, limit)
    rows["items"] = [project_out(db, p) for p in rows["items"]]
    return Page[ProjectOut](**rows)


@router.post("/projects", status_code=201, response_model=ProjectOut)
async def create_project(body: ProjectCreate, request: Request, db: DB, user: Admin) -> ProjectOut:
    """Create a project from a model directory on the server or a Hub id; the model is loaded to check
    it (422 with the reason when it does not load or its classes do not match ``labels``)."""
    source = body.model_path or body.hub_id or ""
    project = await run_in_threadpool(
        flows.create_project,
        db_session=db,
        settings=settings_of(request),
        name=body.name,
        source=source,
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
    work = temp_dir(settings)
    try:
        suffix = "".join(Path(archive.filename or "model.zip").suffixes[-2:]) or ".zip"
        path = await save_upload(archive, work / f"archive{suffix}", settings)
        model_dir = await run_in_threadpool(flows.extract_model_archive, path, work / "model")
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
    shutil.rmtree(versions_service.project_dir(settings_of(request), project_id), ignore_errors=True)
