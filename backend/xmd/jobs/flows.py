"""Starting jobs: what each kind needs is checked here, before the row exists, and the row is then
enqueued. The job bodies that run in a worker live with the domain they change
(:mod:`xmd.explanations.flows`, :mod:`xmd.versions.flows`, :mod:`xmd.versions.hub`); the stale-job
sweep that cleans up after a dead worker is :func:`sweep`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy.orm import Session

from xmd.core import options
from xmd.core.retrain import ControlOptions, count_steps, ERConfig, RetrainConfig
from xmd.core.types import DataError, FeedbackError, Scope
from xmd.datasets import service as datasets
from xmd.datasets.models import DatasetRole
from xmd.db.base import utcnow
from xmd.explanations import ranking
from xmd.feedback import service as feedback
from xmd.feedback.models import FeedbackLevel
from xmd.jobs import phases, service
from xmd.jobs import secrets as job_secrets
from xmd.jobs.context import process_alive
from xmd.jobs.models import Job, JobKind, JobStatus
from xmd.jobs.queue import Enqueue, QueueUnavailableError
from xmd.jobs.schemas import EvaluateIn, ExplainIn, PushIn, RetrainIn
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.versions import service as versions
from xmd.versions.models import ModelVersion

NO_TRAIN = "the project has no training dataset; upload one first"
NO_EVAL = "the project has no eval dataset; upload one with role=eval first"


def start(
    db: Session,
    enqueue: Enqueue,
    project: Project | None,
    kind: JobKind,
    params: dict[str, Any],
    secrets: dict[str, str] | None = None,
) -> Job:
    """Create the job row, commit it, then send it; if the broker refuses, the row says so (failed).
    A job of no project (``project=None``: the demo's set-up) is listed by ``GET /api/jobs``."""
    project_id = project.id if project is not None else None
    job = service.create(db_session=db, kind=kind, project_id=project_id, params=params)
    pads = job_secrets.seal(db, job.id, secrets)  # the message carries pads only (xmd.jobs.secrets)
    try:
        enqueue(job, pads)
    except Exception as exc:  # the broker is down or refused: say so on the row and to the caller
        job_secrets.discard(db, job.id)
        service.fail(db_session=db, job_id=job.id, error=f"could not reach the job queue: {type(exc).__name__}: {exc}")
        raise QueueUnavailableError(
            f"the job queue is unavailable ({type(exc).__name__}); job {job.id} was marked failed"
        ) from exc
    return service.get_or_raise(db_session=db, job_id=job.id)


def _ids(db: Session, project: Project, ids: list[int] | None, role: DatasetRole, *, none: str = "") -> list[int]:
    """The job's dataset ids (:func:`xmd.datasets.service.resolve_ids`); DataError ``none`` if there are none."""
    found = [ds.id for ds in datasets.resolve_ids(db_session=db, project=project, ids=ids, role=role)]
    if not found and none:
        raise DataError(none)
    return found


def start_explain(db: Session, enqueue: Enqueue, project: Project, body: ExplainIn) -> Job:
    """Explain a training dataset (default: the first) with a ready version and a method."""
    mv = versions.resolve(db_session=db, project=project, version_id=body.version_id)
    method = projects.method_for(project, body.method)
    wanted = None if body.dataset_id is None else [body.dataset_id]
    ids = _ids(db, project, wanted, DatasetRole.TRAIN, none=NO_TRAIN)
    params = {"version_id": mv.id, "dataset_id": ids[0], "method": method, "chunk_size": body.chunk_size}
    return start(db, enqueue, project, JobKind.EXPLAIN, params)


def start_retrain(db: Session, enqueue: Enqueue, project: Project, body: RetrainIn) -> Job:
    """Retrain a ready version with the project's feedback; the settings are stored on the job row."""
    mv = versions.resolve(db_session=db, project=project, version_id=body.version_id)
    train = _ids(db, project, body.train_dataset_ids, DatasetRole.TRAIN, none=NO_TRAIN)
    evals = _ids(db, project, body.eval_dataset_ids, DatasetRole.EVAL)
    if not feedback.list_feedback(db_session=db, project_id=project.id, limit=1):
        raise FeedbackError("there is no feedback to train with yet: mark words to remove or add first")
    params = body.model_dump(exclude={"train_dataset_ids", "eval_dataset_ids", "version_id"})
    params.update(version_id=mv.id, train_dataset_ids=train, eval_dataset_ids=evals)
    chosen = options.build(ControlOptions, params)  # distinct arms (ValueError: 422)
    options.build(ERConfig, params)  # settings that contradict each other (ValueError: 422), not a failed job
    options.build(RetrainConfig, params)
    if "deletion_base" in chosen.controls and not project.base_model:
        raise DataError(
            "the deletion_base control needs the project's base model, and this project records none "
            "(set it: PUT /api/projects/{id}/base-model, or on the Retrain screen)"
        )
    return start(db, enqueue, project, JobKind.RETRAIN, params)


def start_evaluate(db: Session, enqueue: Enqueue, project: Project, body: EvaluateIn) -> Job:
    """Measure a ready version on eval sets (default: all of them)."""
    mv = versions.resolve(db_session=db, project=project, version_id=body.version_id)
    evals = _ids(db, project, body.dataset_ids, DatasetRole.EVAL, none=NO_EVAL)
    return start(db, enqueue, project, JobKind.EVALUATE, {"version_id": mv.id, "dataset_ids": evals})


def start_push(db: Session, enqueue: Enqueue, project: Project, body: PushIn) -> Job:
    """Push a ready version to the Hub; the token is split between the message and a row the worker
    deletes on reading it (:mod:`xmd.jobs.secrets`): neither the job row nor the broker holds it."""
    mv = versions.resolve(db_session=db, project=project, version_id=body.version_id)
    secrets = {"hf_token": body.token.get_secret_value()} if body.token is not None else None
    params = {"version_id": mv.id, "repo_id": body.repo_id, "private": body.private}
    return start(db, enqueue, project, JobKind.PUSH, params, secrets)


def fail_abandoned(db: Session, kind: JobKind, *, stale_after_s: float, error: str) -> list[str]:
    """Fail the unfinished jobs of ``kind`` that nobody works on any more, at the start of a server that
    runs them itself: queued ones (an earlier server queued them and stopped) and running ones whose
    worker is gone (its process is dead, or on another host, silent for ``stale_after_s``). A running job
    whose worker still lives is left alone. Returns the ids failed; each row says ``error``."""
    failed = []
    for job in service.list_jobs(db_session=db, kind=kind, limit=500):
        if job.status.finished:
            continue
        if job.status is JobStatus.RUNNING:
            alive = process_alive(job.worker_host)
            last = job.heartbeat_at or job.started_at or job.created_at
            if alive or (alive is None and utcnow() - last < timedelta(seconds=stale_after_s)):
                continue
        if service.fail(db_session=db, job_id=job.id, error=error):
            failed.append(job.id)
    return failed


def abandon(db: Session, job_id: str, *, error: str) -> bool:
    """Stop an unfinished job for good, saying why (the server that runs it is stopping): its worker
    stops at its next step (the cancel flag), and the row says ``error``. False if it had finished."""
    job = service.get(db_session=db, job_id=job_id)
    if job is None or job.status.finished:
        return False
    if job.status is JobStatus.RUNNING:
        service.request_cancel(db_session=db, job_id=job_id)
    return service.fail(db_session=db, job_id=job_id, error=error)


def sweep(db: Session, *, stale_after_s: float) -> dict[str, list]:
    """Fail running jobs whose heartbeat is older than ``stale_after_s`` (their worker died without a
    word) and the model versions they left half-made."""
    stale = service.mark_stale_as_failed(db_session=db, older_than=timedelta(seconds=stale_after_s))
    stale += fail_lost(db)
    job_secrets.expire(db)
    return {"jobs": stale, "versions": versions.fail_orphans(db_session=db)}


LOST = (
    "the worker running this job ({host}) died (killed or crashed) before it finished; nothing it started "
    "was kept (the model version it began from, the feedback and earlier results are unchanged). Start the "
    "job again to retry."
)


def fail_lost(db: Session) -> list[str]:
    """Fail at once the running jobs whose worker process is known dead (it ran on this host and its pid
    is gone): no need to wait ``stale_after_s`` for their heartbeat to age."""
    lost = []
    for job in service.list_jobs(db_session=db, status=JobStatus.RUNNING, limit=500):
        if process_alive(job.worker_host) is False and service.fail(
            db_session=db, job_id=job.id, error=LOST.format(host=job.worker_host)
        ):
            lost.append(job.id)
    return lost


def estimate_retrain(db: Session, project: Project, body: RetrainIn) -> dict[str, Any]:
    """What a retrain with these settings will do, phase by phase, and how long it should take at the
    rates of :func:`retrain_prior` (None when nothing was measured yet).
    The plan is the job's own (``versions.flows``): task feedback scoped by itself adds the prediction of the training set first; with controls, every arm × seed
    trains and is measured (``phases.retrain_plan``'s ``runs``)."""
    mv = versions.resolve(db_session=db, project=project, version_id=body.version_id)
    train = datasets.resolve_ids(db_session=db, project=project, ids=body.train_dataset_ids, role=DatasetRole.TRAIN)
    evals = datasets.resolve_ids(db_session=db, project=project, ids=body.eval_dataset_ids, role=DatasetRole.EVAL)
    config = options.build(RetrainConfig, body.model_dump())
    n_train = sum(ds.n_examples for ds in train)
    task = feedback.list_feedback(db_session=db, project_id=project.id, level=FeedbackLevel.TASK)
    predicts = phases.needs_predictions((t.scope or Scope.ALL for t in task), "all")
    newest = max((v.version for v in versions.list_versions(db_session=db, project_id=project.id)), default=0)
    plan = phases.retrain_plan(
        parent=mv.version,
        child=newest + 1,
        eval_sizes={ds.name: ds.n_examples for ds in evals},
        eval_cap=config.eval_max_examples,
        total_steps=count_steps(n_train, config),
        examples_per_step=config.batch_size * config.grad_accum,
        n_share=n_train,
        n_predict=n_train if predicts else 0,
        runs=(1 + len(body.controls)) * body.seeds if body.controls else 1,
    )
    er = options.build(ERConfig, body.model_dump())
    words = [t.word for t in task]
    prior, source = retrain_prior(
        db,
        project,
        mv,
        [ds.id for ds in train],
        n_train,
        words,
        er,
        config.batch_size,
        config.mixed_precision,
        config.cuda_graphs,
    )
    cal = service.last_phases(db_session=db, kind=JobKind.EXPLAIN, project_id=project.id, any_project=False)
    return {
        "phases": [
            {
                **p.to_dict(),
                "expected_s": prior[p.kind] * p.total * p.scale if p.kind in prior else None,
            }
            for p in plan
        ],
        "expected_s": phases.expected(plan, prior),
        "measured_before": source == "retrain",
        "rates_from": source,
        "graphs_priced": bool(config.cuda_graphs and cal and phases.graphs_priced(phases.rates(cal))),
    }


def feedback_share(
    db: Session,
    project: Project,
    mv: ModelVersion,
    train_ids: list[int],
    n_train: int,
    words: Sequence[str] | None = None,
) -> float:
    """At most this share of the training rows carries feedback: the examples with instance feedback plus,
    for each task feedback word, the explained examples of ``mv`` that contain it (1 when a task word's
    count is unknown because ``mv`` was not explained). An upper bound: labels and scopes are ignored.
    ``words``: the task feedback's words when the caller has them already (else they are read)."""
    if n_train <= 0:
        return 0.0
    rows = feedback.count_examples_with_feedback(db_session=db, project_id=project.id, dataset_ids=train_ids)
    if words is None:
        task = feedback.list_feedback(db_session=db, project_id=project.id, level=FeedbackLevel.TASK)
        words = [t.word for t in task]
    if words:
        method = projects.method_for(project, None)
        counts = ranking.word_counts(db_session=db, model_version_id=mv.id, method=method, words=words)
        if not counts:
            return 1.0
        rows += sum(counts.values())
    return min(1.0, rows / n_train)


def retrain_prior(
    db: Session,
    project: Project,
    mv: ModelVersion,
    train_ids: list[int],
    n_train: int,
    words: Sequence[str] | None = None,
    er: ERConfig | None = None,
    batch_size: int = 32,
    mixed_precision: bool | None = None,
    cuda_graphs: bool = False,
) -> tuple[dict[str, float], str | None]:
    """The rates (seconds per example of each phase kind) a retrain of ``mv`` is expected to run at, and
    where they come from: the project's last retrain (``"retrain"``); else the project's calibration, which
    its first explain job timed (``"calibration"``, :func:`xmd.jobs.phases.calibrated_rates` at
    :func:`feedback_share`, given the task ``words`` if known, priced for the retrain's ``er`` settings and
    ``batch_size``); else any project's last retrain; else none (``{}, None``). The project's own retrain's
    training rate is scaled by what the calibration says ``er`` costs against the ER settings that retrain
    ran with, so a changed setting (``attribution_every``, ``mixed_precision``, ``cuda_graphs``, …) changes the
    estimate."""
    own, own_params = service.last_run(db_session=db, kind=JobKind.RETRAIN, project_id=project.id, any_project=False)
    cal = service.last_phases(db_session=db, kind=JobKind.EXPLAIN, project_id=project.id, any_project=False)
    if own:
        rates = phases.rates(own)
        if cal and er is not None and "train" in rates:
            share = feedback_share(db, project, mv, train_ids, n_train, words)
            rates["train"] *= _settings_factor(
                phases.rates(cal), own_params, er, batch_size, share, mixed_precision, cuda_graphs
            )
        return rates, "retrain"
    if cal:
        share = feedback_share(db, project, mv, train_ids, n_train, words)
        rated = phases.calibrated_rates(phases.rates(cal), share, er, batch_size, mixed_precision, cuda_graphs)
        return rated, "calibration"
    other = service.last_phases(db_session=db, kind=JobKind.RETRAIN)
    return (phases.rates(other), "retrain") if other else ({}, None)


def _settings_factor(
    cal: dict[str, float],
    params: dict[str, Any],
    er: ERConfig,
    batch_size: int,
    share: float,
    mixed_precision: bool | None = None,
    cuda_graphs: bool = False,
) -> float:
    """The calibrated training rate at ``er`` over the one at the ER settings of an earlier retrain's
    ``params``, both at today's feedback ``share`` (1 when either cannot be priced)."""
    try:
        then = options.build(ERConfig, params)
    except (TypeError, ValueError):  # a job from before a setting was renamed or bounded
        return 1.0
    new = phases.calibrated_rates(cal, share, er, batch_size, mixed_precision, cuda_graphs).get("train")
    then_precision = params.get("mixed_precision")  # None: auto, as the calibration's own steps ran
    then_batch = int(params.get("batch_size") or batch_size)
    then_graphs = bool(params.get("cuda_graphs"))
    old = phases.calibrated_rates(cal, share, then, then_batch, then_precision, then_graphs).get("train")
    return new / old if new and old else 1.0
