"""The effect forecast as a job (issue 30 §2): before a retrain is paid for, the version predicts the eval
sets with the feedback's *remove* words erased and, as the control, with as many random other words
erased (:func:`xmd.core.forecast.forecast`). Inference only, bounded to ``max_examples`` per set, with a
phase, an ETA and cancel like every job; the result is the job's ``result["forecast"]``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from xmd.core.cache import process_cache
from xmd.core.forecast import feedback_words, forecast
from xmd.core.types import DataError, FeedbackError
from xmd.datasets import service as datasets
from xmd.datasets.models import DatasetRole
from xmd.feedback import service as feedback_store
from xmd.jobs import kinds
from xmd.jobs import phases as job_phases
from xmd.jobs import service as jobs_store
from xmd.jobs.context import JobContext
from xmd.jobs.flows import start
from xmd.jobs.models import Job
from xmd.jobs.queue import Enqueue
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.retrain.flows import training_data
from xmd.retrain.schemas import ForecastIn
from xmd.versions import service as versions

FORECAST = "forecast"
"""The job kind (registered below)."""
NO_WORDS = "the feedback removes no word yet: a forecast erases the words marked remove (task or instance)"


def start_forecast(db: Session, enqueue: Enqueue, project: Project, body: ForecastIn) -> Job:
    """Forecast what ignoring the marked words would change on the eval sets (default: every one)."""
    mv = versions.resolve(db_session=db, project=project, version_id=body.version_id)
    train = datasets.resolve_ids(db_session=db, project=project, ids=body.train_dataset_ids, role=DatasetRole.TRAIN)
    evals = datasets.resolve_ids(db_session=db, project=project, ids=body.eval_dataset_ids, role=DatasetRole.EVAL)
    if not evals:
        raise DataError("the project has no eval dataset to forecast on; upload one with role=eval first")
    if not feedback_store.list_feedback(db_session=db, project_id=project.id, limit=1):
        raise FeedbackError("there is no feedback to forecast yet: mark words to remove first")
    params = {
        "version_id": mv.id,
        "train_dataset_ids": [ds.id for ds in train],
        "eval_dataset_ids": [ds.id for ds in evals],
        "max_examples": body.max_examples,
    }
    return start(db, enqueue, project, FORECAST, params)


def forecast_job(ctx: JobContext) -> dict[str, Any]:
    """Body of the forecast job: the core's forecast on the version, with the project's current feedback."""
    db, params = ctx.db, ctx.params
    version = versions.ready_or_raise(db_session=db, model_version_id=int(params["version_id"]))
    project = projects.get_or_raise(db_session=db, project_id=version.project_id)
    train_sets = datasets.resolve_ids(
        db_session=db, project=project, ids=params.get("train_dataset_ids") or None, role=DatasetRole.TRAIN
    )
    eval_sets = datasets.resolve_ids(
        db_session=db, project=project, ids=params.get("eval_dataset_ids") or None, role=DatasetRole.EVAL
    )
    train, feedback = training_data(db, project, train_sets)
    words = feedback_words(feedback, train)
    if not words:
        raise DataError(NO_WORDS)
    sets = {ds.name: datasets.core_examples(db_session=db, dataset=ds) for ds in eval_sets}
    db.commit()  # end the read transaction before minutes of inference
    limit = int(params["max_examples"])
    guess = sum(2 * min(len(exs), limit) for exs in sets.values())  # the core reports the exact total
    label = f"predicting {len(sets)} eval set(s) with the {len(words)} marked words erased"
    ctx.plan(
        [job_phases.Phase("forecast", label, max(guess, 1))],
        prior=job_phases.rates(jobs_store.last_phases(db_session=db, kind=FORECAST)),
    )
    models = process_cache(ctx.settings.device, versions.locator(ctx.settings))
    with models.use(version.path, list(project.labels)) as loaded:
        result = forecast(loaded, sets, words, reference=train, max_examples=limit, on_batch=ctx.phase("forecast"))
    ctx.end_phase("forecast")
    return {"forecast": {**result, "version_id": version.id, "version": version.version}}


kinds.register(FORECAST, forecast_job)
