"""What a retrain will do and how long it should take, before it starts (the estimate route), and the
rates its job plans with: its ETA prior (:func:`retrain_prior`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from xmd.core import options
from xmd.core.retrain import ControlOptions, ERConfig, RetrainConfig, count_steps
from xmd.core.types import Scope
from xmd.datasets import service as datasets
from xmd.datasets.models import DatasetRole
from xmd.explanations import ranking
from xmd.explanations.service import EXPLAIN
from xmd.feedback import service as feedback
from xmd.feedback.models import FeedbackLevel
from xmd.jobs import phases
from xmd.jobs import service as jobs
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.retrain import plan
from xmd.retrain.followup import control_plan
from xmd.retrain.schemas import RetrainIn
from xmd.versions import service as versions
from xmd.versions.models import ModelVersion

RETRAIN = "retrain"
"""The retrain's job kind (registered by :mod:`xmd.retrain.flows`)."""


def estimate_retrain(db: Session, project: Project, body: RetrainIn) -> dict[str, Any]:
    """What a retrain with these settings will do, phase by phase, and how long it should take at the
    rates of :func:`retrain_prior` (None when nothing was measured yet).
    The plan is the job's own (:mod:`xmd.retrain.flows`): task feedback scoped by itself adds the prediction of
    the training set first. With controls, the new version is ready after the same phases as without them,
    and the control jobs that follow it (:func:`xmd.retrain.followup.control_plan`) each train and measure
    one arm × seed: ``controls_s`` is their time, ``until_controls_s`` the whole wait (issue 30 §5)."""
    mv = versions.resolve(db_session=db, project=project, version_id=body.version_id)
    train = datasets.resolve_ids(db_session=db, project=project, ids=body.train_dataset_ids, role=DatasetRole.TRAIN)
    evals = datasets.resolve_ids(db_session=db, project=project, ids=body.eval_dataset_ids, role=DatasetRole.EVAL)
    config = options.build(RetrainConfig, body.model_dump())
    n_train = sum(ds.n_examples for ds in train)
    task = feedback.list_feedback(db_session=db, project_id=project.id, level=FeedbackLevel.TASK)
    predicts = plan.needs_predictions((t.scope or Scope.ALL for t in task), "all")
    newest = max((v.version for v in versions.list_versions(db_session=db, project_id=project.id)), default=0)
    steps = plan.retrain_plan(
        parent=mv.version,
        child=newest + 1,
        eval_sizes={ds.name: ds.n_examples for ds in evals},
        eval_cap=config.eval_max_examples,
        total_steps=count_steps(n_train, config),
        examples_per_step=config.batch_size * config.grad_accum,
        n_share=n_train,
        n_predict=n_train if predicts else 0,
    )
    chosen = options.build(ControlOptions, body.model_dump())
    runs = control_plan(chosen, config.seed) if chosen.controls else []
    trained = sum(arm != "strip" for arm, _ in runs)
    control_steps = plan.retrain_plan(
        parent=mv.version,
        child=newest + 1,
        eval_sizes={ds.name: ds.n_examples for ds in evals},
        eval_cap=config.eval_max_examples,
        total_steps=count_steps(n_train, config),
        examples_per_step=config.batch_size * config.grad_accum,
        n_share=0,
        runs=max(trained, 1),
    )
    # a control trains, measures and saves its arm (no shares, no parent measurement); strip only predicts
    control_steps = [p for p in control_steps if p.kind in ("train", "save") or p.name.startswith("measure_after")]
    # strip: each λ = 0 run also predicts the stripped eval sets, else the parent predicts them once
    n_strip = 0 if "strip" not in chosen.controls else sum(a == "lambda0" for a, _ in runs) or 1
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
    cal = jobs.last_phases(db_session=db, kind=EXPLAIN, project_id=project.id, any_project=False)
    expected = phases.expected(steps, prior)
    controls_s = None
    if runs:
        trained_s = phases.expected(control_steps, prior) if trained else 0.0
        measure = [p for p in steps if p.name.startswith("measure_before")]  # one pass over the eval sets
        strip_s = phases.expected(measure, prior) if n_strip else 0.0
        if trained_s is not None and strip_s is not None:
            controls_s = trained_s + n_strip * strip_s
    return {
        "phases": [
            {
                **p.to_dict(),
                "expected_s": prior[p.kind] * p.total * p.scale if p.kind in prior else None,
            }
            for p in steps
        ],
        "expected_s": expected,
        "controls_s": controls_s,
        "until_controls_s": None if expected is None or controls_s is None else expected + controls_s,
        "control_runs": len(runs),
        "measured_before": source == "retrain",
        "rates_from": source,
        "graphs_priced": bool(config.cuda_graphs and cal and plan.graphs_priced(phases.rates(cal))),
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
    its first explain job timed (``"calibration"``, :func:`xmd.retrain.plan.calibrated_rates` at
    :func:`feedback_share`, given the task ``words`` if known, priced for the retrain's ``er`` settings and
    ``batch_size``); else any project's last retrain; else none (``{}, None``). The project's own retrain's
    training rate is scaled by what the calibration says ``er`` costs against the ER settings that retrain
    ran with, so a changed setting (``attribution_every``, ``mixed_precision``, ``cuda_graphs``, …) changes the
    estimate."""
    own, own_params = jobs.last_run(db_session=db, kind=RETRAIN, project_id=project.id, any_project=False)
    cal = jobs.last_phases(db_session=db, kind=EXPLAIN, project_id=project.id, any_project=False)
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
        rated = plan.calibrated_rates(phases.rates(cal), share, er, batch_size, mixed_precision, cuda_graphs)
        return rated, "calibration"
    other = jobs.last_phases(db_session=db, kind=RETRAIN)
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
    new = plan.calibrated_rates(cal, share, er, batch_size, mixed_precision, cuda_graphs).get("train")
    then_precision = params.get("mixed_precision")  # None: auto, as the calibration's own steps ran
    then_batch = int(params.get("batch_size") or batch_size)
    then_graphs = bool(params.get("cuda_graphs"))
    old = plan.calibrated_rates(cal, share, then, then_batch, then_precision, then_graphs).get("train")
    return new / old if new and old else 1.0
