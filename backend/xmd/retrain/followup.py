"""Controls as follow-up jobs of a retrain (issue 30 §5): the debugged version is ready as fast as a
retrain without controls, and each control arm × seed runs after it as a job of its own
(``retrain_control``, on the retrain queue, like the explain jobs a retrain starts after it).

The retrain records the plan on the debugged version (``config["controls"]``: arms, seeds and one run
per job with its status) and stores the comparison's basis with its files
(:data:`xmd.core.followup.BASIS_FILE`). Each control job trains its arm as a version of its own from
the same parent, on the training data and feedback the debugged version was trained on (its feedback
snapshot), then, under the debugged version's row lock, marks its run done and writes the comparison of
every arm finished so far (``config["comparison"]``, :func:`xmd.core.followup.assemble`): Results fills
it in as they finish. A control that fails or is cancelled says so on its run; the debugged version
stays ready whatever happens to its controls.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session

from xmd.core import followup
from xmd.core.controls import base_recipe
from xmd.core.feedback import FeedbackSet
from xmd.core.retrain import ControlOptions, StepInfo
from xmd.core.types import DataError
from xmd.datasets import service as datasets
from xmd.datasets.models import DatasetRole
from xmd.db.engine import lock_row
from xmd.jobs import kinds, queue
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.flows import start
from xmd.jobs.queue import QueueUnavailableError
from xmd.projects import paths
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.retrain.controls import _name, base_model_of
from xmd.versions import service as versions
from xmd.versions.models import ModelStatus, ModelVersion

CONTROL = "retrain_control"
"""The job kind of one control arm × seed run after its retrain."""


def control_plan(chosen: ControlOptions, seed: int) -> list[tuple[str, int]]:
    """The follow-up runs, seed by seed so a partial comparison is paired early: the control arms of the
    first seed, then for every further seed the debug run and the controls. ``strip`` trains nothing: the
    λ = 0 run of each seed predicts it too, else one run on the parent does."""
    seeds = [seed + i for i in range(chosen.seeds)]
    trained = [a for a in chosen.controls if a != "strip"]
    plan = [(a, seeds[0]) for a in trained]
    for s in seeds[1:]:
        plan += [("debug", s)] + [(a, s) for a in trained]
    if "strip" in chosen.controls and "lambda0" not in chosen.controls:
        plan.append(("strip", seeds[0]))
    return plan


def _edit_controls(db: Session, version_id: int, edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Change the debugged version's ``config["controls"]`` under its row lock (two controls finishing
    at once must not drop each other's run); returns the new config."""
    lock_row(db, ModelVersion, ModelVersion.id == version_id)
    mv = versions.get_or_raise(db_session=db, model_version_id=version_id)
    db.refresh(mv)
    config = json.loads(json.dumps(mv.config or {}))  # a new object: the JSON column sees the change
    edit(config)
    db.execute(update(ModelVersion).where(ModelVersion.id == version_id).values(config=config))
    db.commit()
    return config


def queue_controls(
    ctx: JobContext,
    project: Project,
    child: ModelVersion,
    chosen: ControlOptions,
    seed: int,
    enqueue: queue.Enqueue | None = None,
) -> list[dict[str, Any]]:
    """Record the plan on the debugged version ``child``, then start one job per run (a queue that refuses
    leaves that run failed with the reason; ``child`` stays ready)."""
    plan = control_plan(chosen, seed)
    runs = [{"arm": arm, "seed": s, "job_id": None, "status": "queued", "version_id": None} for arm, s in plan]
    seeds = [seed + i for i in range(chosen.seeds)]
    info = {"arms": list(chosen.controls), "seeds": seeds, "runs": runs, "after_the_version": True}
    _edit_controls(ctx.db, child.id, lambda c: c.update(controls=info))
    send = enqueue or queue.sender(ctx.settings)
    params = {k: v for k, v in ctx.params.items() if k != "seed"}
    for i, (arm, s) in enumerate(plan):
        body = {**params, "arm": arm, "arm_seed": s, "seed": seed, "debug_version_id": child.id, "run": i}
        try:
            job = start(ctx.db, send, project, CONTROL, body)
            runs[i].update(job_id=job.id)
        except QueueUnavailableError as exc:
            runs[i].update(status="failed", error=str(exc))
    _edit_controls(ctx.db, child.id, lambda c: c["controls"].update(runs=runs))
    return runs


