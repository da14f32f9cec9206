"""A retrain over HTTP: start it (202 + job id), estimate it (its phases and expected duration), and
compare two versions (metrics, the corrected words' share, explanations and the examples worth showing)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from sqlalchemy.orm import Session

from xmd.core.evaluate import compare_metrics
from xmd.core.types import DataError
from xmd.datasets import service as datasets_service
from xmd.datasets.models import DatasetRole
from xmd.db.errors import NotFoundError
from xmd.explanations.flows import explanation_for, marks_for
from xmd.explanations.schemas import explanation_out
from xmd.http.deps import DB, Annotator, Viewer, enqueue_of, models_of
from xmd.http.params import Id, OptId, QueryId
from xmd.jobs.schemas import JobOut, job_out
from xmd.projects import service as projects_service
from xmd.projects.models import Project
from xmd.retrain import estimate, flows
from xmd.retrain import forecast as forecast_flow
from xmd.retrain import picks as picks_store
from xmd.retrain.schemas import CompareOut, EvalSetOut, ForecastIn, PickOut, PicksPage, RetrainEstimate, RetrainIn
from xmd.versions import service as versions_service
from xmd.versions.schemas import version_out

router = APIRouter(prefix="/api", tags=["jobs"])
compare_router = APIRouter(prefix="/api", tags=["model versions"])
"""Two versions side by side (a retrain's result): listed between the versions and their files."""


@router.post("/projects/{project_id}/jobs/retrain", status_code=202, response_model=JobOut)
def start_retrain(project_id: Id, body: RetrainIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Retrain a version with the project's feedback (L = L_task + λ·L_ER) into a new version."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_retrain(db, enqueue_of(request), project, body))


@router.post("/projects/{project_id}/jobs/retrain/estimate", response_model=RetrainEstimate)
def estimate_retrain(project_id: Id, body: RetrainIn, db: DB, _: Viewer) -> RetrainEstimate:
    """The phases a retrain with these settings will run and its expected duration, from the rates the
    last retrain measured (nothing is started)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return RetrainEstimate(**estimate.estimate_retrain(db, project, body))


@router.post("/projects/{project_id}/jobs/forecast", status_code=202, response_model=JobOut)
def start_forecast(project_id: Id, body: ForecastIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Forecast a retrain's effect: the eval sets predicted with the marked words erased, and with as many
    random words erased (inference only; the result is the job's ``result.forecast``)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(forecast_flow.start_forecast(db, enqueue_of(request), project, body))


@compare_router.get("/projects/{project_id}/compare", response_model=CompareOut)
def compare(
    project_id: Id,
    a: QueryId,
    b: QueryId,
    request: Request,
    db: DB,
    user: Viewer,
    example_id: OptId = None,
    method: str | None = None,
) -> CompareOut:
    """Metrics per eval set of two versions side by side (with deltas), the corrected words' share
    before/after, and, for ``example_id``, the example's explanation under both versions."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    va = versions_service.resolve(db_session=db, project=project, version_id=a)
    vb = versions_service.resolve(db_session=db, project=project, version_id=b)
    ra = version_out(va, versions_service.retrain_result(db_session=db, mv=va))
    rb = version_out(vb, versions_service.retrain_result(db_session=db, mv=vb))
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
            marks = marks_for(db, project, ex, exp.words, exp.prediction, user)
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


@compare_router.get("/projects/{project_id}/compare/examples", response_model=PicksPage)
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
    va = versions_service.resolve(db_session=db, project=project, version_id=a)
    vb = versions_service.resolve(db_session=db, project=project, version_id=b)
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
