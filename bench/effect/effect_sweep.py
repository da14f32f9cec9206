"""Effect of explanation-regularised retraining on the demo shortcut, across ER settings.

For each setting (objective:lam:loss[:epochs[:attribution_weight]]) and seed, retrain the demo baseline
(all-MiniLM-L6-v2 fine-tuned on the demo data) with one task-level *remove* on the planted word, then record
clean and anti-shortcut accuracy before/after, and the attribution share of the removed word on the corrected
training examples with grad x input (what the UI shows) and occlusion (which no loss optimises).
This is the measurement behind the default ER objective. Prints one JSON document.

    python -m bench.effect.effect_sweep --settings erasure:1:mse both:3:mse attribution:10:mse --seeds 0 1 2
    python -m bench.effect.effect_sweep --objective both --losses mse --lams 0.3 1 3 --seeds 0 1 2

The second form is the loss x λ grid (settings ``objective:lam:loss``). Each run fine-tunes MiniLM for
two epochs, minutes on a CPU: ``--log`` appends every finished run as a JSON line and a rerun with the
same log skips the runs already in it, so an interrupted sweep resumes instead of starting over.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from xmd.core.demo import SHORTCUT_WORD
from xmd.core.demo_story import DEBUG_CONFIG, prepare_baseline
from xmd.core.effect import word_share
from xmd.core.feedback import FeedbackSet
from xmd.core.modeling import load_model
from xmd.core.pipeline import debug
from xmd.core.retrain import ERConfig, TrainConfig
from xmd.core.types import Action, TaskFeedback

from bench.benchlib import environment, load_average, log, read_jsonl, resolve_device


def parse_setting(spec: str) -> tuple[ERConfig, int]:
    parts = spec.split(":")
    if len(parts) not in (3, 4, 5, 6):
        raise SystemExit(
            f"setting {spec!r}: expected objective:lam:loss[:epochs[:attribution_weight[:attribution_every]]]"
        )
    if parts[2] != "mse":  # the loss setting was removed (docs/settings.md): MSE is the attribution term's loss
        raise SystemExit(f"setting {spec!r}: the attribution term's loss is mse (the loss setting was removed)")
    extra = {"attribution_weight": float(parts[4])} if len(parts) >= 5 else {}
    if len(parts) == 6:
        extra["attribution_every"] = int(parts[5])
    er = ERConfig(objective=parts[0], lam=float(parts[1]), **extra)  # checked as it is built
    return er, int(parts[3]) if len(parts) >= 4 else DEBUG_CONFIG.epochs


def run_one(workdir: Path, spec: str, seed: int, device: str) -> dict:
    er, epochs = parse_setting(spec)
    baseline, sets = prepare_baseline(workdir, device=device, progress=False)
    out = workdir / "sweep" / f"{spec.replace(':', '_')}_seed{seed}"
    shutil.rmtree(out, ignore_errors=True)
    config = TrainConfig(**{**DEBUG_CONFIG.__dict__, "epochs": epochs, "seed": seed})
    fb = FeedbackSet(task=[TaskFeedback(word=SHORTCUT_WORD, action=Action.REMOVE)])
    t0 = time.perf_counter()
    res = debug(
        baseline,
        sets["train"],
        fb,
        out,
        config=config,
        er=er,
        eval_sets={"clean": sets["test_clean"], "anti": sets["test_anti"]},
        device=device,
    )
    seconds = time.perf_counter() - t0
    debugged = load_model(out, device=device)
    anti_share = word_share(debugged, sets["test_anti"], SHORTCUT_WORD, max_length=config.max_length)
    shutil.rmtree(out, ignore_errors=True)  # keep the disk small; the numbers are what matter
    b, a = res.metrics_before, res.metrics_after
    sb, sa = res.shares_before, res.shares_after
    return {
        "setting": spec,
        "seed": seed,
        "seconds": seconds,
        "clean_before": b["clean"]["accuracy"],
        "clean_after": a["clean"]["accuracy"],
        "anti_before": b["anti"]["accuracy"],
        "anti_after": a["anti"]["accuracy"],
        "share_gxi_before": sb["grad_x_input"]["remove"]["mean_share"],
        "share_gxi_after": sa["grad_x_input"]["remove"]["mean_share"],
        "share_occlusion_before": sb["occlusion"]["remove"]["mean_share"],
        "share_occlusion_after": sa["occlusion"]["remove"]["mean_share"],
        "anti_share_gxi_after": anti_share["mean_share"],
    }


# Per-run quantities summarised as they are (accuracies in [0, 1], shares in [0, 1]).
RAW = (
    "clean_before",
    "clean_after",
    "anti_before",
    "anti_after",
    "share_gxi_before",
    "share_gxi_after",
    "share_occlusion_before",
    "share_occlusion_after",
    "anti_share_gxi_after",
    "seconds",
)


def summarise(runs: list[dict]) -> dict[str, dict]:
    """Mean and standard deviation per setting of the quantities the acceptance test checks."""
    out: dict[str, dict] = {}
    for spec in dict.fromkeys(r["setting"] for r in runs):
        rs = [r for r in runs if r["setting"] == spec]
        derived = {
            **{k: [r[k] for r in rs] for k in RAW},
            "clean_drop_points": [100 * (r["clean_before"] - r["clean_after"]) for r in rs],
            "anti_gain_points": [100 * (r["anti_after"] - r["anti_before"]) for r in rs],
            "share_gxi_drop_pct": [100 * (1 - r["share_gxi_after"] / r["share_gxi_before"]) for r in rs],
            "share_occlusion_drop_pct": [
                100 * (1 - r["share_occlusion_after"] / r["share_occlusion_before"]) for r in rs
            ],
        }
        out[spec] = {
            k: {"mean": statistics.fmean(v), "std": statistics.pstdev(v) if len(v) > 1 else 0.0, "n": len(v)}
            for k, v in derived.items()
        }
        out[spec]["meets_acceptance"] = all(
            c <= 2 and g >= 25 and s >= 80
            for c, g, s in zip(
                derived["clean_drop_points"], derived["anti_gain_points"], derived["share_gxi_drop_pct"], strict=True
            )
        )
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--settings",
        nargs="+",
        default=None,
        help="objective:lam:loss[:epochs[:attribution_weight[:attribution_every]]]",
    )
    p.add_argument("--objective", default="both", help="grid form: the ER objective of every setting")
    p.add_argument("--losses", nargs="+", default=None, help="grid form: ER losses (mse: the loss setting was removed)")
    p.add_argument("--lams", nargs="+", default=None, help="grid form: values of λ")
    p.add_argument("--seeds", nargs="+", type=int, default=[0])
    p.add_argument("--workdir", default="runs/bench-demo", help="demo data and baseline are cached here")
    p.add_argument("--device", default="auto")
    p.add_argument("--log", type=Path, default=None, help="append each run as a JSON line; skip runs found there")
    p.add_argument(
        "--time-budget-s",
        type=float,
        default=None,
        help="start no run that would end past this many seconds (judged by the runs so far); left-out runs are listed",
    )
    args = p.parse_args()
    if args.losses or args.lams:
        if args.settings:
            p.error("give either --settings or the grid (--losses / --lams), not both")
        settings = [f"{args.objective}:{lam}:{loss}" for loss in args.losses or ["mse"] for lam in args.lams or ["1"]]
        grid = {"objective": args.objective, "losses": args.losses or ["mse"], "lams": args.lams or ["1"]}
    else:
        settings = args.settings or ["erasure:1:mse", "attribution:10:mse", "both:3:mse"]
        grid = None
    loadavg_start = load_average()
    done = {(r["setting"], r["seed"]): r for r in read_jsonl(args.log)}
    runs = []
    skipped: list[dict] = []
    walls: list[float] = []  # wall time of each run started here (retraining plus its evaluations)
    t_start = time.perf_counter()
    # Seed-major: every setting gets seed 0 before any gets seed 1, so a sweep cut short still covers the grid.
    for seed in args.seeds:
        for spec in settings:
            if (spec, seed) in done:
                log(f"{spec} seed {seed}: from {args.log}")
                runs.append(done[(spec, seed)])
                continue
            expected = statistics.fmean(walls) if walls else 0.0
            if args.time_budget_s is not None and time.perf_counter() - t_start + expected > args.time_budget_s:
                skipped.append({"setting": spec, "seed": seed})
                continue
            t_run = time.perf_counter()
            r = run_one(Path(args.workdir), spec, seed, args.device)
            walls.append(time.perf_counter() - t_run)
            r["loadavg_end"] = load_average()
            print(json.dumps(r), file=sys.stderr, flush=True)
            if args.log is not None:
                args.log.parent.mkdir(parents=True, exist_ok=True)
                with args.log.open("a") as fh:
                    fh.write(json.dumps(r) + "\n")
            runs.append(r)
    print(
        json.dumps(
            {
                "benchmark": "effect_sweep",
                "environment": environment(resolve_device(args.device), loadavg_start),
                "params": {
                    "settings": settings,
                    "grid": grid,
                    "seeds": args.seeds,
                    "train": DEBUG_CONFIG.__dict__,
                    "feedback": f"task-level remove '{SHORTCUT_WORD}'",
                    "time_budget_s": args.time_budget_s,
                    "retrain_seconds_total": sum(r["seconds"] for r in runs),
                    "complete": not skipped,
                    "not_run": skipped,
                },
                "runs": runs,
                "summary": summarise(runs),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
