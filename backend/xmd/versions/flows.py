"""Measuring a model version: the evaluate job (metrics per eval set, merged into the version's metrics),
started by :func:`start_evaluate`. A retrain, which makes versions, is :mod:`xmd.retrain`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from xmd.core.cache import process_cache
from xmd.core.evaluate import evaluate_sets
from xmd.core.types import DataError
from xmd.datasets import service as datasets
from xmd.datasets.models import Dataset, DatasetRole
from xmd.jobs import kinds, queue
from xmd.jobs import phases as job_phases
from xmd.jobs import service as jobs_store
from xmd.jobs.context import JobContext
from xmd.jobs.flows import start
from xmd.jobs.models import Job
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.versions import service as versions
from xmd.versions.schemas import EvaluateIn

EVALUATE = "evaluate"
"""The job kind that measures a version on eval sets (registered below)."""
NO_EVAL = "the project has no eval dataset; upload one with role=eval first"


def _datasets(db: Session, project: Project, ids: Sequence[int] | None, role: DatasetRole) -> list[Dataset]:
    """The job's datasets (none named: every one of ``role``), checked by the same rule the API checked
    them with when it started the job."""
    return datasets.resolve_ids(db_session=db, project=project, ids=list(ids) if ids else None, role=role)


def start_evaluate(db: Session, enqueue: queue.Enqueue, project: Project, body: EvaluateIn) -> Job:
    """Measure a ready version on eval sets (default: all of them)."""
    mv = versions.resolve(db_session=db, project=project, version_id=body.version_id)
    sets = datasets.resolve_ids(db_session=db, project=project, ids=body.dataset_ids, role=DatasetRole.EVAL)
    evals = [ds.id for ds in sets]
    if not evals:
        raise DataError(NO_EVAL)
    return start(db, enqueue, project, EVALUATE, {"version_id": mv.id, "dataset_ids": evals})


def evaluate_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.evaluate``: metrics per eval set, merged into the version's metrics by set name."""
    db, params = ctx.db, ctx.params
    version = versions.ready_or_raise(db_session=db, model_version_id=int(params["version_id"]))
    project = projects.get_or_raise(db_session=db, project_id=version.project_id)
    sets = _datasets(db, project, params.get("dataset_ids"), DatasetRole.EVAL)
    if not sets:
        raise DataError(f"project {project.name!r} has no evaluation dataset; upload one with role 'eval'")
    metrics: dict[str, Any] = {}
    plan = [
        job_phases.Phase(f"measure:{ds.name}", f"measuring v{version.version} on {ds.name}", ds.n_examples)
        for ds in sets
    ]
    ctx.plan(plan, prior=job_phases.rates(jobs_store.last_phases(db_session=db, kind=EVALUATE)))
    models = process_cache(ctx.settings.device, versions.locator(ctx.settings))
    with models.use(version.path, list(project.labels)) as loaded:
        for i, ds in enumerate(sets):
            ctx.check_cancel()
            examples = datasets.core_examples(db_session=db, dataset=ds)
            db.commit()  # end the read transaction before minutes of inference
            metrics.update(
                evaluate_sets(
                    loaded,
                    {ds.name: examples},
                    max_length=int(params.get("max_length") or 256),
                    on_batch=lambda name: ctx.phase(f"measure:{name}"),
                )
            )
            ctx.end_phase(f"measure:{ds.name}")
            ctx.progress(step=i + 1, total_steps=len(sets))
    versions.merge_metrics(db_session=db, model_version=version, metrics=metrics)
    return {"metrics": metrics}


kinds.register(EVALUATE, evaluate_job)
