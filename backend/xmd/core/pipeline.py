"""End-to-end runs: fine-tune a base model, or debug a fine-tuned one with feedback.

Each run reads a model directory and writes a *new* one (weights, tokenizer, ``xmd.json`` run
metadata and a ``README.md`` model card). The output is built in a hidden sibling folder and
renamed into place at the end, so a crash leaves no half-written model and the input directory is
never touched.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from xmd.core.evaluate import evaluate_sets
from xmd.core.feedback import FeedbackSet
from xmd.core.modelcard import render_model_card
from xmd.core.modeling import LoadedModel, load_model, save_model
from xmd.core.predict import predict_proba
from xmd.core.retrain import (
    ERConfig,
    FeedbackTargets,
    ProgressCallback,
    TrainConfig,
    TrainHistory,
    count_steps,
    train_loop,
)
from xmd.core.types import Example, Progress, Scope, XMDError, tick

PhaseHook = Callable[[str], Progress]
"""``on_phase(name)`` gives the progress hook of one phase of a run (``measure_before:<set>``,
``predict``, ``shares_before:<method>``, ``measure_after:<set>``, ``shares_after:<method>``); a hook
answering ``False`` stops the run with :class:`~xmd.core.types.Cancelled`. Training steps go to the
run's ``callback``."""


def cap_sets(
    sets: dict[str, Sequence[Example]], cap: int, seed: int
) -> tuple[dict[str, list[Example]], dict[str, int]]:
    """Each eval set cut to at most ``cap`` examples — a sample fixed by ``seed``, in the set's order —
    so a huge eval set cannot make a run (or its cancel) wait; returns the sets and their full sizes."""
    out: dict[str, list[Example]] = {}
    for name, examples in sets.items():
        chosen = list(examples)
        if len(chosen) > cap:
            keep = sorted(random.Random(f"{seed}:{name}").sample(range(len(chosen)), cap))
            chosen = [chosen[i] for i in keep]
        out[name] = chosen
    return out, {name: len(examples) for name, examples in sets.items()}


def measure_sets(
    loaded: LoadedModel,
    sets: dict[str, list[Example]],
    totals: dict[str, int],
    config: TrainConfig,
    on_phase: PhaseHook | None,
    phase: str,
    predictions: dict | None = None,
) -> dict | None:
    """Metrics of every (capped) eval set, each saying how many of how many examples it measured
    (``predictions`` receives each set's predicted classes)."""
    if not sets:
        return None
    hook = (lambda name: on_phase(f"{phase}:{name}")) if on_phase is not None else None
    metrics = evaluate_sets(loaded, sets, max_length=config.max_length, on_batch=hook, predictions=predictions)
    for name, m in metrics.items():
        m.update(n_total=totals[name], capped=totals[name] > m["n"], cap=config.eval_max_examples)
    return metrics


#: Examples with feedback over which the corrected words' share is measured before and after a
#: retrain. The screen shows one mean share per method; on the demo baseline the means over the first 64
#: and the first 256 examples differ by <= 0.01 (grad x input 0.184 / 0.193, occlusion 0.941 / 0.938),
#: while the measurement (occlusion: one forward pass per word) took 680 s at 256 and 177 s at 64,
#: beside a retrain job of about 2,750 s and 860 s (bench/results/demo_speed_*.json, machine under load).
EFFECT_MAX_EXAMPLES = 64


@dataclass
class RunResult:
    """What a run produced and measured; ``to_dict()`` is what ``xmd.json`` holds."""

    out_dir: Path
    kind: str
    metrics_before: dict | None
    metrics_after: dict | None
    history: TrainHistory
    shares_before: dict | None = None
    shares_after: dict | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    #: The measured eval examples and both versions' predicted classes on them (``{"sets", "before",
    #: "after"}``), for the controls that follow a retrain (:mod:`xmd.core.followup`); not in ``xmd.json``.
    predictions: dict[str, Any] | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.meta,
            "out_dir": str(self.out_dir),
            "kind": self.kind,
            "metrics_before": self.metrics_before,
            "metrics_after": self.metrics_after,
            "shares_before": self.shares_before,
            "shares_after": self.shares_after,
            "history": self.history.to_dict(),
        }


