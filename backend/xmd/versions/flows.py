"""Retrain a model version with the project's feedback, and evaluate a version on eval sets.

Retraining registers the child version first (status ``training``, ``config["job_id"]`` naming this
job) and lets ``pipeline.debug`` build the new directory; the core writes it in a hidden sibling and
renames it into place only when complete, and the parent's directory is only read. The child becomes
``ready`` only through a guarded update while the job still runs; anything else (error, cancel,
killed worker, swept job) leaves it ``failed`` (:func:`workers.runtime.cleanup_failed_versions`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session
from xmd.core import pipeline
from xmd.core.evaluate import evaluate_sets
from xmd.core.feedback import FeedbackSet
from xmd.core.modeling import load_model
from xmd.core.training import ERConfig, StepInfo, TrainConfig
from xmd.core.types import DataError, Example, XMDError
from xmd.datasets import service as datasets
from xmd.datasets.models import Dataset, DatasetRole
from xmd.db.engine import lock_row
from xmd.feedback_store import service as feedback_store
from xmd.models import service as models
from xmd.models.models import ModelStatus, ModelVersion
from xmd.projects import service as projects
from xmd.projects.models import Project

from workers.runtime import JobContext

TRAIN_KEYS = ("epochs", "lr", "batch_size", "max_length", "seed")
ER_KEYS = ("objective", "loss", "lam", "attribution_weight")
TRAIN_SHARE = (5.0, 90.0)
"""Progress range of the training steps; evaluation and attribution shares take the rest."""


def _ready_version(db: Session, version_id: int) -> ModelVersion:
    version = models.get_or_raise(db_session=db, model_version_id=version_id)
    if version.status is not ModelStatus.READY:
        raise XMDError(f"model version v{version.version} is {version.status.value}; it must be ready")
    return version


def _datasets(db: Session, project: Project, ids: Sequence[int] | None, role: DatasetRole) -> list[Dataset]:
    """The datasets named by ``ids`` (all of ``role`` when none), checked to belong to the project."""
    if not ids:
        return datasets.list_datasets(db_session=db, project_id=project.id, role=role)
    out = []
    for did in ids:
        ds = datasets.get_or_raise(db_session=db, dataset_id=int(did))
        if ds.project_id != project.id:
            raise DataError(f"dataset {ds.id} belongs to another project")
        out.append(ds)
    return out


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
    """TrainConfig / ERConfig from the job's params; missing keys keep the core's defaults."""
    train = TrainConfig(**{k: params[k] for k in TRAIN_KEYS if params.get(k) is not None})
    er = ERConfig(**{k: params[k] for k in ER_KEYS if params.get(k) is not None})
    train.validate()
    er.validate()
    return train, er


def retrain_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.retrain``: feedback → ``pipeline.debug`` → a new ready version with metrics."""
    db, params, job = ctx.db, ctx.params, ctx.job
    parent = _ready_version(db, int(params["version_id"]))
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

    out = ctx.settings.models_dir / f"p{project.id}" / "v{version}"
    child = models.create_child(
        db_session=db,
        parent=parent,
        path=str(out),
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
    done = db.execute(
        update(ModelVersion)
        .where(ModelVersion.id == child.id, ModelVersion.status == ModelStatus.TRAINING)
        .values(status=ModelStatus.READY, metrics=run.metrics_after or {}, feedback_snapshot=snapshot, config=config),
        execution_options={"synchronize_session": False},
    )
    db.commit()
    if not done.rowcount:
        raise XMDError(f"model version v{child.version} was marked failed while it trained (the job was abandoned)")
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
    version = _ready_version(db, int(params["version_id"]))
    project = projects.get_or_raise(db_session=db, project_id=version.project_id)
    sets = _datasets(db, project, params.get("dataset_ids"), DatasetRole.EVAL)
    if not sets:
        raise DataError(f"project {project.name!r} has no evaluation dataset; upload one with role 'eval'")
    loaded = load_model(version.path, labels=list(project.labels), device=ctx.settings.device)
    metrics: dict[str, Any] = {}
    for i, ds in enumerate(sets):
        ctx.check_cancel()
        examples = datasets.core_examples(db_session=db, dataset=ds)
        db.commit()  # end the read transaction before minutes of inference
        metrics.update(evaluate_sets(loaded, {ds.name: examples}, max_length=int(params.get("max_length") or 256)))
        ctx.progress(100.0 * (i + 1) / len(sets), step=i + 1, total_steps=len(sets))
    # Merge under a row lock: two evaluations of one version must not drop each other's sets.
    lock_row(db, ModelVersion, ModelVersion.id == version.id)
    db.refresh(version)
    version.metrics = {**(version.metrics or {}), **metrics}
    db.commit()
    return {"metrics": metrics}
