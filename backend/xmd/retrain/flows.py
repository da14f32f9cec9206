"""A retrain: started with the project's feedback (:func:`start_retrain`), run by its job body
(:func:`retrain_job`: feedback → ``pipeline.debug`` → a new ready version with metrics; with controls,
:mod:`xmd.retrain.controls`), and the explain jobs it starts for the new version.

Retraining registers the child version first (status ``training``, ``config["job_id"]`` naming this
job) and lets ``pipeline.debug`` build the new directory in the version store's hidden scratch space;
the store publishes it only when complete (a rename on a local folder, an upload whose manifest is
written last to a bucket), and the parent's files are only read. The child becomes
``ready`` only through a guarded update while the job still runs; anything else (error, cancel,
killed worker, swept job) leaves it ``failed`` (:func:`xmd.versions.service.fail_orphans`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from xmd.core import followup, options, pipeline
from xmd.core.feedback import FeedbackSet
from xmd.core.retrain import ControlOptions, ERConfig, RetrainConfig, StepInfo, TrainConfig, count_steps
from xmd.core.types import DataError, Example, FeedbackError
from xmd.core.vs_parent import HOLDOUT_NAME, holdout_split
from xmd.datasets import service as datasets
from xmd.datasets.models import Dataset, DatasetRole
from xmd.explanations.flows import start_explain
from xmd.explanations.schemas import ExplainIn
from xmd.feedback import service as feedback_store
from xmd.feedback import team as feedback_team
from xmd.jobs import kinds, queue
from xmd.jobs.context import JobContext
from xmd.jobs.flows import start
from xmd.jobs.models import Job
from xmd.jobs.queue import Enqueue, QueueUnavailableError
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.retrain import plan
from xmd.retrain.estimate import RETRAIN, retrain_prior
from xmd.retrain.followup import queue_controls
from xmd.retrain.schemas import RetrainIn
from xmd.retrain.team import record_on_versions, team_record
from xmd.versions import service as versions
from xmd.versions.models import ModelStatus, ModelVersion

NO_TRAIN = "the project has no training dataset; upload one first"


def _datasets(db: Session, project: Project, ids: Sequence[int] | None, role: DatasetRole) -> list[Dataset]:
    """The job's datasets (none named: every one of ``role``), checked by the same rule the API checked
    them with when it started the job."""
    return datasets.resolve_ids(db_session=db, project=project, ids=list(ids) if ids else None, role=role)


def _ids_of(db: Session, project: Project, ids: list[int] | None, role: DatasetRole) -> list[int]:
    """The ids of the datasets a request names (None: every one of ``role``), checked as the job checks them."""
    return [ds.id for ds in datasets.resolve_ids(db_session=db, project=project, ids=ids, role=role)]


def start_retrain(db: Session, enqueue: Enqueue, project: Project, body: RetrainIn) -> Job:
    """Retrain a ready version with the project's feedback; the settings are stored on the job row."""
    mv = versions.resolve(db_session=db, project=project, version_id=body.version_id)
    train = _ids_of(db, project, body.train_dataset_ids, DatasetRole.TRAIN)
    if not train:
        raise DataError(NO_TRAIN)
    evals = _ids_of(db, project, body.eval_dataset_ids, DatasetRole.EVAL)
    if not feedback_store.list_feedback(db_session=db, project_id=project.id, limit=1):
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
    return start(db, enqueue, project, RETRAIN, params)


TRAIN_SHARE = (5.0, 90.0)
"""Progress range of the training steps when no rate is measured yet (no ETA); with one, the phases'
measured rates give the progress (:mod:`xmd.jobs.phases`)."""