def _prepare_output(out_dir: str | os.PathLike, source: str | os.PathLike | None) -> tuple[Path, Path]:
    out = Path(out_dir).expanduser().resolve()
    src = Path(source).expanduser() if source is not None else None
    if src is not None and src.exists() and src.resolve() == out:
        raise XMDError(f"the output directory {out} is the input model; a retrain never overwrites it")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise XMDError(f"output directory {out} already exists and is not empty; choose a new one")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.parent / f".{out.name}.partial-{os.getpid()}-{int(time.time() * 1000)}"
    partial.mkdir()
    return out, partial


def _finish(loaded: LoadedModel, result: RunResult, partial: Path, out: Path) -> RunResult:
    try:
        save_model(loaded, partial)
        meta = result.to_dict()
        meta["out_dir"] = str(out)
        (partial / "xmd.json").write_text(json.dumps(meta, indent=2, default=str))
        (partial / "README.md").write_text(render_model_card(meta))
        if out.exists():
            out.rmdir()
        os.replace(partial, out)
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)
    return result


def _meta(loaded: LoadedModel, config: TrainConfig, n_train: int, history: TrainHistory, **extra) -> dict:
    last = history.steps[-1] if history.steps else None
    return {
        "base_model": loaded.source,
        "labels": loaded.labels,
        "train": asdict(config),
        "n_train": n_train,
        "final_loss": last.loss if last else None,
        "final_task_loss": last.task_loss if last else None,
        "final_er_loss": last.er_loss if last else None,
        **extra,
    }


def _parent_meta(model_dir: str | os.PathLike) -> dict[str, Any] | None:
    """Lineage: what the model being debugged was itself made from, when xmd made it."""
    meta_file = Path(model_dir) / "xmd.json"
    if not meta_file.exists():
        return None
    try:
        meta = json.loads(meta_file.read_text())
    except (OSError, ValueError):
        return None
    return {
        "path": str(model_dir),
        "kind": meta.get("kind"),
        "base_model": meta.get("base_model"),
        "root_model": (meta.get("parent") or {}).get("root_model") or meta.get("base_model"),
    }


def fine_tune(
    base: str | os.PathLike | LoadedModel,
    train: Sequence[Example],
    out_dir: str | os.PathLike,
    *,
    labels: list[str] | None = None,
    config: TrainConfig | None = None,
    eval_sets: dict[str, Sequence[Example]] | None = None,
    device: str = "auto",
    callback: ProgressCallback | None = None,
    progress: bool = False,
    name: str | None = None,
    on_phase: PhaseHook | None = None,
) -> RunResult:
    """Plain cross-entropy fine-tune of ``base`` (e.g. to build the demo's baseline classifier)."""
    config = config or TrainConfig(epochs=3, lr=5e-5)
    source = base.source if isinstance(base, LoadedModel) else base
    out, partial = _prepare_output(out_dir, None if isinstance(base, LoadedModel) else base)
    try:
        loaded = (
            base if isinstance(base, LoadedModel) else load_model(base, labels=labels, device=device, seed=config.seed)
        )
        history = train_loop(loaded, train, config, callback=callback, progress=progress)
        sets, totals = cap_sets(dict(eval_sets or {}), config.eval_max_examples, config.seed)
        after = measure_sets(loaded, sets, totals, config, on_phase, "measure_after")
        result = RunResult(
            out_dir=out,
            kind="fine_tune",
            metrics_before=None,
            metrics_after=after,
            history=history,
            meta=_meta(loaded, config, len(train), history, name=name, base_model=str(source)),
        )
        return _finish(loaded, result, partial, out)
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)


def feedback_targets(
    loaded: LoadedModel,
    train: Sequence[Example],
    feedback: FeedbackSet,
    max_length: int,
    on_batch: Progress | None = None,
    task_scope: str = "all",
) -> FeedbackTargets:
    """The word positions the feedback marks in ``train`` (scoped task feedback needs the model's
    predictions); ``task_scope`` scopes every unscoped task feedback
    (:meth:`FeedbackSet.with_task_scope`). XMDError when a label is outside the model's classes or
    nothing matches."""
    if any(ex.label is not None and not 0 <= ex.label < loaded.num_labels for ex in train):
        raise XMDError(f"training labels fall outside the model's {loaded.num_labels} classes")
    feedback = feedback.with_task_scope(task_scope)
    predictions = None
    if any(t.scope != Scope.ALL for t in feedback.task):
        probs = predict_proba(loaded, [ex.text for ex in train], max_length=max_length, on_batch=on_batch)
        predictions = {ex.id: int(p.argmax()) for ex, p in zip(train, probs, strict=True)}
    targets = feedback.expand(list(train), predictions, num_labels=loaded.num_labels)
    if not any(targets.values()):
        raise XMDError("the feedback matches no word in the training data; nothing to retrain")
    return targets


