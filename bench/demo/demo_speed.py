"""Wall-clock time of the demo story (``xmd demo``) per phase, and whether the effect held.

Runs :func:`xmd.core.demo_story.run_demo` in a fresh work directory (or reuses the baseline of
``--baseline-from`` so that several seeds share one fine-tuned model) and times every phase by
wrapping the functions the story calls: the baseline fine-tune, explaining the training set, and,
inside ``pipeline.debug``, the predictions for scoped feedback, the evaluation before/after, the
effect measurement before/after and the retrain itself (``train_loop``). Prints one JSON document:
phases in seconds, optimiser steps and seconds/step of the retrain, clean and anti-shortcut accuracy
before/after, the removed word's share, load average at start and end, and the targets (retrain
≤ 120 s, whole story ≤ 300 s, anti-shortcut accuracy ≥ 0.95) each with ``met``.

Usage: ``python -m bench.demo.demo_speed --seed 0 > bench/demo/results/demo_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import benchlib  # sets the offline environment before transformers is imported


class PhaseTimer:
    """Accumulates wall-clock seconds per phase name around wrapped calls."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.stack: list[str] = []

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` timed under ``name``; a ``debug.*`` phase called outside ``debug`` (the baseline's
        ``fine_tune`` also runs ``train_loop``) is counted as ``baseline.*``, not as the retrain's."""

        def timed(*args: Any, **kwargs: Any) -> Any:
            key = name
            if key.startswith("debug.") and "debug" not in self.stack:
                key = "baseline." + key.removeprefix("debug.")
            t0, c0 = time.perf_counter(), time.process_time()
            self.stack.append(key)
            try:
                return fn(*args, **kwargs)
            finally:
                self.stack.pop()
                self.seconds[key] = self.seconds.get(key, 0.0) + time.perf_counter() - t0
                self.cpu_seconds[key] = self.cpu_seconds.get(key, 0.0) + time.process_time() - c0
                self.calls[key] = self.calls.get(key, 0) + 1

        return timed


def _truncate(train_loop: Callable[..., Any], max_steps: int) -> Callable[..., Any]:
    """``train_loop`` that stops after ``max_steps`` optimiser steps and returns the partial history.

    For the phase profile of a job whose full retrain does not fit the time at hand: the other
    phases run in full and the retrain's time is extrapolated from its measured step rate.
    """
    from xmd.core.retrain import TrainHistory, TrainingCancelled

    def run(*args: Any, **kwargs: Any) -> Any:
        seen: list[Any] = []

        def stop(info: Any) -> bool:
            seen.append(info)
            return len(seen) < max_steps

        t0 = time.perf_counter()
        try:
            return train_loop(*args, **{**kwargs, "callback": stop})
        except TrainingCancelled:
            return TrainHistory(steps=seen, seconds=time.perf_counter() - t0)

    return run


def _patch(timer: PhaseTimer, max_train_steps: int | None = None) -> None:
    """Wrap the functions the story and ``pipeline.debug`` call, where they look them up."""
    from xmd.core import demo_story, effect, pipeline

    if max_train_steps:
        pipeline.train_loop = _truncate(pipeline.train_loop, max_train_steps)

    # the fine-tune is timed as "fine_tune", the phase's name in the results before the story called fine_tune_from
    demo_story.fine_tune_from = timer.wrap("fine_tune", demo_story.fine_tune_from)
    for name in ("explain", "debug", "word_share", "prepare_baseline"):
        setattr(demo_story, name, timer.wrap(name, getattr(demo_story, name)))
    for name in ("evaluate_sets", "train_loop", "predict_proba", "_finish"):
        setattr(pipeline, name, timer.wrap(f"debug.{name}", getattr(pipeline, name)))
    effect.feedback_shares = timer.wrap("debug.feedback_shares", effect.feedback_shares)


def padding(max_length: int = 64, epochs: int = 2) -> dict[str, Any]:
    """Tokens per epoch the demo retrain feeds, by batching (no timing: counted from the batches)."""
    import torch
    from transformers import AutoTokenizer
    from xmd.core.modeling import minilm_path
    from xmd.core.retrain import batch_order

    tok = AutoTokenizer.from_pretrained(minilm_path())
    texts = [ex.text for ex in benchlib.demo_train(2000)]
    lengths = [len(x) for x in tok(texts, truncation=True, max_length=max_length)["input_ids"]]
    out: dict[str, Any] = {
        "n_texts": len(texts),
        "max_length": max_length,
        "mean_tokens": sum(lengths) / len(lengths),
        "max_tokens": max(lengths),
        "real_tokens": sum(lengths),
        "padded_to_max_length": len(texts) * max_length,
    }
    for bs in (16, 32):
        for mode in ("random", "bucketed"):
            total = 0
            for epoch in range(epochs):
                gen = torch.Generator().manual_seed(epoch)
                order = batch_order(len(texts), bs, gen, lengths if mode == "bucketed" else None)
                total += sum(len(b) * max(lengths[i] for i in b) for b in order)
            out[f"batch{bs}_{mode}"] = total / epochs
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--padding", action="store_true", help="only count padded tokens per epoch (no training)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the retrain (batch order, dropout)")
    ap.add_argument("--data-seed", type=int, default=0, help="seed of the demo data and the baseline")
    ap.add_argument("--workdir", type=Path, default=None, help="work directory (default: a fresh temp dir)")
    ap.add_argument("--baseline-from", type=Path, default=None, help="copy data/ and models/baseline from here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary work directory")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--er", default=None, help="ERConfig fields as JSON (default: the demo's DEBUG_ER)")
    ap.add_argument("--train", default=None, help="TrainConfig fields of the retrain as JSON (over DEBUG_CONFIG)")
    ap.add_argument(
        "--max-train-steps",
        type=int,
        default=None,
        help="stop the retrain after this many steps and extrapolate its time (phase profile only)",
    )
    ap.add_argument(
        "--static-step",
        action="store_true",
        help="retrain through cuda_graphs' static step run eagerly, on any device (its effect checked on a CPU)",
    )
    args = ap.parse_args()
    if args.static_step:
        from xmd.core.retrain.steps import graphed as graphs

        graphs.CAPTURE = False
        graphs.wanted = lambda config, device: config.cuda_graphs
        args.train = json.dumps({**json.loads(args.train or "{}"), "cuda_graphs": True})
    if args.padding:
        benchlib.emit({"benchmark": "demo_padding", "padding": padding()})
        return

    import torch

    benchlib.set_threads(args.threads)
    device = benchlib.resolve_device(args.device)
    load_start = benchlib.load_average()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="xmd-demo-speed-"))
    if args.baseline_from is not None:
        shutil.copytree(args.baseline_from / "data", workdir / "data", dirs_exist_ok=True)
        shutil.copytree(args.baseline_from / "models" / "baseline", workdir / "models" / "baseline", dirs_exist_ok=True)

    timer = PhaseTimer()
    _patch(timer, args.max_train_steps)
    from dataclasses import replace

    from xmd.core import demo_story

    config = replace(demo_story.DEBUG_CONFIG, seed=args.seed, **json.loads(args.train or "{}"))
    er = None
    if args.er:
        from xmd.core.retrain import ERConfig

        er = ERConfig(**__import__("json").loads(args.er))
    t0 = time.perf_counter()
    report = demo_story.run_demo(workdir, seed=args.data_seed, device=str(device), progress=False, config=config, er=er)
    total = time.perf_counter() - t0
    meta = __import__("json").loads((Path(report["debugged"]) / "xmd.json").read_text())
    steps = meta["history"]["steps"]
    train_s = timer.seconds.get("debug.train_loop", 0.0)
    b, a = report["metrics_before"], report["metrics_after"]
    retrain_s = timer.seconds.get("debug", 0.0)
    result = {
        "benchmark": "demo_speed",
        "env": benchlib.environment(device, load_start),
        "params": {
            "seed": args.seed,
            "data_seed": args.data_seed,
            "baseline_reused": args.baseline_from is not None,
            "debug_config": meta.get("train"),
            "er": meta.get("er"),
            "torch_threads": torch.get_num_threads(),
        },
        "seconds": {"total": total, **timer.seconds},
        "cpu_seconds": timer.cpu_seconds,
        "calls": timer.calls,
        "retrain": {
            "seconds": retrain_s,
            "train_loop_seconds": train_s,
            "steps": len(steps),
            "total_steps": steps[-1]["total_steps"] if steps else None,
            "seconds_per_step": train_s / len(steps) if steps else None,
            "truncated_at": args.max_train_steps,
            "gate": meta["history"].get("gate"),  # ERConfig.attribution_gate: batches with the term
            "graphs": meta["history"].get("graphs"),  # TrainConfig.cuda_graphs: graphs recorded, replays
            "train_loop_seconds_extrapolated": (
                train_s / len(steps) * steps[-1]["total_steps"] if steps and args.max_train_steps else None
            ),
            "early_stop": meta["history"].get("early_stop"),
        },
        "metrics": {
            "clean_before": b["test_clean"]["accuracy"],
            "clean_after": a["test_clean"]["accuracy"],
            "anti_before": b["test_anti"]["accuracy"],
            "anti_after": a["test_anti"]["accuracy"],
            "planted_word_share": report["planted_word_share"],
            "feedback_shares_before": report["feedback_shares_before"],
            "feedback_shares_after": report["feedback_shares_after"],
        },
        "targets": {
            "retrain_seconds": benchlib.check_target(retrain_s, "<=", 120.0),
            "story_seconds": benchlib.check_target(total if args.baseline_from is None else None, "<=", 300.0),
            "anti_after": benchlib.check_target(a["test_anti"]["accuracy"], ">=", 0.95),
        },
        "workdir": str(workdir) if (args.keep or args.workdir) else None,
    }
    if args.workdir is None and not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    benchlib.emit(result)


if __name__ == "__main__":
    main()
