"""Controls that run after the debugged version is ready, one arm × seed at a time (issue 30 §5).

:func:`xmd.core.controls.run_comparison` trains the debug run and every control in one go, so the
debugged model waits for all of them. Here the debug run is an ordinary retrain; what the controls
need from it is kept as a *basis* (:func:`basis`: the measured eval examples, their gold labels, the
corrected words' slice, the flagged class, and the parent's and the debug run's predictions), each
control arm is trained later and on its own (:func:`run_arm`: same parent, same data, same order of
batches and steps for a seed, as in ``run_comparison``), and :func:`assemble` compares whatever arms
have finished with the same paired bootstrap and verdicts (:func:`xmd.core.compare.compare_predictions`).

The ``strip`` arm trains nothing: the λ = 0 arm of each seed (else the parent, once) predicts with the
corrected words removed from the input.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from typing import Any

import numpy as np

from xmd.core.compare import (
    VERDICT_RULE,
    choose_positive,
    compare_predictions,
    contains_words,
    removed_task_words,
    set_metrics,
    strip_notes,
)
from xmd.core.deletion import delete_feedback_words
from xmd.core.feedback import FeedbackSet
from xmd.core.forecast import feedback_words, strip_words
from xmd.core.modeling import LoadedModel, load_model
from xmd.core.pipeline import RunResult, _finish, _meta, _parent_meta, _prepare_output, feedback_targets
from xmd.core.predict import predict_proba
from xmd.core.retrain import ERConfig, ProgressCallback, TrainConfig, token_lengths, train_loop
from xmd.core.types import DataError, Example

#: The basis's file name, stored with the debugged version's files.
BASIS_FILE = "controls_basis.json"
TRAINED_ARMS = ("debug", "lambda0", "deletion", "deletion_base")
ARM_ORDER = ("lambda0", "deletion", "deletion_base", "strip")


def basis(
    labels: Sequence[str],
    train: Sequence[Example],
    feedback: FeedbackSet,
    sets: Mapping[str, Sequence[Example]],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    *,
    seed: int,
    positive_label: int | None = None,
) -> dict[str, Any]:
    """What the later control arms are compared against (see module doc); JSON-ready."""
    words = removed_task_words(feedback.task)
    positive = None
    if words:
        index, rule = choose_positive(train, len(labels), words, given=positive_label)
        positive = {"index": index, "label": labels[index], "rule": rule}
    out_sets = {}
    for name, exs in sets.items():
        if name not in before or name not in after:
            continue
        has = contains_words([ex.text for ex in exs], words).tolist() if words else None
        out_sets[name] = {
            "example_ids": [ex.id for ex in exs],
            "gold": [_label(ex) for ex in exs],
            "has_words": has,
            "parent": np.asarray(before[name]).astype(int).tolist(),
            "debug": {str(seed): np.asarray(after[name]).astype(int).tolist()},
        }
    return {
        "version": 1,
        "labels": list(labels),
        "seed": seed,
        "removed_words": words,
        "strip_words": sorted(feedback_words(feedback, train)),
        "positive": positive,
        "sets": out_sets,
    }


def _label(ex: Example) -> int:
    if ex.label is None:
        raise DataError(f"eval example {ex.id!r} has no gold label")
    return int(ex.label)


def eval_examples(b: Mapping[str, Any], sets: Mapping[str, Sequence[Example]]) -> dict[str, list[Example]]:
    """The basis's eval examples, in its order, taken from ``sets`` (DataError when one is gone: the
    arms would not be measured on the same examples)."""
    out = {}
    for name, s in b["sets"].items():
        by_id = {ex.id: ex for ex in sets.get(name, ())}
        missing = [i for i in s["example_ids"] if i not in by_id]
        if missing:
            raise DataError(
                f"eval set {name!r} lost {len(missing)} of the examples the debugged version was measured on "
                f"(e.g. {missing[0]!r}); the control cannot be compared with it"
            )
        out[name] = [by_id[i] for i in s["example_ids"]]
    return out


def _predict(loaded: LoadedModel, sets: Mapping[str, Sequence[Example]], max_length: int) -> dict[str, list[int]]:
    return {
        n: predict_proba(loaded, [ex.text for ex in exs], max_length=max_length).argmax(axis=1).tolist()
        for n, exs in sets.items()
    }


def _stripped(b: Mapping[str, Any], sets: Mapping[str, Sequence[Example]]) -> dict[str, list[Example]]:
    keys = set(b.get("strip_words") or [])
    return {n: [replace(ex, text=strip_words(ex.text, keys)) for ex in exs] for n, exs in sets.items()}


def strip_parent(
    model_dir: str | os.PathLike, b: Mapping[str, Any], sets: Mapping[str, Sequence[Example]], *, max_length: int,
    device: str = "auto",
) -> dict[str, Any]:  # fmt: skip
    """The ``strip`` arm without a λ = 0 arm: the parent predicts the texts without the corrected words
    (inference only)."""
    loaded = load_model(model_dir, device=device)
    return {"arm": "strip", "seed": None, "strip": _predict(loaded, _stripped(b, sets), max_length)}


def run_arm(
    model_dir: str | os.PathLike,
    train: Sequence[Example],
    feedback: FeedbackSet,
    out_dir: str | os.PathLike,
    b: Mapping[str, Any],
    sets: Mapping[str, Sequence[Example]],
    *,
    arm: str,
    seed: int,
    config: TrainConfig,
    er: ERConfig,
    strip: bool = False,
    base_model: str | None = None,
    base_config: TrainConfig | None = None,
    device: str = "auto",
    callback: ProgressCallback | None = None,
) -> tuple[dict[str, Any], RunResult]:
    """Train one arm × seed from the parent at ``model_dir`` into ``out_dir`` and predict ``sets`` (the
    basis's examples; with ``strip``, also their texts without the corrected words). Returns the run
    (``{"arm", "seed", "predictions", "strip", "steps", "seconds"}``) and the saved run's result."""
    if arm not in TRAINED_ARMS:
        raise DataError(f"arm {arm!r} trains nothing; trained arms are {', '.join(TRAINED_ARMS)}")
    if arm == "deletion_base" and not base_model:
        raise DataError("the deletion_base control needs the base model")
    parent = load_model(model_dir, device=device)
    targets = feedback_targets(parent, train, feedback, config.max_length)
    # every arm batches by the original texts' token counts, as the debug run did (run_comparison's rule)
    lengths = token_lengths(parent, train, config.max_length) if config.length_bucketing else None
    labels = parent.labels
    del parent
    data: Sequence[Example] = train
    if arm.startswith("deletion"):
        data, n_deleted = delete_feedback_words(train, targets)
        if n_deleted == 0:
            raise DataError("the feedback removes no word, so a deletion control would equal λ = 0")
    source = str(base_model) if arm == "deletion_base" else str(model_dir)
    cfg = replace(base_config if arm == "deletion_base" and base_config else config, seed=seed)
    out, partial = _prepare_output(out_dir, source)
    try:
        loaded = load_model(source, labels=labels if arm == "deletion_base" else None, device=device)
        history = train_loop(
            loaded,
            data,
            cfg,
            er=er if arm == "debug" else None,
            targets=targets if arm == "debug" else None,
            callback=callback,
            order_lengths=lengths,
        )
        preds = _predict(loaded, sets, config.max_length)
        stripped = _predict(loaded, _stripped(b, sets), config.max_length) if strip else None
        pos = (b.get("positive") or {}).get("index")
        after = {
            n: set_metrics(s["gold"], preds[n], labels, has_words=s["has_words"], positive=pos)
            for n, s in b["sets"].items()
        }
        er_meta = asdict(er) if arm == "debug" else {**asdict(er), "lam": 0.0} if arm == "lambda0" else None
        result = RunResult(
            out_dir=out,
            kind="debug" if arm == "debug" else "control",
            metrics_before=None,
            metrics_after=after or None,
            history=history,
            meta=_meta(
                loaded, cfg, len(data), history, arm=arm, seed=seed, er=er_meta, parent=_parent_meta(model_dir),
                feedback_counts=feedback.counts(train), n_feedback_positions=sum(len(v) for v in targets.values()),
            ),
        )  # fmt: skip
        _finish(loaded, result, partial, out)
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)
    run = {
        "arm": arm,
        "seed": seed,
        "predictions": preds,
        "strip": stripped,
        "steps": len(history.steps),
        "seconds": history.seconds,
        "n_train": len(data),
        "train": {"epochs": cfg.epochs, "batch_size": cfg.batch_size, "lr": cfg.lr, "seed": cfg.seed},
    }
    if arm == "deletion_base" and (cfg.epochs, cfg.batch_size, cfg.grad_accum) != (
        config.epochs, config.batch_size, config.grad_accum
    ):  # fmt: skip
        run["note"] = "deletion_base follows the base model's recipe, which batches differently from the debug run"
    return run, result


