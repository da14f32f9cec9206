"""The retrain job with controls and seeds (issue 14): the debug run and each control arm (λ = 0,
deletion, deletion from the base model) over N seeds, each arm × seed a model version of its own.

Every version is registered before training starts (status ``training``, ``config["arm"]``,
``config["seed"]``, ``config["control"]`` for the controls, named e.g. "v3 λ=0 seed 1"), so the tree
shows what the job will make and nothing is ever overwritten. The core's :func:`run_comparison`
writes every run into a hidden scratch folder of the data directory; each is then stored through the
version store (a folder or a bucket) as its version, the versions become ``ready`` together at the
end, and a cancel or a crash leaves them ``failed`` (:func:`xmd.versions.service.fail_orphans`). The
comparison is stored with the job result without its per-example arrays; the full
``comparison.json`` is stored with the first debug version's files.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from xmd.core.attribution import DEFAULT_METHOD
from xmd.core.controls import ControlsConfig, base_recipe, run_comparison
from xmd.core.feedback import FeedbackSet
from xmd.core.modelcard import render_model_card
from xmd.core.retrain import ControlOptions, ERConfig, StepInfo, TrainConfig
from xmd.core.types import DataError, Example
from xmd.core.vs_parent import from_comparison
from xmd.jobs.context import JobContext
from xmd.projects import paths
from xmd.projects.models import Project
from xmd.versions import service as versions
from xmd.versions.models import ModelStatus, ModelVersion

ARM_NAMES = {"debug": "", "lambda0": "λ=0", "deletion": "deletion", "deletion_base": "deletion from base"}
PER_EXAMPLE = ("example_ids", "gold", "has_words", "predictions")
"""Per-example arrays of a set in ``comparison.json``: kept in the file, left out of the job result."""


def base_model_of(project: Project) -> dict[str, Any] | None:
    """The base model the project was fine-tuned from and its recipe, when it records one
    (``projects.base_model``, set at creation or by ``PUT /api/projects/{id}/base-model``)."""
    return dict(project.base_model) if project.base_model else None


def compact(comparison: Mapping[str, Any]) -> dict[str, Any]:
    """The comparison without its per-example arrays (what the job result and the API carry)."""
    out = dict(comparison)
    out["sets"] = {
        name: {k: v for k, v in s.items() if k not in PER_EXAMPLE} for name, s in comparison.get("sets", {}).items()
    }
    return out


def _name(first: int, arm: str, seed: int, n_seeds: int) -> str:
    label = ARM_NAMES.get(arm, arm)
    parts = [f"v{first}", label] + ([f"seed {seed}"] if n_seeds > 1 or arm != "debug" else [])
    return " ".join(p for p in parts if p)


def retrain_with_controls(
    ctx: JobContext,
    parent: ModelVersion,
    project: Project,
    config: TrainConfig,
    er: ERConfig,
    chosen: ControlOptions,
    train: Sequence[Example],
    feedback: FeedbackSet,
    evals: dict[str, list[Example]],
    holdout: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Train every arm × seed from ``parent`` as new versions and compare them (see module doc); the
    debug versions also record themselves against the parent (``vs_parent``, :mod:`xmd.core.vs_parent`)."""
    db = ctx.db
    record = base_model_of(project) if "deletion_base" in chosen.controls else None
    if "deletion_base" in chosen.controls and not record:
        raise DataError(f"project {project.name!r} does not record its base model, so deletion_base cannot run")
    parent_dir = versions.files_of(ctx.settings, parent)
    base, base_config = None, None
    if record is not None:  # checked again now (local paths may be off since); a Hub id is fetched here
        base = str(paths.base_model_folder(ctx.settings, record))
        base_config = base_recipe(parent_dir, config, record.get("recipe"))
    seeds = [config.seed + i for i in range(chosen.seeds)]
    arms = ["debug", *chosen.controls]
    common = {
        "job_id": ctx.job.id,
        "train": dataclasses.asdict(config),
        "er": dataclasses.asdict(er),
        "controls": list(chosen.controls),
        "seeds": seeds,
        "train_dataset_ids": ctx.params.get("train_dataset_ids"),
        "eval_dataset_ids": ctx.params.get("eval_dataset_ids"),
    }
    made: dict[tuple[str, int], ModelVersion] = {}
    first: int | None = None
    for seed in seeds:
        for arm in arms:
            mv = versions.create_child(
                db_session=db,
                parent=parent,
                path=versions.version_dir(ctx.settings, project.id),
                name=None if first is None else _name(first, arm, seed, len(seeds)),
                status=ModelStatus.TRAINING,
                config={**common, "arm": arm, "seed": seed, "control": None if arm == "debug" else arm},
            )
            if first is None:
                first = mv.version
                if len(seeds) > 1:
                    mv.name = _name(first, arm, seed, len(seeds))
                    db.commit()
            made[(arm, seed)] = mv
    ctx.progress(1.0)
    n_runs = len(made)
    lo, hi = 5.0, 95.0
    at = {"index": 0}

    def on_run(_arm: str, _seed: int, index: int, _total: int) -> None:
        at["index"] = index

    def on_step(info: StepInfo) -> bool:
        cancel = ctx.progress(
            lo + (hi - lo) * (at["index"] + info.progress) / n_runs,
            step=info.step,
            total_steps=info.total_steps,
            task_loss=info.task_loss,
            er_loss=info.er_loss,
            loss=info.loss,
            lr=info.lr,
        )
        return not cancel

    db.commit()  # no read transaction held through minutes of training
    store = versions.store_of(ctx.settings)
    scratch = Path(ctx.settings.data_dir) / ".scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=f"compare-{ctx.job.id}-", dir=scratch))
    metas: dict[tuple[str, int], dict[str, Any]] = {}
    try:
        cmp = run_comparison(
            parent_dir,
            train,
            feedback,
            root / "runs",
            config=config,
            er=er,
            eval_sets=evals or None,
            controls=ControlsConfig(
                arms=tuple(chosen.controls),
                seeds=chosen.seeds,
                base_model=base,
                base_config=base_config,
                quality_method=DEFAULT_METHOD if chosen.quality or chosen.rationale_column else None,
                rationale_column=chosen.rationale_column or None,
            ),
            device=ctx.settings.device,
            callback=on_step,
            on_run=on_run,
        )
        vs = from_comparison(
            cmp.to_dict(), evals, feedback, reference=train, names=(f"v{parent.version}", f"v{first}"), holdout=holdout
        )
        for run in cmp.runs:  # store each run as its version (a skipped arm has no run and stays unmade)
            key, run_dir = (run["arm"], run["seed"]), Path(run["out_dir"])
            meta = json.loads((run_dir / "xmd.json").read_text())
            meta["out_dir"] = made[key].path  # where it is stored, not the scratch folder
            if run["arm"] == "debug" and vs:
                meta["vs_parent"] = vs
                (run_dir / "README.md").write_text(render_model_card(meta))
            (run_dir / "xmd.json").write_text(json.dumps(meta, indent=2, default=str))
            if key == ("debug", seeds[0]):  # the full comparison travels with the first debug version
                shutil.copy2(root / "runs" / "comparison.json", run_dir / "comparison.json")
            store.put(versions.key_of(ctx.settings, made[key]), run_dir, move=True)
            metas[key] = meta
    finally:
        shutil.rmtree(root, ignore_errors=True)
    summary = compact(cmp.to_dict())
    summary["file"] = "comparison.json, in the files of the first debug version"
    summary["out_dir"] = made[("debug", seeds[0])].path  # not the scratch folder, which is gone
    if record is not None:  # what the user gave, not the folder it was loaded from (a Hub cache path)
        summary["settings"]["base_model"] = record.get("bundled") or record.get("hub_id") or record.get("model_path")
    snapshot = {"feedback": feedback.to_dict(train), "counts": feedback.counts(train), "sources": feedback.sources()}
    debug0 = made[("debug", seeds[0])]
    for key, meta in metas.items():
        mv = made[key]
        config_out = {**mv.config, "metrics_before": meta.get("metrics_before"), "comparison_version_id": debug0.id}
        config_out.update(shares_before=meta.get("shares_before"), shares_after=meta.get("shares_after"))
        config_out["bf16"] = bool((meta.get("history") or {}).get("bf16"))  # mixed_precision took effect
        config_out.update(vs_parent=meta.get("vs_parent"), holdout=holdout)
        versions.mark_ready(
            db_session=db,
            model_version=mv,
            metrics=meta.get("metrics_after") or {},
            feedback_snapshot=snapshot,
            config=config_out,
        )
    versions.fail_orphans(db_session=db, job_id=ctx.job.id)  # arms the core skipped (see the notes)
    first_run = metas[("debug", seeds[0])]
    return {
        "version_id": debug0.id,
        "version": debug0.version,
        "path": debug0.path,
        "versions": {f"{arm}-seed{seed}": made[(arm, seed)].id for arm, seed in metas},
        "metrics_before": first_run.get("metrics_before"),
        "metrics_after": first_run.get("metrics_after"),
        "shares_before": first_run.get("shares_before"),
        "shares_after": first_run.get("shares_after"),
        "comparison": summary,
        "vs_parent": first_run.get("vs_parent"),
    }