def debug(
    model_dir: str | os.PathLike,
    train: Sequence[Example],
    feedback: FeedbackSet,
    out_dir: str | os.PathLike,
    *,
    config: TrainConfig | None = None,
    er: ERConfig | None = None,
    eval_sets: dict[str, Sequence[Example]] | None = None,
    device: str = "auto",
    callback: ProgressCallback | None = None,
    progress: bool = False,
    share_methods: Sequence[str] = ("grad_x_input", "occlusion"),
    max_share_examples: int = EFFECT_MAX_EXAMPLES,
    name: str | None = None,
    on_phase: PhaseHook | None = None,
    names: tuple[str, str] = ("the parent", "the new version"),
    holdout: dict[str, Any] | None = None,
) -> RunResult:
    """Retrain the user's fine-tuned model at ``model_dir`` with ``L_task + λ·L_ER``.

    The model is loaded from its own weights (never re-initialised), feedback is expanded to word
    positions of ``train``, and metrics and the attribution share of the corrected words are
    measured before and after — the latter with ``share_methods``, which should include one
    method the loss did not optimise (occlusion), since gradients can be silenced while the model
    still uses a word. The shares are means over at most ``max_share_examples`` examples with
    feedback (the cap and each mean's ``n`` are recorded), since occlusion costs one forward pass per word.
    ``on_phase`` hears the progress of each phase outside training and may stop the run; eval sets are
    cut to ``config.eval_max_examples`` (:func:`cap_sets`). ``meta["vs_parent"]`` holds the new version
    against the parent on the same examples (:func:`xmd.core.vs_parent.compare_sets`; ``names`` are
    the two versions as its sentences call them, ``holdout`` describes a held-out eval set).
    """
    from xmd.core.effect import feedback_shares
    from xmd.core.vs_parent import compare_sets

    config = config or TrainConfig()
    er = er or ERConfig()
    out, partial = _prepare_output(out_dir, model_dir)
    try:
        loaded = load_model(model_dir, device=device)
        predicting = on_phase("predict") if on_phase is not None else None
        targets = feedback_targets(loaded, train, feedback, config.max_length, on_batch=predicting)

        def measure(phase: str) -> dict:
            return {
                m: feedback_shares(
                    loaded,
                    train,
                    targets,
                    method=m,
                    max_examples=max_share_examples,
                    max_length=config.max_length,
                    on_batch=on_phase(f"{phase}:{m}") if on_phase is not None else None,
                )
                for m in share_methods
            }

        sets, totals = cap_sets(dict(eval_sets or {}), config.eval_max_examples, config.seed)
        preds_before: dict = {}
        preds_after: dict = {}
        before = measure_sets(loaded, sets, totals, config, on_phase, "measure_before", preds_before)
        shares_before = measure("shares_before")
        if on_phase is not None:  # training starts now (``callback`` first hears of it after one step)
            tick(on_phase("train"), 0, count_steps(len(train), config))
        history = train_loop(loaded, train, config, er=er, targets=targets, callback=callback, progress=progress)
        after = measure_sets(loaded, sets, totals, config, on_phase, "measure_after", preds_after)
        shares_after = measure("shares_after")
        vs = None
        if sets:
            vs = compare_sets(
                sets, preds_before, preds_after, loaded.labels, feedback=feedback, reference=train, names=names,
                holdout=holdout,
            )  # fmt: skip
        result = RunResult(
            out_dir=out,
            kind="debug",
            metrics_before=before,
            metrics_after=after,
            history=history,
            shares_before=shares_before,
            shares_after=shares_after,
            meta=_meta(
                loaded,
                config,
                len(train),
                history,
                name=name,
                er=asdict(er),
                feedback_counts=feedback.counts(),
                parent=_parent_meta(model_dir),
                n_feedback_positions=sum(len(v) for v in targets.values()),
                n_feedback_examples=len(targets),
                effect_measurement={"methods": list(share_methods), "max_examples": max_share_examples},
                vs_parent=vs,
            ),
        )
        result.predictions = {"sets": sets, "before": preds_before, "after": preds_after}
        if on_phase is not None:
            tick(on_phase("save"), 0, 1)
        return _finish(loaded, result, partial, out)
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)
