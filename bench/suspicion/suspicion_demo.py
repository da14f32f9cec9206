"""Which words does the *suspicious* flag pick on the demo? Prints one JSON document.

The demo's training set plants one shortcut (``spielberg``, always positive). A fine-tuned model is
explained on the training set (the demo's baseline, fine-tuned here unless ``--workdir`` already
holds it), and the words are ranked and flagged by the core's rule (:func:`is_suspicious`). Reported:
the flagged words, where the planted word ranks, and how many of the top 50 words the flag tags,
next to the previous rule (skew >= 0.5, count >= 3, importance >= 0.05) on the same numbers.

Control: the same explanations with the labels shuffled (``--seeds`` permutations). The label skew
is then chance alone, so the flag must (nearly) never fire; the count of false flags is reported.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from xmd.core.aggregate import TaskAggregate
from xmd.core.attribution import explain
from xmd.core.demo import SHORTCUT_WORD
from xmd.core.demo_story import prepare_baseline
from xmd.core.modeling import load_model
from xmd.core.suspicion import SUSPICIOUS_LEAN, SUSPICIOUS_Q, WordStats

from bench.benchlib import emit, environment, load_average, log, resolve_device, set_threads


def old_rule(ws: WordStats) -> bool:
    """The rule this replaced, for comparison on the same numbers."""
    return ws.skew >= 0.5 and ws.count >= 3 and ws.mean_importance >= 0.05


def summary(agg: TaskAggregate, top: int) -> dict:
    t0 = time.perf_counter()
    words = agg.ranking(sort="suspicion", limit=agg.n_words)
    seconds = time.perf_counter() - t0
    flagged = [w for w in words if w.suspicious]
    by_importance = agg.ranking(sort="importance", limit=top)
    rank = next((i + 1 for i, w in enumerate(words) if w.word == SHORTCUT_WORD), None)
    return {
        "n_words": agg.n_words,
        "ranking_seconds_all_words": round(seconds, 4),
        "flagged": [
            {
                "word": w.word,
                "count": w.count,
                "q_value": w.q_value,
                "lean": round(w.lean, 2),
                "skew": round(w.skew, 3),
                "suspicion": round(w.suspicion, 4),
            }
            for w in flagged
        ],
        "planted_rank_by_suspicion": rank,
        "planted_flagged": any(w.word == SHORTCUT_WORD for w in flagged),
        f"top{top}_by_importance_flagged_new": sum(w.suspicious for w in by_importance),
        f"top{top}_by_importance_flagged_old": sum(old_rule(w) for w in by_importance),
        "top10_by_suspicion": [
            {"word": w.word, "q_value": w.q_value, "lean": round(w.lean, 2), "suspicious": w.suspicious}
            for w in words[:10]
        ],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, default=Path("runs/bench-suspicion"))
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seeds", type=int, default=5, help="label permutations for the control")
    ap.add_argument("--top", type=int, default=50)
    args = ap.parse_args()
    set_threads(args.threads)
    device = resolve_device(args.device)
    load0 = load_average()
    baseline, sets = prepare_baseline(args.workdir, n_train=args.n_train, device=str(device), progress=False)
    model = load_model(baseline, device=str(device))
    train = sets["train"]
    log(f"explaining {len(train)} training examples")
    exps = explain(model, [ex.text for ex in train], max_length=64, progress=False)
    agg = TaskAggregate(model.num_labels, label_names=model.labels)
    for ex, e in zip(train, exps, strict=True):
        agg.add(ex.id, ex.label, e)
    controls = []
    for seed in range(args.seeds):
        labels = [ex.label for ex in train]
        random.Random(seed).shuffle(labels)
        shuffled = TaskAggregate(model.num_labels, label_names=model.labels)
        for ex, lab, e in zip(train, labels, exps, strict=True):
            shuffled.add(ex.id, lab, e)
        s = summary(shuffled, args.top)
        controls.append({"seed": seed, "n_flagged": len(s["flagged"]), "flagged": [w["word"] for w in s["flagged"]]})
    emit(
        {
            "benchmark": "suspicion_demo",
            "rule": {"q": SUSPICIOUS_Q, "lean": SUSPICIOUS_LEAN, "skew": 0.5},
            "planted_word": SHORTCUT_WORD,
            "demo": summary(agg, args.top),
            "control_shuffled_labels": controls,
            "environment": environment(device, load0),
        }
    )


if __name__ == "__main__":
    main()
