"""Issue 30 §2: how well does the forecast shown before a retrain predict what the retrain achieves?

On the demo (the planted word as task-level *remove*): the forecast (:func:`xmd.core.forecast.forecast`: the
parent predicting each eval set with the word erased, and with as many random words erased) beside what the
debug retrain then achieved over seeds, with λ = 0 and strip, through :func:`xmd.core.controls.run_comparison`.
The same check on HateXplain comes from ``bench/no_harm/candidates.py`` (the parent's forecast is stored with
the candidates' arms).

    python -m bench.effect.forecast_check [--seeds 3]

Writes ``bench/effect/results/forecast_check.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch
from xmd.core.controls import ControlsConfig, run_comparison
from xmd.core.demo import SHORTCUT_WORD
from xmd.core.demo_story import DEBUG_CONFIG, DEBUG_ER, prepare_baseline
from xmd.core.forecast import forecast
from xmd.core.modeling import load_model
from xmd.core.retrain import RetrainConfig

from bench.benchlib import environment, load_average, log
from bench.real_data.real_data import task_feedback

HERE = Path(__file__).resolve().parent
METRICS = ("accuracy", "fpr_words", "fpr_other")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--workdir", default="runs/forecast_check")
    ap.add_argument("--out", default=str(HERE / "results" / "forecast_check.json"))
    args = ap.parse_args(argv)
    load_start = load_average()
    workdir = Path(args.workdir)
    baseline, sets = prepare_baseline(workdir, device="cpu", progress=False)
    evals = {"test_clean": sets["test_clean"], "test_anti": sets["test_anti"]}
    config = RetrainConfig(**{k: getattr(DEBUG_CONFIG, k) for k in ("epochs", "lr", "batch_size", "max_length")})
    loaded = load_model(baseline, device="cpu")
    fc = forecast(loaded, evals, [SHORTCUT_WORD], reference=sets["train"], max_length=config.max_length)
    del loaded
    run_dir = workdir / "arms"
    shutil.rmtree(run_dir, ignore_errors=True)
    t0 = time.perf_counter()
    comparison = run_comparison(
        baseline,
        sets["train"],
        task_feedback([SHORTCUT_WORD]),
        run_dir,
        config=config,
        er=DEBUG_ER,
        eval_sets=evals,
        controls=ControlsConfig(arms=("lambda0", "strip"), seeds=args.seeds, share_methods=("grad_x_input",)),
        device="cpu",
    ).to_dict()
    doc = {
        "question": "how well does the forecast predict the retrain's effect?",
        "word": SHORTCUT_WORD,
        "recipe": {"epochs": config.epochs, "lr": config.lr, "batch_size": config.batch_size},
        "seconds": round(time.perf_counter() - t0, 1),
        "seeds": comparison["seeds"],
        "forecast": fc["sets"],
        "achieved": {
            name: {
                "parent": {m: s["before"].get(m) for m in METRICS},
                "arms": {
                    arm: {m: {"mean": a["mean"].get(m), "std": a["std"].get(m)} for m in METRICS}
                    for arm, a in s["arms"].items()
                },
            }
            for name, s in comparison["sets"].items()
        },
        "environment": environment(torch.device("cpu"), load_start),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
    for name, s in doc["achieved"].items():
        f = doc["forecast"][name]["fpr_words"]
        log(f"{name}: forecast fpr {f} | achieved {s['arms']}")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