def _mark(db: Session, child_id: int, index: int, **fields: Any) -> dict[str, Any]:
    return _edit_controls(db, child_id, lambda c: c["controls"]["runs"][index].update(fields))


def control_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``retrain_control``: one arm × seed after its retrain (see module doc)."""
    index, child_id = int(ctx.params["run"]), int(ctx.params["debug_version_id"])
    try:
        _mark(ctx.db, child_id, index, status="running", job_id=ctx.job.id)
        return _control(ctx, index, child_id)
    except BaseException as exc:
        ctx.db.rollback()
        cancelled = type(exc).__name__ in ("Cancelled", "JobCancelled")
        status = "cancelled" if cancelled else "failed"
        _mark(ctx.db, child_id, index, status=status, error=None if cancelled else str(exc)[:500])
        raise


def _control(ctx: JobContext, index: int, child_id: int) -> dict[str, Any]:
    from xmd.retrain.flows import _configs, held_out, training_data  # the retrain's data, read as it read it

    db, params = ctx.db, ctx.params
    arm, arm_seed = str(params["arm"]), int(params["arm_seed"])
    child = versions.get_or_raise(db_session=db, model_version_id=child_id)
    if child.status is not ModelStatus.READY:
        raise DataError(f"v{child.version} is {child.status.value}; its controls cannot be compared with it")
    parent = versions.ready_or_raise(db_session=db, model_version_id=int(params["version_id"]))
    project = projects.get_or_raise(db_session=db, project_id=parent.project_id)
    config, er, _ = _configs(params)  # the retrain's own settings (its seed is the first seed's)
    b = json.loads((versions.files_of(ctx.settings, child) / followup.BASIS_FILE).read_text())
    feedback = FeedbackSet.from_json((child.feedback_snapshot or {}).get("feedback") or {})
    train_sets = datasets.resolve_ids(
        db_session=db, project=project, ids=params.get("train_dataset_ids"), role=DatasetRole.TRAIN
    )
    eval_sets = datasets.resolve_ids(
        db_session=db, project=project, ids=params.get("eval_dataset_ids") or None, role=DatasetRole.EVAL
    )
    train, _ = training_data(db, project, train_sets)
    evals = {
        ds.name: [dataclasses.replace(ex, split="eval") for ex in datasets.core_examples(db_session=db, dataset=ds)]
        for ds in eval_sets
        if ds.id in (params.get("eval_dataset_ids") or [])
    }
    train, evals, _ = held_out(train, feedback, evals, config.seed)
    sets = followup.eval_examples(b, evals)
    parent_dir = versions.files_of(ctx.settings, parent)
    db.commit()  # no read transaction held through minutes of training
    if arm == "strip":
        run = followup.strip_parent(parent_dir, b, sets, max_length=config.max_length, device=ctx.settings.device)
        return _attach(ctx, child_id, index, run, None)
    base, base_config, record = None, None, None
    if arm == "deletion_base":
        record = base_model_of(project)
        if not record:
            raise DataError(f"project {project.name!r} does not record its base model, so deletion_base cannot run")
        base = str(paths.base_model_folder(ctx.settings, record))
        base_config = base_recipe(parent_dir, config, record.get("recipe"))
    n_seeds = len(child.config["controls"]["seeds"])
    mv = versions.create_child(
        db_session=db,
        parent=parent,
        path=versions.version_dir(ctx.settings, project.id),
        name=_name(child.version, arm, arm_seed, n_seeds),
        status=ModelStatus.TRAINING,
        config={
            "job_id": ctx.job.id,
            "train": dataclasses.asdict(dataclasses.replace(config, seed=arm_seed)),
            "er": dataclasses.asdict(er),
            "arm": arm,
            "seed": arm_seed,
            "control": None if arm == "debug" else arm,
            "comparison_version_id": child.id,
            "train_dataset_ids": params.get("train_dataset_ids"),
            "eval_dataset_ids": params.get("eval_dataset_ids"),
        },
    )

    def on_step(info: StepInfo) -> bool:
        return not ctx.progress(5.0 + 90.0 * info.progress, step=info.step, total_steps=info.total_steps)

    with versions.store_of(ctx.settings).build(versions.key_of(ctx.settings, mv)) as out:
        run, result = followup.run_arm(
            parent_dir, train, feedback, out, b, sets, arm=arm, seed=arm_seed, config=config, er=er,
            strip=arm == "lambda0" and "strip" in child.config["controls"]["arms"], base_model=base,
            base_config=base_config, device=ctx.settings.device, callback=on_step,
        )  # fmt: skip
        meta = json.loads((out / "xmd.json").read_text())
        meta["out_dir"] = mv.path
        (out / "xmd.json").write_text(json.dumps(meta, indent=2, default=str))
    if record is not None:  # what the user gave, not the folder it was loaded from (a Hub cache path)
        run["base_model"] = record.get("bundled") or record.get("hub_id") or record.get("model_path")
    snapshot = child.feedback_snapshot
    versions.mark_ready(
        db_session=db,
        model_version=mv,
        metrics=result.metrics_after or {},
        feedback_snapshot=snapshot,
        config={**mv.config, "bf16": bool(result.history.bf16), "vs_parent": None},
    )
    return _attach(ctx, child_id, index, run, mv.id)


def _attach(ctx: JobContext, child_id: int, index: int, run: dict[str, Any], version_id: int | None) -> dict:
    """Mark the run done and write the comparison of every finished arm on the debugged version, under
    its row lock; the run's predictions stay in this job's result, where the next control reads them."""
    db = ctx.db
    run = {**run, "job_id": ctx.job.id, "version_id": version_id}
    b = json.loads(
        (versions.files_of(ctx.settings, versions.get_or_raise(db_session=db, model_version_id=child_id)) /
         followup.BASIS_FILE).read_text()
    )  # fmt: skip

    def edit(config: dict[str, Any]) -> None:
        runs = config["controls"]["runs"]
        runs[index].update(status="done", version_id=version_id, job_id=ctx.job.id)
        finished = [run]
        for i, r in enumerate(runs):
            if i == index or r.get("status") != "done" or not r.get("job_id"):
                continue
            other = jobs.get(db_session=db, job_id=str(r["job_id"]))
            if other is not None and other.result:
                finished.append(other.result)
        config["comparison"] = followup.assemble(b, finished)
        config["comparison"]["runs_done"] = sum(r.get("status") == "done" for r in runs)

    _edit_controls(db, child_id, edit)
    return run


def cleanup(db: Session, job_id: str | None) -> list[int]:
    """A control job that failed, was cancelled or swept before its body could say so: its run says it."""
    if job_id is None:
        return []
    job = jobs.get(db_session=db, job_id=job_id)
    if job is None or job.kind != CONTROL:
        return []
    index, child_id = int(job.params["run"]), int(job.params["debug_version_id"])
    child = versions.get(db_session=db, model_version_id=child_id)
    runs = ((child.config or {}).get("controls") or {}).get("runs") or [] if child else []
    if index >= len(runs) or runs[index].get("status") not in ("queued", "running"):
        return []
    _mark(db, child_id, index, status="failed", error=job.error or "the control job ended without finishing")
    return [child_id]


kinds.register(CONTROL, control_job, long=True)
kinds.on_cleanup("retrain_controls", cleanup)
