"""Where an ER training step spends its time: ``torch.profiler`` over ``train_loop`` steps, per phase.

Why: on a GPU the ER step is bound by the host issuing kernels, not by arithmetic (``er_overhead.py``), so
the lever is in *which* part launches what. ``train_loop`` marks its phases (``xmd.forward_and_loss``,
``xmd.backward``, ``xmd.optimizer``) with ``torch.profiler.record_function``; this script runs the same fixed
batch as ``er_overhead.py`` for each variant and reports, per phase and timed step, the host (CPU) time,
the device time of the kernels launched inside it, and the number of kernel launches, plus the ops with
the most self host time. The profiler's own overhead inflates the host times, so compare variants and
phases with each other here, and take step times from ``er_overhead.py``. Prints one JSON document::

    python -m bench.er_speed.er_profile --device cuda --variants plain both_split both_joint
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any
from unittest import mock

import torch
from torch.profiler import ProfilerActivity, profile
from xmd.core.retrain import TrainConfig
from xmd.core.retrain import loop as training

from bench.benchlib import emit, environment, load_average, load_demo_model, log, resolve_device, set_threads
from bench.er_speed.er_overhead import TRAIN_BASE, TRAIN_OVERRIDES, VARIANTS, fixed_batch

PHASES = ("xmd.forward_and_loss", "xmd.backward", "xmd.optimizer")
LAUNCHES = ("cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernelEx")


def _device_us(evt: Any) -> float:
    """Device time of an event (the attribute's name changed across torch versions)."""
    return float(getattr(evt, "device_time_total", None) or getattr(evt, "cuda_time_total", 0.0) or 0.0)


def _foreach_adamw(params: list[dict], lr: float, device: torch.device) -> torch.optim.AdamW:
    """torch's default AdamW (the foreach loop): what ``train_loop`` used before the fused kernel."""
    return torch.optim.AdamW(params, lr=lr)


def profile_variant(name: str, args: argparse.Namespace, device: torch.device) -> dict[str, Any]:
    if name.endswith("@foreach"):
        with mock.patch.object(training, "adamw", _foreach_adamw):
            out = profile_variant(name.removesuffix("@foreach"), args, device)
        return {**out, "variant": name}
    loaded = load_demo_model(device, seed=args.seed)
    batch, targets = fixed_batch(args.batch_size, args.feedback_share, args.seed)
    er = VARIANTS[name]
    er = dataclasses.replace(er, lam=1.0) if er is not None else None
    config = TrainConfig(  # float32 unless the variant asks for bf16, as er_overhead.py's
        epochs=args.warmup,
        batch_size=args.batch_size,
        max_length=args.max_length,
        seed=args.seed,
        **{**TRAIN_BASE, **TRAIN_OVERRIDES.get(name, {})},
    )
    training.train_loop(loaded, batch, config, er=er, targets=targets if er else None)  # warm-up
    config = dataclasses.replace(config, epochs=args.n)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with profile(activities=activities) as prof:
        history = training.train_loop(loaded, batch, config, er=er, targets=targets if er else None)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
    n = len(history.steps)
    events = prof.key_averages()
    by_key = {e.key: e for e in events}
    phases = {}
    for ph in PHASES:
        e = by_key.get(ph)
        if e is not None:
            phases[ph] = {
                "host_ms_per_step": e.cpu_time_total / 1000 / n,
                "device_ms_per_step": _device_us(e) / 1000 / n,
            }
    launches = sum(by_key[k].count for k in LAUNCHES if k in by_key) / n
    top = sorted(
        (e for e in events if not e.key.startswith("xmd.") and not e.key.startswith("ProfilerStep")),
        key=lambda e: e.self_cpu_time_total,
        reverse=True,
    )[: args.top]
    # Per phase, the launches inside it: the profiler's event tree (each launch's ancestors).
    per_phase_launches: dict[str, int] = dict.fromkeys(PHASES, 0)
    for evt in prof.events():
        if evt.name not in LAUNCHES:
            continue
        parent = evt.cpu_parent
        while parent is not None and parent.name not in PHASES:
            parent = parent.cpu_parent
        if parent is not None:
            per_phase_launches[parent.name] += 1
    for ph, count in per_phase_launches.items():
        if ph in phases:
            phases[ph]["kernel_launches_per_step"] = count / n
    return {
        "variant": name,
        "steps": n,
        "wall_ms_per_step": history.seconds * 1000 / n,
        "kernel_launches_per_step": launches,
        "phases": phases,
        "top_self_host_ops": [
            {
                "op": e.key,
                "calls_per_step": e.count / n,
                "self_host_ms_per_step": e.self_cpu_time_total / 1000 / n,
                "device_ms_per_step": _device_us(e) / 1000 / n,
            }
            for e in top
        ],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--variants",
        nargs="+",
        choices=[*VARIANTS, *(f"{v}@foreach" for v in VARIANTS)],
        default=["plain", "both_split", "both_joint"],
        help="NAME@foreach: the same with torch's foreach AdamW instead of train_loop's (fused where it exists)",
    )
    ap.add_argument("--n", type=int, default=6, help="profiled steps per variant")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--feedback-share", type=float, default=0.5)
    ap.add_argument("--top", type=int, default=12, help="ops with the most self host time, per variant")
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    set_threads(args.threads)
    device = resolve_device(args.device)
    start = load_average()
    results = {}
    for name in args.variants:
        log(f"profiling {name}")
        results[name] = r = profile_variant(name, args, device)
        log(f"  {r['wall_ms_per_step']:.1f} ms/step, {r['kernel_launches_per_step']:.0f} launches")
    emit(
        {
            "benchmark": "er_profile",
            "environment": environment(device, start),
            "params": {
                k: getattr(args, k) for k in ("n", "warmup", "batch_size", "max_length", "feedback_share", "seed")
            },
            "results": results,
        }
    )


if __name__ == "__main__":
    main()