def training_data(db: Session, project: Project, sets: Sequence[Dataset]) -> tuple[list[Example], FeedbackSet]:
    """Examples of the train sets and the project's feedback on them (the consensus of its people's
    marks, :func:`xmd.feedback.team.consensus_of`), as the core takes them.

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
        # the project's consensus by its policy (one person under ``union``: their marks, as given)
        fb = feedback_team.consensus_of(db_session=db, project=project, dataset_id=ds.id).feedback
        merged.instance += [dataclasses.replace(f, example_id=tag + f.example_id) for f in fb.instance]
        merged.words.update({(tag + eid, i): w for (eid, i), w in fb.words.items()})
        if not merged.task:
            merged.task = list(fb.task)
    return examples, merged


def _configs(params: dict[str, Any]) -> tuple[TrainConfig, ERConfig, ControlOptions]:
    """The retrain settings stored on the job (every field of the core's dataclasses; what a job row
    leaves out keeps the core's default)."""
    return options.build(RetrainConfig, params), options.build(ERConfig, params), options.build(ControlOptions, params)


def _record_location(meta_file: Path, location: str) -> None:
    """The core wrote the scratch folder it saved into as ``out_dir``; the version's metadata names
    where it is stored instead."""
    meta = json.loads(meta_file.read_text())
    meta["out_dir"] = location
    meta_file.write_text(json.dumps(meta, indent=2, default=str))


def retrain_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.retrain``: feedback → ``pipeline.debug`` → a new ready version with metrics."""
    db, params = ctx.db, ctx.params
    parent = versions.ready_or_raise(db_session=db, model_version_id=int(params["version_id"]))
    project = projects.get_or_raise(db_session=db, project_id=parent.project_id)
    train_config, er, chosen = _configs(params)
    train_sets = _datasets(db, project, params.get("train_dataset_ids"), DatasetRole.TRAIN)
    eval_sets = _datasets(db, project, params.get("eval_dataset_ids"), DatasetRole.EVAL)
    if not train_sets:
        raise DataError(f"project {project.name!r} has no training dataset to retrain on")
    train, feedback = training_data(db, project, train_sets)
    if not feedback.instance and not feedback.task:
        raise DataError(
            f"project {project.name!r} has no feedback yet (or none that its consensus policy keeps); "
            "mark words to remove or add first"
        )
    people = team_record(db, project, train_sets)  # the policy, contributors and agreement at this time
    evals = {
        ds.name: [dataclasses.replace(ex, split="eval") for ex in datasets.core_examples(db_session=db, dataset=ds)]
        for ds in eval_sets
    }
    train, evals, holdout = held_out(train, feedback, evals, train_config.seed)
    ctx.check_cancel()
    result = _retrain(
        ctx, parent, project, train_config, er, train_sets, eval_sets, train, feedback, evals, holdout=holdout,
        controls=bool(chosen.controls),
    )  # fmt: skip
    record_on_versions(db, project, ctx.job.id, people)
    out = {**result, "explain_jobs": explain_after(ctx, project, int(result["version_id"]), train_sets)}
    if chosen.controls:  # after the version is ready, as jobs of their own (xmd.retrain.followup)
        child = versions.get_or_raise(db_session=db, model_version_id=int(result["version_id"]))
        out["controls"] = queue_controls(ctx, project, child, chosen, train_config.seed)
    return out


def held_out(
    train: list[Example], feedback: FeedbackSet, evals: dict[str, list[Example]], seed: int
) -> tuple[list[Example], dict[str, list[Example]], dict[str, Any] | None]:
    """Without an eval set, a seeded share of the training data is held out and measured instead
    (:func:`xmd.core.vs_parent.holdout_split`), so no version is without an accuracy figure; training
    data too small to spare an example trains whole, as before."""
    if evals:
        return train, evals, None
    try:
        rest, held, info = holdout_split(train, feedback, seed=seed)
    except DataError:
        return train, evals, None
    return rest, {HOLDOUT_NAME: [dataclasses.replace(ex, split="eval") for ex in held]}, info


def explain_after(
    ctx: JobContext,
    project: Project,
    version_id: int,
    train_sets: Sequence[Dataset],
    enqueue: queue.Enqueue | None = None,
) -> list[dict]:
    """Start explaining the training sets under the new version, as jobs of their own (visible, with
    progress, cancellable), so the explanation screens, which default to the newest version, rank words
    over the whole training set rather than the few examples explained on demand. A queue that refuses
    leaves the job row failed with the reason; the retrain itself has succeeded either way. ``enqueue``:
    how the jobs are sent (default: to this worker's broker)."""
    send = enqueue or queue.sender(ctx.settings)
    started: list[dict] = []
    for ds in train_sets:
        body = ExplainIn(dataset_id=ds.id, version_id=version_id)
        try:
            job = start_explain(ctx.db, send, project, body)
        except QueueUnavailableError as exc:
            started.append({"dataset_id": ds.id, "job_id": None, "error": str(exc)})
            continue
        started.append({"dataset_id": ds.id, "job_id": job.id, "method": job.params["method"]})
    return started


def _retrain(
    ctx: JobContext,
    parent: ModelVersion,
    project: Project,
    train_config: TrainConfig,
    er: ERConfig,
    train_sets: Sequence[Dataset],
    eval_sets: Sequence[Dataset],
    train: list[Example],
    feedback: FeedbackSet,
    evals: dict[str, list[Example]],
    holdout: dict[str, Any] | None = None,
    controls: bool = False,
) -> dict[str, Any]:
    """One new version trained from ``parent``; with ``controls``, the comparison's basis is stored with
    its files for the control jobs that follow (:mod:`xmd.retrain.followup`)."""
    db, job = ctx.db, ctx.job
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
    predicts = plan.needs_predictions((t.scope for t in feedback.task), "all")
    ctx.plan(
        plan.retrain_plan(
            parent=parent.version,
            child=child.version,
            eval_sizes={name: len(examples) for name, examples in evals.items()},
            eval_cap=train_config.eval_max_examples,
            total_steps=count_steps(len(train), train_config),
            examples_per_step=train_config.batch_size * train_config.grad_accum,
            n_share=len({f.example_id for f in feedback.instance}) if not feedback.task else len(train),
            n_predict=len(train) if predicts else 0,
        ),
        prior=retrain_prior(
            db,
            project,
            parent,
            [ds.id for ds in train_sets],
            len(train),
            [t.word for t in feedback.task],
            er,
            train_config.batch_size,
            train_config.mixed_precision,
            train_config.cuda_graphs,
        )[0],
    )
    lo, hi = TRAIN_SHARE

    def on_step(info: StepInfo) -> bool:
        per_epoch = max(1.0, info.total_steps / train_config.epochs)
        assert ctx.tracker is not None
        ctx.tracker.update("train", info.step, info.total_steps)
        cancel = ctx.progress(
            None if ctx.tracker.eta() is not None else lo + (hi - lo) * info.progress,
            step=info.step,
            total_steps=info.total_steps,
            epoch=info.step / per_epoch,
            task_loss=info.task_loss,
            er_loss=info.er_loss,
            loss=info.loss,
            lr=info.lr,
        )
        return not cancel

    with versions.store_of(ctx.settings).build(versions.key_of(ctx.settings, child)) as out:
        run = pipeline.debug(
            versions.files_of(ctx.settings, parent),
            train,
            feedback,
            out,
            config=train_config,
            er=er,
            eval_sets=evals or None,
            device=ctx.settings.device,
            callback=on_step,
            name=f"{project.name} v{child.version}",
            on_phase=ctx.phase,
            names=(f"v{parent.version}", f"v{child.version}"),
            holdout=holdout,
        )
        _record_location(out / "xmd.json", child.path)
        if controls and run.predictions and run.predictions["sets"]:
            b = followup.basis(
                run.meta["labels"], train, feedback, run.predictions["sets"], run.predictions["before"],
                run.predictions["after"], seed=train_config.seed,
            )  # fmt: skip
            (out / followup.BASIS_FILE).write_text(json.dumps(b))
    ctx.end_phase("save")  # the version is stored (uploaded, with an object store)
    snapshot = {
        "feedback": feedback.to_dict(train),
        "counts": feedback.counts(train),
        "sources": feedback.sources(),  # where the feedback came from (a word list, rationales; the card says it)
        "train_dataset_ids": [ds.id for ds in train_sets],
    }
    config = {
        **child.config,
        "metrics_before": run.metrics_before,
        "shares_before": run.shares_before,
        "shares_after": run.shares_after,
        "history_seconds": run.history.seconds,
        "bf16": run.history.bf16,  # whether mixed_precision took effect on the worker's device
        "vs_parent": run.meta.get("vs_parent"),  # against the parent on the same examples (core/vs_parent.py)
        "holdout": holdout,
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
        "vs_parent": run.meta.get("vs_parent"),
    }


kinds.register(RETRAIN, retrain_job, long=True)
