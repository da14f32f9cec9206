"""The demo, end to end, as a library call: a shortcut is planted, found and removed.

1. Write the demo data (a review classifier whose training set over-uses one word).
2. Fine-tune all-MiniLM-L6-v2 on it: the baseline a user would bring.
3. Explain the training set and rank words by suspicion: the planted word comes out on top.
4. Give one task-level *remove* on that word and retrain with ``L_task + λ·L_ER``.
5. Compare: accuracy on the clean and the anti-shortcut test sets, and the planted word's
   attribution share, before and after.

Every step reuses its output when it is already on disk, so a second run is quick.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xmd.core.aggregate import TaskAggregate
from xmd.core.attribution import explain
from xmd.core.data import load_examples
from xmd.core.demo import DEMO_LABELS, SHORTCUT_WORD, write_demo_dataset
from xmd.core.effect import word_share
from xmd.core.feedback import FeedbackSet, save_feedback
from xmd.core.from_data import fine_tune_from
from xmd.core.modeling import load_model, minilm_path
from xmd.core.pipeline import debug
from xmd.core.retrain import ERConfig, ProgressCallback, TrainConfig, TrainHistory
from xmd.core.types import Action, Progress, TaskFeedback, tick

log = logging.getLogger(__name__)

BASELINE_CONFIG = TrainConfig(epochs=2, lr=5e-5, batch_size=32, max_length=64, seed=0)
DEBUG_CONFIG = TrainConfig(epochs=2, lr=3e-5, batch_size=32, max_length=64, seed=0)
# The measured default objective ("both", λ = 1, attribution weight 5; bench/effect_sweep.py), full schedule.
DEBUG_ER = ERConfig()
#: The story's before/after share of the planted word is a mean over at most this many anti-shortcut texts.
STORY_SHARE_EXAMPLES = 128


def demo_data_ready(workdir: Path) -> bool:
    """Whether the demo data is on disk (``labels.json`` is written last, and the folder appears whole)."""
    return (workdir / "data" / "labels.json").exists()


def baseline_ready(workdir: Path) -> bool:
    """Whether the fine-tuned baseline is on disk (``fine_tune`` moves it into place whole)."""
    return (workdir / "models" / "baseline" / "xmd.json").exists()


def prepare_baseline(
    workdir: Path,
    *,
    n_train: int = 2000,
    seed: int = 0,
    device: str = "auto",
    progress: bool = True,
    callback: ProgressCallback | None = None,
    on_phase: Callable[[str], Progress] | None = None,
    base_model: Path | str | None = None,
) -> tuple[Path, dict[str, list]]:
    """Demo data plus the fine-tuned baseline model; reused when already on disk, so a run that was
    stopped half-way redoes only what is missing (each part appears whole or not at all).

    ``callback`` gets every fine-tuning step; ``on_phase(name)`` is told when the ``"data"``, ``"load"``
    and ``"train"`` parts start (only when they run; a hook answering False cancels). ``base_model``: the
    model fine-tuned instead of the bundled all-MiniLM-L6-v2 (``xmd serve --demo --demo-model``; the
    tests use a small random BERT so a first start takes seconds, not minutes).
    """
    data_dir = workdir / "data"
    if not demo_data_ready(workdir):
        tick(on_phase("data") if on_phase else None, 0, 1)
        partial = workdir / ".data.partial"
        shutil.rmtree(partial, ignore_errors=True)
        write_demo_dataset(partial, seed=seed, n_train=n_train)
        shutil.rmtree(data_dir, ignore_errors=True)  # an incomplete folder from an older, interrupted run
        os.replace(partial, data_dir)
    labels = list(DEMO_LABELS)
    sets = {
        name: load_examples(data_dir / f"{name}.jsonl", labels=labels, split=name, id_column="id")
        for name in ("train", "test_clean", "test_anti")
    }
    baseline = workdir / "models" / "baseline"
    if not baseline_ready(workdir):
        for stale in [baseline, *baseline.parent.glob(f".{baseline.name}.partial-*")]:  # left by a killed run
            shutil.rmtree(stale, ignore_errors=True)
        fine_tune_from(
            base_model or minilm_path(),
            sets["train"],
            baseline,
            labels=labels,
            config=BASELINE_CONFIG,
            device=device,
            progress=progress,
            callback=callback,
            on_phase=on_phase,
            name="demo baseline",
        )
    return baseline, sets


def _steps_line(history: TrainHistory) -> str:
    """How long the retrain ran."""
    done = len(history.steps)
    planned = history.steps[-1].total_steps if history.steps else 0
    return f"Retrain: {done} of {planned} steps in {history.seconds:.0f} s"


def run_demo(
    workdir: Path,
    *,
    n_train: int = 2000,
    seed: int = 0,
    device: str = "auto",
    progress: bool = True,
    er: ERConfig | None = None,
    config: TrainConfig | None = None,
) -> dict[str, Any]:
    """Run the story and return a report (also written to ``workdir/report.json``)."""
    workdir.mkdir(parents=True, exist_ok=True)
    baseline, sets = prepare_baseline(workdir, n_train=n_train, seed=seed, device=device, progress=progress)
    model = load_model(baseline, device=device)
    train = sets["train"]
    exps = explain(model, [ex.text for ex in train], max_length=64, progress=progress)
    agg = TaskAggregate(model.num_labels, label_names=model.labels)
    for ex, e in zip(train, exps, strict=True):
        agg.add(ex.id, ex.label, e)
    top = agg.ranking(sort="suspicion", min_count=10, limit=10)
    suspect = top[0].word
    feedback = FeedbackSet(task=[TaskFeedback(word=suspect, action=Action.REMOVE)])
    save_feedback(feedback, workdir / "feedback.json")
    version = 1
    while (workdir / "models" / f"debugged-v{version}").exists():
        version += 1
    out = workdir / "models" / f"debugged-v{version}"
    result = debug(
        baseline,
        train,
        feedback,
        out,
        config=config or DEBUG_CONFIG,
        er=er or DEBUG_ER,
        eval_sets={"test_clean": sets["test_clean"], "test_anti": sets["test_anti"]},
        device=device,
        progress=progress,
        name=f"demo debugged v{version}",
    )
    debugged = load_model(out, device=device)
    share = {
        "before": word_share(model, sets["test_anti"], SHORTCUT_WORD, max_length=64, max_examples=STORY_SHARE_EXAMPLES),
        "after": word_share(
            debugged, sets["test_anti"], SHORTCUT_WORD, max_length=64, max_examples=STORY_SHARE_EXAMPLES
        ),
    }
    b, a = result.metrics_before, result.metrics_after
    lines = [
        f"Most suspicious words: {', '.join(w.word for w in top[:5])}",
        f"Feedback: remove '{suspect}' across the task (planted word: '{SHORTCUT_WORD}')",
        f"Debugged model: {out}",
        _steps_line(result.history),
        f"{'':<12}{'before':>8}{'after':>8}",
        f"{'clean acc':<12}{b['test_clean']['accuracy']:>8.3f}{a['test_clean']['accuracy']:>8.3f}",
        f"{'anti acc':<12}{b['test_anti']['accuracy']:>8.3f}{a['test_anti']['accuracy']:>8.3f}",
        f"{'word share':<12}{share['before']['mean_share']:>8.3f}{share['after']['mean_share']:>8.3f}"
        "  (grad x input, anti-shortcut set)",
    ]
    report = {
        "workdir": str(workdir),
        "baseline": str(baseline),
        "debugged": str(out),
        "top_suspicious": [w.to_dict() for w in top],
        "removed_word": suspect,
        "planted_word": SHORTCUT_WORD,
        "metrics_before": b,
        "metrics_after": a,
        "planted_word_share": share,
        "feedback_shares_before": result.shares_before,
        "feedback_shares_after": result.shares_after,
        "train_seconds": result.history.seconds,
        "train_steps": len(result.history.steps),
        "summary": "\n".join(lines),
    }
    (workdir / "report.json").write_text(json.dumps(report, indent=2, default=str))
    return report
