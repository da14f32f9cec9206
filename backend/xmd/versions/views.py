"""Model versions over HTTP: the lineage, a before/after comparison, and the version as an archive."""

from __future__ import annotations

import tarfile
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse
from fastapi.security import HTTPAuthorizationCredentials
from sqlalchemy.orm import Session

from xmd.core.evaluate import compare_metrics
from xmd.core.types import DataError
from xmd.datasets import service as datasets_service
from xmd.db.errors import ConflictError, NotFoundError
from xmd.explanations.flows import explanation_for, marks_for
from xmd.explanations.schemas import explanation_out
from xmd.http import links
from xmd.http.deps import DB, Viewer, bearer, link_or_token_user, models_of, settings_of
from xmd.http.pagination import Limit, Offset, Page, page_of
from xmd.projects import service as projects_service
from xmd.users import service as users_service
from xmd.users.models import User
from xmd.versions import service
from xmd.versions.models import ModelStatus, ModelVersion
from xmd.versions.schemas import CompareOut, DownloadLinkOut, VersionOut, version_out

router = APIRouter(prefix="/api", tags=["model versions"])


def _version(db: Session, version_id: int) -> ModelVersion:
    return service.get_or_raise(db_session=db, model_version_id=version_id)


@router.get("/projects/{project_id}/versions", response_model=Page[VersionOut])
def list_versions(project_id: int, db: DB, _: Viewer, offset: Offset = 0, limit: Limit = 100) -> Page[VersionOut]:
    """Every version of the project by number, with lineage (parent), metrics and feedback snapshot."""
    projects_service.get_or_raise(db_session=db, project_id=project_id)
    rows = page_of(service.list_versions(db_session=db, project_id=project_id), offset, limit)
    rows["items"] = [version_out(db, mv) for mv in rows["items"]]
    return Page[VersionOut](**rows)


@router.get("/versions/{version_id}", response_model=VersionOut)
def get_version(version_id: int, db: DB, _: Viewer) -> VersionOut:
    """One model version."""
    return version_out(db, _version(db, version_id))


@router.get("/projects/{project_id}/compare", response_model=CompareOut)
def compare(
    project_id: int,
    a: int,
    b: int,
    request: Request,
    db: DB,
    _: Viewer,
    example_id: int | None = None,
    method: str | None = None,
) -> CompareOut:
    """Metrics per eval set of two versions side by side (with deltas), the corrected words' share
    before/after, and, for ``example_id``, the example's explanation under both versions."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    va = service.resolve(db_session=db, project=project, version_id=a)
    vb = service.resolve(db_session=db, project=project, version_id=b)
    ra, rb = version_out(db, va), version_out(db, vb)
    metrics_a = dict(va.metrics)
    metrics_b = dict(vb.metrics)
    if rb.retrain and rb.retrain.get("metrics_before") and vb.parent_id == va.id and not metrics_a:
        metrics_a = rb.retrain["metrics_before"]
    shares = None
    if rb.retrain:
        shares = {"before": rb.retrain.get("shares_before"), "after": rb.retrain.get("shares_after")}
    example = None
    if example_id is not None:
        ex = datasets_service.get_example_or_raise(db_session=db, example_id=example_id)
        if ex.project_id != project.id:
            raise NotFoundError(f"example {example_id} not found in project {project.name!r}")
        m = projects_service.method_for(project, method)
        models = models_of(request)
        example = {}
        for side, mv in (("a", va), ("b", vb)):
            exp = explanation_for(db, models, project, mv, ex, m)
            marks = marks_for(db, project, ex, exp.words, exp.prediction)
            example[side] = explanation_out(exp, ex.text, project, mv, ex, marks)
    return CompareOut(a=ra, b=rb, metrics=compare_metrics(metrics_a, metrics_b), shares=shares, example=example)


def _archive(src: Path, name: str, tmp_root: Path) -> Path:
    tmp_root.mkdir(parents=True, exist_ok=True)
    fd, out = tempfile.mkstemp(prefix="download-", suffix=".tar.gz", dir=tmp_root)
    with open(fd, "wb") as f, tarfile.open(fileobj=f, mode="w:gz") as tf:
        tf.add(src, arcname=name)
    return Path(out)


def _downloadable(db: Session, version_id: int) -> ModelVersion:
    """The version if its files can be downloaded now; the error a person should see otherwise."""
    mv = _version(db, version_id)
    if mv.status is not ModelStatus.READY:
        raise ConflictError(f"model version {mv.name} is {mv.status.value}; only ready versions can be downloaded")
    if not Path(mv.path).is_dir():
        raise DataError(f"the files of model version {mv.name} are missing on the server ({mv.path})")
    return mv


@router.post("/versions/{version_id}/download-link", response_model=DownloadLinkOut)
def download_link(
    version_id: int,
    db: DB,
    _: Viewer,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> DownloadLinkOut:
    """A download URL that works for a few minutes without any token in it, for a plain browser link.
    Refuses at once when the version cannot be downloaded (not ready, files missing)."""
    _downloadable(db, version_id)
    token = users_service.token_of(db_session=db, secret=credentials.credentials if credentials else "")
    if token is None:  # pragma: no cover - require() has just accepted this bearer token
        raise DataError("a download link needs a bearer token")
    link, expires = links.make(token, version_id)
    return DownloadLinkOut(
        url=f"/api/versions/{version_id}/download?link={link}",
        expires_at=datetime.fromtimestamp(expires, tz=UTC),
    )


@router.get("/versions/{version_id}/download", response_class=FileResponse)
async def download(
    version_id: int,
    request: Request,
    db: DB,
    _: Annotated[User, Depends(link_or_token_user)],
    background: BackgroundTasks,
) -> FileResponse:
    """The version's model directory (weights, tokenizer, model card) as a .tar.gz; loads with
    ``from_pretrained`` after extraction, nothing of xmd's needed. Besides a bearer token it accepts a
    signed ``?link=`` from ``POST …/download-link`` (or ``?token=``), so that a plain browser link works;
    both are redacted from access logs."""
    mv = _downloadable(db, version_id)
    src = Path(mv.path)
    project = projects_service.get_or_raise(db_session=db, project_id=mv.project_id)
    name = f"{project.name}-v{mv.version}".replace("/", "_").replace(" ", "_")
    path = await run_in_threadpool(_archive, src, name, settings_of(request).uploads_dir)
    background.add_task(path.unlink, missing_ok=True)
    return FileResponse(path, media_type="application/gzip", filename=f"{name}.tar.gz")
