"""Model versions over HTTP: the lineage, a before/after comparison, and the version as an archive."""

from __future__ import annotations

import re
import tempfile
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, BackgroundTasks, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse
from fastapi.security import HTTPAuthorizationCredentials
from sqlalchemy.orm import Session

from xmd.config import Settings
from xmd.core.evaluate import compare_metrics
from xmd.core.types import DataError
from xmd.datasets import service as datasets_service
from xmd.datasets.models import DatasetRole
from xmd.db.errors import NotFoundError
from xmd.explanations.flows import explanation_for, marks_for
from xmd.explanations.schemas import explanation_out
from xmd.http import links
from xmd.http.deps import DB, Admin, Annotator, Viewer, bearer, enqueue_of, link_or_token_user, models_of, settings_of
from xmd.http.pagination import Limit, Offset, Page, page_of
from xmd.http.params import Id, OptId, QueryId
from xmd.http.tempfiles import owner_prefix
from xmd.jobs.schemas import JobOut, job_out
from xmd.projects import service as projects_service
from xmd.projects.models import Project
from xmd.users import service as users_service
from xmd.users.models import User
from xmd.versions import flows, hub, service
from xmd.versions import picks as picks_store
from xmd.versions.models import ModelVersion
from xmd.versions.schemas import (
    CompareOut,
    DownloadLinkOut,
    EvalSetOut,
    EvaluateIn,
    PickOut,
    PicksPage,
    PushIn,
    VersionOut,
    version_out,
)

router = APIRouter(prefix="/api", tags=["model versions"])
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
    rows["items"] = [version_out(mv, service.retrain_result(db_session=db, mv=mv)) for mv in rows["items"]]
    return Page[VersionOut](**rows)


@router.get("/versions/{version_id}", response_model=VersionOut)
def get_version(version_id: Id, db: DB, _: Viewer) -> VersionOut:
    """One model version."""
    mv = _version(db, version_id)
    return version_out(mv, service.retrain_result(db_session=db, mv=mv))


@router.get("/projects/{project_id}/compare", response_model=CompareOut)
def compare(
    project_id: Id,
    a: QueryId,
    b: QueryId,
    request: Request,
    db: DB,
    _: Viewer,
    example_id: OptId = None,
    method: str | None = None,
) -> CompareOut:
    """Metrics per eval set of two versions side by side (with deltas), the corrected words' share
    before/after, and, for ``example_id``, the example's explanation under both versions."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    va = service.resolve(db_session=db, project=project, version_id=a)
    vb = service.resolve(db_session=db, project=project, version_id=b)
    ra = version_out(va, service.retrain_result(db_session=db, mv=va))
    rb = version_out(vb, service.retrain_result(db_session=db, mv=vb))
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
    metrics = compare_metrics(metrics_a, metrics_b)
    out = CompareOut(a=ra, b=rb, metrics=metrics, shares=shares, example=example, sets=_eval_sets(db, project, metrics))
    return out


def _eval_sets(db: Session, project: Project, metrics: dict[str, object]) -> dict[str, EvalSetOut]:
    """The project's eval sets that the metrics name, with their gold classes (so a one-class set,
    whose macro-F1 cannot pass 50 % while any other class is predicted, can say so)."""
    out = {}
    for ds in datasets_service.list_datasets(db_session=db, project_id=project.id, role=DatasetRole.EVAL):
        if ds.name not in metrics:
            continue
        counts = datasets_service.label_counts(db_session=db, dataset_id=ds.id)
        labels = list(project.labels)
        classes = {labels[k] if 0 <= k < len(labels) else str(k): n for k, n in counts.items() if k is not None}
        out[ds.name] = EvalSetOut(dataset_id=ds.id, n_examples=ds.n_examples, classes=classes)
    return out


@router.get("/projects/{project_id}/compare/examples", response_model=PicksPage)
def compare_examples(
    project_id: Id,
    a: QueryId,
    b: QueryId,
    db: DB,
    _: Viewer,
    group: Literal["feedback", "task_words", "changed"] = "feedback",
    method: str | None = None,
    offset: Annotated[int, Query(ge=0, le=picks_store.MAX_PICKS)] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> PicksPage:
    """Examples worth showing under versions ``a`` and ``b`` side by side, one group a page:
    ``feedback`` (per-example feedback), ``task_words`` (they contain a task-level feedback word),
    ``changed`` (the largest change of the predicted probabilities, among at most 20,000 examples both
    versions explained). ``offset + limit`` is at most 500."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    va = service.resolve(db_session=db, project=project, version_id=a)
    vb = service.resolve(db_session=db, project=project, version_id=b)
    if offset + limit > picks_store.MAX_PICKS:
        raise DataError(f"offset + limit must be at most {picks_store.MAX_PICKS} (got {offset + limit})")
    m = projects_service.method_for(project, method)
    got = picks_store.picks(
        db_session=db, project_id=project.id, a=va, b=vb, method=m, group=group, offset=offset, limit=limit
    )
    items = [
        PickOut(
            id=p.example.id,
            ext_id=p.example.ext_id,
            dataset=p.dataset,
            snippet=p.example.text[:200],
            label=p.example.label,
            change=p.change,
            pred_a=p.pred_a,
            pred_b=p.pred_b,
            words=p.words,
        )
        for p in got.items
    ]
    return PicksPage(
        items=items,
        total=got.total,
        offset=offset,
        limit=limit,
        group=group,
        method=m,
        words=got.words,
        scanned=got.scanned,
        capped=got.capped,
        note=got.note,
    )


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


@router.post("/versions/{version_id}/download-link", response_model=DownloadLinkOut)
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


@router.get("/versions/{version_id}/download", response_class=FileResponse)
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
    path = await run_in_threadpool(_archive, settings, mv, name)
    background.add_task(path.unlink, missing_ok=True)
    return FileResponse(path, media_type="application/gzip", filename=f"{name}.tar.gz")
