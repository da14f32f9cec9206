"""Job bodies that make or measure model versions: retrain with the project's feedback, and evaluate
on eval sets. They orchestrate datasets, feedback and versions around the core's pipeline.

Retraining registers the child version first (status ``training``, ``config["job_id"]`` naming this
job) and lets ``pipeline.debug`` build the new directory; the core writes it in a hidden sibling and
renames it into place only when complete, and the parent's directory is only read. The child becomes
``ready`` only through a guarded update while the job still runs; anything else (error, cancel,
killed worker, swept job) leaves it ``failed`` (:func:`xmd.versions.service.fail_orphans`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from xmd.core import options, pipeline
from xmd.core.cache import process_cache
from xmd.core.evaluate import evaluate_sets
from xmd.core.feedback import FeedbackSet
from xmd.core.training import ERConfig, RetrainConfig, StepInfo, TrainConfig
from xmd.core.types import DataError, Example
from xmd.datasets import service as datasets
from xmd.datasets.models import Dataset, DatasetRole
from xmd.feedback import service as feedback_store
from xmd.jobs.context import JobContext
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.versions import service as versions
from xmd.versions.models import ModelStatus

TRAIN_SHARE = (5.0, 90.0)
"""Progress range of the training steps; evaluation and attribution shares take the rest."""


def _datasets(db: Session, project: Project, ids: Sequence[int] | None, role: DatasetRole) -> list[Dataset]:
    """The job's datasets (none named: every one of ``role``), checked by the same rule the API checked
    them with when it started the job."""
    return datasets.resolve_ids(db_session=db, project=project, ids=list(ids) if ids else None, role=role)


def training_data(db: Session, project: Project, sets: Sequence[Dataset]) -> tuple[list[Example], FeedbackSet]:
    """Examples of the train sets and the project's feedback on them, as the core takes them.

    Example ids are unique only within a dataset, so with several train sets each id is prefixed by
    its dataset id, in the examples and in the instance feedback alike. Task feedback is project-wide
    and taken once.
    """
    examples: list[Example] = []
    merged = FeedbackSet()
    prefix = len(sets) > 1
    for ds in sets:
        tag = f"{ds.id}:" if prefix else ""
        for ex in datasets.core_examples(db_session=db, dataset=ds):
            examples.append(dataclasses.replace(ex, id=tag + ex.id))
        fb = feedback_store.to_feedback_set(db_session=db, project=project, dataset_id=ds.id)
        merged.instance += [dataclasses.replace(f, example_id=tag + f.example_id) for f in fb.instance]
        merged.words.update({(tag + eid, i): w for (eid, i), w in fb.words.items()})
        if not merged.task:
            merged.task = list(fb.task)
    return examples, merged


def _configs(params: dict[str, Any]) -> tuple[TrainConfig, ERConfig]:
    """The retrain settings stored on the job (every field of the core's dataclasses; what a job row
    leaves out keeps the core's default)."""
    return options.build(RetrainConfig, params), options.build(ERConfig, params)


def retrain_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.retrain``: feedback → ``pipeline.debug`` → a new ready version with metrics."""
    db, params, job = ctx.db, ctx.params, ctx.job
    parent = versions.ready_or_raise(db_session=db, model_version_id=int(params["version_id"]))
    project = projects.get_or_raise(db_session=db, project_id=parent.project_id)
    train_config, er = _configs(params)
    train_sets = _datasets(db, project, params.get("train_dataset_ids"), DatasetRole.TRAIN)
    eval_sets = _datasets(db, project, params.get("eval_dataset_ids"), DatasetRole.EVAL)
    if not train_sets:
        raise DataError(f"project {project.name!r} has no training dataset to retrain on")
    train, feedback = training_data(db, project, train_sets)
    if not feedback.instance and not feedback.task:
        raise DataError(f"project {project.name!r} has no feedback yet; mark words to remove or add first")
    evals = {
        ds.name: [dataclasses.replace(ex, split="eval") for ex in datasets.core_examples(db_session=db, dataset=ds)]
        for ds in eval_sets
    }
    ctx.check_cancel()

    child = versions.create_child(
        db_session=db,
        parent=parent,
        path=versions.version_dir(ctx.settings, project.id),
        status=ModelStatus.TRAINING,
        config={
            "job_id": job.id,
            "train": dataclasses.asdict(train_config),
            "er": dataclasses.asdict(er),
            "train_dataset_ids": [ds.id for ds in train_sets],
            "eval_dataset_ids": [ds.id for ds in eval_sets],
        },
    )
    ctx.progress(1.0)
    lo, hi = TRAIN_SHARE

    def on_step(info: StepInfo) -> bool:
        per_epoch = max(1.0, info.total_steps / train_config.epochs)
        cancel = ctx.progress(
            lo + (hi - lo) * info.progress,
            step=info.step,
            total_steps=info.total_steps,
            epoch=info.step / per_epoch,
            task_loss=info.task_loss,
            er_loss=info.er_loss,
            loss=info.loss,
            lr=info.lr,
        )
        return not cancel

    run = pipeline.debug(
        parent.path,
        train,
        feedback,
        child.path,
        config=train_config,
        er=er,
        eval_sets=evals or None,
        device=ctx.settings.device,
        callback=on_step,
        name=f"{project.name} v{child.version}",
    )
    snapshot = {
        "feedback": feedback.to_dict(train),
        "counts": feedback.counts(train),
        "train_dataset_ids": [ds.id for ds in train_sets],
    }
    config = {
        **child.config,
        "metrics_before": run.metrics_before,
        "shares_before": run.shares_before,
        "shares_after": run.shares_after,
        "history_seconds": run.history.seconds,
    }
    versions.mark_ready(
        db_session=db, model_version=child, metrics=run.metrics_after or {}, feedback_snapshot=snapshot, config=config
    )
    return {
        "version_id": child.id,
        "version": child.version,
        "path": child.path,
        "metrics_before": run.metrics_before,
        "metrics_after": run.metrics_after,
        "shares_before": run.shares_before,
        "shares_after": run.shares_after,
    }


def evaluate_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.evaluate``: metrics per eval set, merged into the version's metrics by set name."""
    db, params = ctx.db, ctx.params
    version = versions.ready_or_raise(db_session=db, model_version_id=int(params["version_id"]))
    project = projects.get_or_raise(db_session=db, project_id=version.project_id)
    sets = _datasets(db, project, params.get("dataset_ids"), DatasetRole.EVAL)
    if not sets:
        raise DataError(f"project {project.name!r} has no evaluation dataset; upload one with role 'eval'")
    metrics: dict[str, Any] = {}
    with process_cache(ctx.settings.device).use(version.path, list(project.labels)) as loaded:
        for i, ds in enumerate(sets):
            ctx.check_cancel()
            examples = datasets.core_examples(db_session=db, dataset=ds)
            db.commit()  # end the read transaction before minutes of inference
            metrics.update(evaluate_sets(loaded, {ds.name: examples}, max_length=int(params.get("max_length") or 256)))
            ctx.progress(100.0 * (i + 1) / len(sets), step=i + 1, total_steps=len(sets))
    versions.merge_metrics(db_session=db, model_version=version, metrics=metrics)
    return {"metrics": metrics}