def assemble(b: Mapping[str, Any], runs: Sequence[Mapping[str, Any]], *, n_resamples: int = 1000) -> dict[str, Any]:
    """The comparison of the debug run with every control arm finished so far (``runs``: what
    :func:`run_arm` / :func:`strip_parent` returned), over the seeds every included arm has; the
    shape of ``Comparison.to_dict()`` without its per-example arrays, plus ``pending`` notes."""
    base_seed = int(b["seed"])
    debug: dict[int, Any] = {base_seed: None} | {int(r["seed"]): r for r in runs if r["arm"] == "debug"}
    have: dict[str, dict[int, Any]] = {}
    parent_strip = next((r for r in runs if r["arm"] == "strip"), None)
    for r in runs:
        if r["arm"] in ("debug", "strip"):
            continue
        have.setdefault(r["arm"], {})[int(r["seed"])] = r
        if r.get("strip") is not None:
            have.setdefault("strip", {})[int(r["seed"])] = {"predictions": r["strip"]}
    if parent_strip is not None:
        have["strip"] = {s: {"predictions": parent_strip["strip"]} for s in debug}
    seeds = [s for s in sorted(debug) if all(s in got for got in have.values())]
    if not seeds:  # an arm has not reached the seeds the others have: compare on the first seed only
        seeds = [base_seed]
        have = {a: got for a, got in have.items() if base_seed in got}
    arms = ["debug", *sorted(have, key=ARM_ORDER.index)]  # as run_comparison lists them, whichever ended first
    labels = list(b["labels"])
    pos = (b.get("positive") or {}).get("index")
    sets = {}
    for name, s in b["sets"].items():

        def stack(arm: str, name: str = name, s: Mapping[str, Any] = s) -> np.ndarray:
            if arm == "debug":
                rows = [s["debug"][str(k)] if k == base_seed else debug[k]["predictions"][name] for k in seeds]
            else:
                rows = [have[arm][k]["predictions"][name] for k in seeds]
            return np.asarray(rows, dtype=np.int64)

        cmp = compare_predictions(
            s["gold"], {a: stack(a) for a in arms}, labels, has_words=s["has_words"], positive=pos,
            n_resamples=n_resamples,
        )  # fmt: skip
        before = set_metrics(s["gold"], s["parent"], labels, has_words=s["has_words"], positive=pos)
        sets[name] = {"n": len(s["gold"]), "before": before, **cmp}
    return {
        "version": 1,
        "arms": arms,
        "seeds": seeds,
        "labels": labels,
        "positive": b.get("positive"),
        "removed_words": list(b.get("removed_words") or []),
        "sets": sets,
        "runs": [{k: v for k, v in r.items() if k not in ("predictions", "strip")} for r in runs],
        "notes": sorted({str(r["note"]) for r in runs if r.get("note")}) + strip_notes(sets),
        "verdict_rule": VERDICT_RULE,
        "settings": {
            "strip": {"words": b.get("strip_words"), "from": "parent" if parent_strip else "lambda0"}
            if "strip" in have
            else None,
            "bootstrap": {"n_resamples": n_resamples, "seed": 0, "level": 0.95},
            "after_the_version": True,
        },
    }


def summary(comparison: Mapping[str, Any]) -> dict[str, Any]:
    """The model card's form of :func:`assemble`'s comparison (as ``Comparison.summary()``)."""
    sets = {}
    for name, s in comparison.get("sets", {}).items():
        rows = {}
        for metric, v in s["verdicts"].items():
            rows[metric] = {arm: [a["mean"].get(metric), a["std"].get(metric)] for arm, a in s["arms"].items()}
            rows[metric]["verdict"] = v["text"]
        sets[name] = rows
    strip = [n for n in comparison.get("notes", []) if "stripping the corrected words" in n]
    return {
        "arms": comparison["arms"],
        "seeds": comparison["seeds"],
        "sets": sets,
        "strip_notes": strip,
        "file": "the comparison stored on this version in xmd (config.comparison)",
    }
