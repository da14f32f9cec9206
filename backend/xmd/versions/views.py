"""Model versions over HTTP: the lineage, a before/after comparison, and the version as an archive."""

from __future__ import annotations

import re
import tempfile
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse
from fastapi.security import HTTPAuthorizationCredentials
from sqlalchemy.orm import Session

from xmd.config import Settings
from xmd.core.types import DataError
from xmd.http import links
from xmd.http.deps import (
    DB,
    Admin,
    Annotator,
    Viewer,
    bearer,
    end_session,
    enqueue_of,
    link_or_token_user,
    settings_of,
)
from xmd.http.pagination import Limit, Offset, Page, page_of
from xmd.http.params import Id
from xmd.http.tempfiles import owner_prefix
from xmd.jobs.schemas import JobOut, job_out
from xmd.projects import service as projects_service
from xmd.users import service as users_service
from xmd.users.models import User
from xmd.versions import flows, hub, service
from xmd.versions.models import ModelVersion
from xmd.versions.schemas import (
    DownloadLinkOut,
    EvaluateIn,
    PushIn,
    VersionOut,
    version_out,
)

router = APIRouter(prefix="/api", tags=["model versions"])
files_router = APIRouter(prefix="/api", tags=["model versions"])
"""A version's files (download link, download): listed after the comparison routes (:mod:`xmd.retrain.views`)."""
job_router = APIRouter(prefix="/api", tags=["jobs"])
"""Starting an evaluate or push job (listed with the other job routes, before ``xmd.jobs.views``)."""


@job_router.post("/projects/{project_id}/jobs/evaluate", status_code=202, response_model=JobOut)
def start_evaluate(project_id: Id, body: EvaluateIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Measure a version on eval sets (default: all of them); results land in the version's metrics."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_evaluate(db, enqueue_of(request), project, body))


@job_router.post("/projects/{project_id}/jobs/push", status_code=202, response_model=JobOut)
def start_push(project_id: Id, body: PushIn, request: Request, db: DB, _: Admin) -> JobOut:
    """Push a version to the Hugging Face Hub; the token is stored nowhere whole (xmd.jobs.secrets)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(hub.start_push(db, enqueue_of(request), project, body))


def _version(db: Session, version_id: int) -> ModelVersion:
    return service.get_or_raise(db_session=db, model_version_id=version_id)


@router.get("/projects/{project_id}/versions", response_model=Page[VersionOut])
def list_versions(project_id: Id, db: DB, _: Viewer, offset: Offset = 0, limit: Limit = 100) -> Page[VersionOut]:
    """Every version of the project by number, with lineage (parent), metrics and feedback snapshot."""
    projects_service.get_or_raise(db_session=db, project_id=project_id)
    rows = page_of(service.list_versions(db_session=db, project_id=project_id), offset, limit)
    rows["items"] = [
        version_out(mv, service.retrain_result(db_session=db, mv=mv), service.live_controls(db_session=db, mv=mv))
        for mv in rows["items"]
    ]
    return Page[VersionOut](**rows)


@router.get("/versions/{version_id}", response_model=VersionOut)
def get_version(version_id: Id, db: DB, _: Viewer) -> VersionOut:
    """One model version."""
    mv = _version(db, version_id)
    return version_out(mv, service.retrain_result(db_session=db, mv=mv), service.live_controls(db_session=db, mv=mv))


def _archive(settings: Settings, mv: ModelVersion, name: str) -> Path:
    """The version as a .tar.gz in a temporary file, streamed from the store (a bucket's objects go
    straight into the archive, not through the model cache)."""
    settings.uploads_dir.mkdir(parents=True, exist_ok=True)
    fd, out = tempfile.mkstemp(prefix=owner_prefix("download"), suffix=".tar.gz", dir=settings.uploads_dir)
    try:
        with open(fd, "wb") as f:
            service.store_of(settings).archive(mv.path, f, name)
    except BaseException:
        Path(out).unlink(missing_ok=True)
        raise
    return Path(out)


@files_router.post("/versions/{version_id}/download-link", response_model=DownloadLinkOut)
def download_link(
    version_id: Id,
    request: Request,
    db: DB,
    _: Viewer,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> DownloadLinkOut:
    """A download URL that works for a few minutes without any token in it, for a plain browser link.
    Refuses at once when the version cannot be downloaded (not ready, files missing)."""
    service.downloadable_or_raise(db_session=db, settings=settings_of(request), model_version_id=version_id)
    token = users_service.token_of(db_session=db, secret=credentials.credentials if credentials else "")
    if token is None:  # pragma: no cover - require() has just accepted this bearer token
        raise DataError("a download link needs a bearer token")
    link, expires = links.make(token, version_id)
    return DownloadLinkOut(
        url=f"/api/versions/{version_id}/download?link={link}",
        expires_at=datetime.fromtimestamp(expires, tz=UTC),
    )


@files_router.get("/versions/{version_id}/download", response_class=FileResponse)
async def download(
    version_id: Id,
    request: Request,
    db: DB,
    _: Annotated[User, Depends(link_or_token_user)],
    background: BackgroundTasks,
) -> FileResponse:
    """The version's model directory (weights, tokenizer, model card) as a .tar.gz; loads with
    ``from_pretrained`` after extraction, nothing of xmd's needed. Besides a bearer token it accepts a
    signed ``?link=`` from ``POST …/download-link`` (or ``?token=``), so that a plain browser link works;
    both are redacted from access logs."""
    settings = settings_of(request)
    mv = await run_in_threadpool(  # may ask a bucket: off the event loop
        partial(service.downloadable_or_raise, db_session=db, settings=settings, model_version_id=version_id)
    )
    project = projects_service.get_or_raise(db_session=db, project_id=mv.project_id)
    # a folder name every system accepts (no ':', '/', '\\', spaces ...): it is the archive's top folder
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{project.name}-v{mv.version}").strip("._") or f"model-v{mv.version}"
    # archiving and sending take as long as the model is large and the client slow: hold no connection
    await run_in_threadpool(end_session, request, db)
    path = await run_in_threadpool(_archive, settings, mv, name)
    background.add_task(path.unlink, missing_ok=True)
    return FileResponse(path, media_type="application/gzip", filename=f"{name}.tar.gz")
