"""A debug run beside its controls, over seeds: did the ER term help more than the obvious baselines?

On real hate-speech data most of a default debug run's apparent gain came from merely training on
(issue 14), so every claim is measured against arms trained from the **same parent model with the
same data order, steps and seeds**:

- ``debug`` — ``L_task + λ·L_ER`` with the feedback (what ``xmd debug`` does);
- ``lambda0`` — the same continued training without the ER term (λ = 0);
- ``deletion`` — plain task loss on the training texts with every word position the feedback marks
  *remove* deleted (task-level words where their label/scope puts them, instance-level words in
  their example: exactly the positions the ER term regularises);
- ``deletion_base`` — the user's recipe on those cleaned texts, from the base model (when given).

Each arm × seed writes its own new model directory under ``out_dir`` (nothing is overwritten), and
``comparison.json`` there holds the :class:`Comparison`. Data order is recorded per run as a digest
of the example ids of every batch, and the comparison states whether the arms of a seed share it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from xmd.core.compare import (
    VERDICT_RULE,
    choose_positive,
    compare_predictions,
    contains_words,
    format_table,
    removed_task_words,
    set_metrics,
    strip_notes,
)
from xmd.core.deletion import delete_feedback_words
from xmd.core.feedback import FeedbackSet
from xmd.core.forecast import feedback_words, strip_words
from xmd.core.measures import _quality_summary, explanation_quality
from xmd.core.modelcard import render_model_card
from xmd.core.modeling import LoadedModel, load_model
from xmd.core.pipeline import RunResult, _finish, _meta, _parent_meta, _prepare_output, feedback_targets
from xmd.core.predict import predict_proba
from xmd.core.retrain import CONTROL_ARMS, ERConfig, ProgressCallback, TrainConfig, token_lengths, train_loop
from xmd.core.types import DataError, Example, XMDError

#: Called with ``(arm, seed, epoch, batch index, example ids)`` before each training batch.
ArmBatchHook = Callable[[str, int, int, int, list[str]], None]
#: Called with ``(arm, seed, run index, number of runs)`` before each run starts (job progress).
RunHook = Callable[[str, int, int, int], None]


# --------------------------------------------------------------------------- settings and result


@dataclass
class ControlsConfig:
    """Which controls run beside the debug run, over how many seeds, and how they are compared.

    Seeds are ``config.seed + i`` for ``i < seeds``. ``positive_label`` names the flagged class of
    the word false-positive rate (default: :func:`xmd.core.compare.choose_positive`). ``base_config``
    is the recipe of ``deletion_base`` (default: the parent's recorded fine-tune settings when xmd
    made it, else the debug run's). ``quality_method`` turns on faithfulness (AOPC) and, with
    ``rationale_column``, plausibility before/after on up to ``quality_limit`` examples per set.
    """

    arms: tuple[str, ...] = ("lambda0", "deletion")
    seeds: int = 1
    base_model: str | None = None
    base_config: TrainConfig | None = None
    positive_label: str | int | None = None
    n_resamples: int = 1000
    bootstrap_seed: int = 0
    share_methods: tuple[str, ...] = ("grad_x_input", "occlusion")
    max_share_examples: int = 256
    quality_method: str | None = None
    quality_limit: int = 200
    rationale_column: str | None = None

    def validate(self) -> None:
        unknown = [a for a in self.arms if a not in CONTROL_ARMS]
        if unknown or len(set(self.arms)) != len(self.arms):
            raise ValueError(f"controls must be distinct names from {CONTROL_ARMS}, got {list(self.arms)}")
        if "deletion_base" in self.arms and not self.base_model:
            raise ValueError("the deletion_base control needs the base model (base_model / --base-model)")
        if self.seeds < 1 or self.n_resamples < 1:
            raise ValueError("seeds and n_resamples must be >= 1")


@dataclass
class Comparison:
    """A debug run and its controls over seeds; ``to_dict()`` is ``comparison.json`` (see module doc)."""

    out_dir: Path
    arms: list[str]
    seeds: list[int]
    labels: list[str]
    positive: dict[str, Any] | None
    removed_words: list[str]
    runs: list[dict[str, Any]]
    sets: dict[str, dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)
    shares: dict[str, Any] = field(default_factory=dict)
    quality: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["out_dir"] = str(self.out_dir)
        d["version"] = 1
        d["verdict_rule"] = VERDICT_RULE
        return d

    def summary(self) -> dict[str, Any]:
        """The compact form the model card shows: mean ± std per arm and the verdict per metric."""
        sets = {}
        for name, s in self.sets.items():
            rows = {}
            for metric, v in s["verdicts"].items():
                rows[metric] = {
                    arm: [s["arms"][arm]["mean"].get(metric), s["arms"][arm]["std"].get(metric)] for arm in s["arms"]
                }
                rows[metric]["verdict"] = v["text"]
            sets[name] = rows
        strip = [n for n in self.notes if "stripping the corrected words" in n]
        return {"arms": self.arms, "seeds": self.seeds, "sets": sets, "file": "comparison.json", "strip_notes": strip}

    def table(self) -> str:
        """Plain-text table for the terminal (:func:`xmd.core.compare.format_table`)."""
        return format_table(self.to_dict())


# --------------------------------------------------------------------------- one arm


def _predict(loaded: LoadedModel, sets: Mapping[str, Sequence[Example]], max_length: int) -> dict[str, np.ndarray]:
    return {
        name: predict_proba(loaded, [ex.text for ex in exs], max_length=max_length).argmax(axis=1)
        for name, exs in sets.items()
    }


def base_recipe(
    model_dir: str | os.PathLike, fallback: TrainConfig, given: Mapping[str, Any] | None = None
) -> TrainConfig:
    """The recipe of ``deletion_base``: the fields ``given`` (a project's recorded recipe), over the
    parent's recorded fine-tune settings when xmd made it, over ``fallback`` (the debug run's)."""
    out = fallback
    try:
        meta = json.loads((Path(model_dir) / "xmd.json").read_text())
    except (OSError, ValueError):
        meta = {}
    train = meta.get("train") if meta.get("kind") == "fine_tune" else None
    if isinstance(train, dict):
        out = replace(out, **{k: v for k, v in train.items() if k in TrainConfig.__dataclass_fields__})
    unknown = sorted(set(given or {}) - set(TrainConfig.__dataclass_fields__))
    if unknown:
        raise DataError(f"the base model's recipe has unknown settings: {', '.join(unknown)}")
    return replace(out, **dict(given or {}))  # checked as it is built (options.Settings)


# --------------------------------------------------------------------------- the comparison


def run_comparison(
    model_dir: str | os.PathLike,
    train: Sequence[Example],
    feedback: FeedbackSet,
    out_dir: str | os.PathLike,
    *,
    config: TrainConfig | None = None,
    er: ERConfig | None = None,
    eval_sets: Mapping[str, Sequence[Example]] | None = None,
    controls: ControlsConfig | None = None,
    device: str = "auto",
    callback: ProgressCallback | None = None,
    progress: bool = False,
    batch_hook: ArmBatchHook | None = None,
    on_run: RunHook | None = None,
) -> Comparison:
    """Train the debug arm and each control for every seed, evaluate, and compare (see module doc).

    ``out_dir`` must be new or empty; it receives ``<arm>-seed<k>/`` model directories and
    ``comparison.json``. Returns the :class:`Comparison`; the debug arms' model cards gain its summary.
    ``callback`` is every run's step callback (returning False cancels: finished runs stay, the
    unfinished one leaves nothing, and no ``comparison.json`` is written).
    """
    config = config or TrainConfig()
    er = er or ERConfig()
    controls = controls or ControlsConfig()
    controls.validate()
    sets = dict(eval_sets or {})
    root = Path(out_dir).expanduser().resolve()
    if Path(model_dir).exists() and Path(model_dir).resolve() == root:
        raise XMDError(f"the output directory {root} is the input model; a retrain never overwrites it")
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise XMDError(f"output directory {root} already exists and is not empty; choose a new one")

    parent = load_model(model_dir, device=device)
    labels = parent.labels
    targets = feedback_targets(parent, train, feedback, config.max_length)
    n_positions = sum(len(v) for v in targets.values())
    cleaned, n_deleted = delete_feedback_words(train, targets)
    notes: list[str] = []
    arms = list(controls.arms)
    if n_deleted == 0 and any(a.startswith("deletion") for a in arms):
        arms = [a for a in arms if not a.startswith("deletion")]
        notes.append("the feedback removes no word, so the deletion controls would equal λ = 0; they were skipped")
    if not sets:
        notes.append("no eval sets were given: the arms are trained and their word shares measured, nothing else")
    strip_keys = set(feedback_words(feedback, train))
    if "strip" in arms and (not strip_keys or not sets):
        arms.remove("strip")
        notes.append("the feedback removes no word or no eval set was given, so the strip control was skipped")
    stripped = {n: [replace(ex, text=strip_words(ex.text, strip_keys)) for ex in exs] for n, exs in sets.items()}
    strip_from = "lambda0" if "lambda0" in arms else "parent"
    words = removed_task_words(feedback.task)
    positive = None
    if words:
        given = None if controls.positive_label is None else parent.label_index(controls.positive_label)
        index, rule = choose_positive(train, parent.num_labels, words, given=given)
        positive = {"index": index, "label": labels[index], "rule": rule}
    has = {name: contains_words([ex.text for ex in exs], words) if words else None for name, exs in sets.items()}
    gold = {name: np.array([int(ex.label) for ex in exs], dtype=np.int64) for name, exs in sets.items()}
    for name, exs in sets.items():
        if any(ex.label is None for ex in exs):
            raise DataError(f"evaluation set {name!r} has examples without a gold label")

    def measure(loaded: LoadedModel) -> dict:
        from xmd.core.effect import feedback_shares

        return {
            m: feedback_shares(
                loaded, train, targets, method=m, max_examples=controls.max_share_examples, max_length=config.max_length
            )
            for m in controls.share_methods
        }

    def quality(loaded: LoadedModel) -> dict | None:
        if not controls.quality_method:
            return None
        return {
            name: explanation_quality(
                loaded,
                exs,
                method=controls.quality_method,
                rationale_column=controls.rationale_column,
                limit=controls.quality_limit,
                max_length=config.max_length,
            )
            for name, exs in sets.items()
        }

    pos_index = positive["index"] if positive else None
    before_pred = _predict(parent, sets, config.max_length)
    before = {n: set_metrics(gold[n], before_pred[n], labels, has_words=has[n], positive=pos_index) for n in sets}
    shares_before = measure(parent)
    parent_strip = _predict(parent, stripped, config.max_length) if "strip" in arms and strip_from == "parent" else {}
    quality_before = quality(parent)
    # Length-bucketed batches follow token counts; every arm takes the original texts' counts, so the
    # deletion arms (shorter texts) train on exactly the debug run's batches.
    lengths = token_lengths(parent, train, config.max_length) if config.length_bucketing else None
    del parent
    root.mkdir(parents=True, exist_ok=True)

    seeds = [config.seed + i for i in range(controls.seeds)]
    base_config = controls.base_config or base_recipe(model_dir, config)
    preds: dict[str, dict[str, list[np.ndarray]]] = {n: {} for n in sets}
    runs: list[dict[str, Any]] = []
    quality_after: dict[str, list[dict]] = {}
    common = {
        "feedback_counts": feedback.counts(train),
        "parent": _parent_meta(model_dir),
        "n_feedback_positions": n_positions,
        "n_feedback_examples": len(targets),
    }
    plan = [(seed, arm) for seed in seeds for arm in ["debug", *arms] if arm != "strip"]
    for index, (seed, arm) in enumerate(plan):
        if on_run is not None:
            on_run(arm, seed, index, len(plan))
        source = controls.base_model if arm == "deletion_base" else str(model_dir)
        cfg = replace(base_config if arm == "deletion_base" else config, seed=seed)
        data = cleaned if arm.startswith("deletion") else train
        order = hashlib.sha256()

        def hook(epoch: int, bi: int, ids: list[str], _arm: str = arm, _seed: int = seed, _h=order) -> None:
            _h.update(("\x1f".join(ids) + "\x1e").encode())
            if batch_hook is not None:
                batch_hook(_arm, _seed, epoch, bi, ids)

        out, partial = _prepare_output(root / f"{arm}-seed{seed}", source)
        try:
            loaded = load_model(source, labels=labels if arm == "deletion_base" else None, device=device)
            history = train_loop(
                loaded,
                data,
                cfg,
                er=er if arm == "debug" else None,
                targets=targets if arm == "debug" else None,
                callback=callback,
                progress=progress,
                batch_hook=hook,
                order_lengths=lengths,
            )
            arm_pred = _predict(loaded, sets, config.max_length)
            wants_strip = "strip" in arms and arm == strip_from == "lambda0"
            strip_pred = _predict(loaded, stripped, config.max_length) if wants_strip else None
            after = {n: set_metrics(gold[n], arm_pred[n], labels, has_words=has[n], positive=pos_index) for n in sets}
            shares_after = measure(loaded)
            q = quality(loaded)
            er_meta = asdict(er) if arm == "debug" else {**asdict(er), "lam": 0.0} if arm == "lambda0" else None
            result = RunResult(
                out_dir=out,
                kind="debug" if arm == "debug" else "control",
                metrics_before=before or None,
                metrics_after=after or None,
                history=history,
                shares_before=shares_before,
                shares_after=shares_after,
                meta=_meta(loaded, cfg, len(data), history, arm=arm, seed=seed, er=er_meta, **common),
            )
            _finish(loaded, result, partial, out)
            del loaded
        finally:
            if partial.exists():
                shutil.rmtree(partial, ignore_errors=True)
        for n in sets:
            preds[n].setdefault(arm, []).append(arm_pred[n])
            if strip_pred is not None:
                preds[n].setdefault("strip", []).append(strip_pred[n])
            elif arm == "debug" and parent_strip:  # no λ = 0 arm: every seed pairs with the parent's filter
                preds[n].setdefault("strip", []).append(parent_strip[n])
        if q is not None:
            quality_after.setdefault(arm, []).append(q)
        runs.append(
            {
                "arm": arm,
                "seed": seed,
                "out_dir": str(out),
                "source": str(source),
                "n_train": len(data),
                "steps": len(history.steps),
                "seconds": history.seconds,
                "final_loss": history.steps[-1].loss if history.steps else None,
                "data_order": order.hexdigest(),
                "shares_after": shares_after,
            }
        )

    # deletion_base follows the base recipe (its own epochs / batch size), so it is held to the same
    # order only when that recipe batches like the debug run.
    paired = [r for r in runs if r["arm"] != "deletion_base" or _batches_alike(base_config, config)]
    same_order = all(
        len({r["data_order"] for r in paired if r["seed"] == s}) == 1
        and len({r["steps"] for r in paired if r["seed"] == s}) == 1
        for s in seeds
    )
    if not same_order:
        notes.append("the arms of a seed did NOT share their data order or step count; the comparison is unpaired")
    if len(paired) < len(runs):
        notes.append("deletion_base follows the base model's recipe, which batches differently from the debug run")
    results = {}
    for n, exs in sets.items():
        cmp = compare_predictions(
            gold[n],
            {arm: np.stack(p) for arm, p in preds[n].items()},
            labels,
            has_words=has[n],
            positive=pos_index,
            n_resamples=controls.n_resamples,
            seed=controls.bootstrap_seed,
        )
        results[n] = {
            "n": len(exs),
            "example_ids": [ex.id for ex in exs],
            "gold": gold[n].tolist(),
            "has_words": None if has[n] is None else has[n].tolist(),
            "before": before[n],
            "predictions": {
                "parent": before_pred[n].tolist(),
                **{a: np.stack(p).tolist() for a, p in preds[n].items()},
            },
            **cmp,
        }
    notes += strip_notes(results)
    comparison = Comparison(
        out_dir=root,
        arms=["debug", *arms],
        seeds=seeds,
        labels=labels,
        positive=positive,
        removed_words=words,
        runs=runs,
        sets=results,
        settings={
            "train": asdict(config),
            "base_train": asdict(base_config) if "deletion_base" in arms else None,
            "er": asdict(er),
            "base_model": controls.base_model,
            "parent_model": str(Path(model_dir).resolve()) if Path(model_dir).exists() else str(model_dir),
            "n_train": len(train),
            "n_feedback_positions": n_positions,
            "n_deleted_words": n_deleted,
            "strip": {"words": sorted(strip_keys), "from": strip_from} if "strip" in arms else None,
            "same_data_order": same_order,
            "bootstrap": {"n_resamples": controls.n_resamples, "seed": controls.bootstrap_seed, "level": 0.95},
        },
        shares={"before": shares_before},
        quality=None
        if quality_before is None
        else {"before": quality_before, "after": {a: _per_set_quality(v) for a, v in quality_after.items()}},
        notes=notes,
    )
    _write_comparison(comparison)
    return comparison


def _batches_alike(a: TrainConfig, b: TrainConfig) -> bool:
    return (a.epochs, a.batch_size, a.grad_accum) == (b.epochs, b.batch_size, b.grad_accum)


def _per_set_quality(per_seed: list[dict]) -> dict[str, Any]:
    return {name: _quality_summary([q[name] for q in per_seed]) for name in per_seed[0]}


def _write_comparison(comparison: Comparison) -> None:
    """``comparison.json`` (atomically), and the summary into each debug arm's xmd.json and card."""
    root = comparison.out_dir
    tmp = root / ".comparison.json.tmp"
    tmp.write_text(json.dumps(comparison.to_dict(), indent=1, default=str))
    os.replace(tmp, root / "comparison.json")
    summary = comparison.summary()
    for run in comparison.runs:
        if run["arm"] != "debug":
            continue
        meta_path = Path(run["out_dir"]) / "xmd.json"
        meta = json.loads(meta_path.read_text())
        meta["comparison"] = summary
        meta_path.write_text(json.dumps(meta, indent=2, default=str))
        (Path(run["out_dir"]) / "README.md").write_text(render_model_card(meta))
