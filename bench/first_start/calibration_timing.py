"""What the calibration of a project's first explain job times, and what the estimate makes of it, on this device.

``xmd.core.calibrate.time_retrain_work`` runs a few batches of each kind of a retrain's work on a copy of the
model (training without feedback, with feedback on every row, with the erasure term alone, the other precision
where the device computes bf16, graphed steps where a retrain with ``cuda_graphs`` would take them, measuring,
both explanations). This script runs it on the demo model and data and prints, per kind, the seconds and the
seconds per example, the calibration's own wall time, and the training rate the estimate derives at the demo's
feedback share for the default settings, bf16 / float32, and ``cuda_graphs``. On a GPU it is the check that the
graphed kinds are timed there (a CPU never times them: a retrain there takes eager steps). Prints one JSON
document::

    python -m bench.first_start.calibration_timing --device cuda
"""

from __future__ import annotations

import argparse
import time

from xmd.core.calibrate import time_retrain_work
from xmd.core.retrain import ERConfig
from xmd.retrain.plan import calibrated_rates, graphs_priced

from bench.benchlib import (
    demo_train,
    emit,
    environment,
    load_average,
    load_demo_model,
    log,
    resolve_device,
    set_threads,
)

DEMO_SHARE = 0.3
"""The demo's share of training rows with feedback (the planted word's rows)."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--n", type=int, default=512, help="demo training texts the calibration draws from")
    args = ap.parse_args()
    set_threads(args.threads)
    device = resolve_device(args.device)
    load_start = load_average()
    loaded = load_demo_model(device)
    data = demo_train(args.n)
    t0 = time.perf_counter()
    timings = time_retrain_work(loaded, data, on_kind=lambda kind: log(f"timing {kind}"))
    wall = time.perf_counter() - t0
    rates = {t.kind: t.seconds / t.examples for t in timings}
    er = ERConfig()
    asks = {"default": (None, False), "bf16": (True, False), "float32": (False, False), "cuda_graphs": (None, True)}
    priced = {
        name: calibrated_rates(rates, DEMO_SHARE, er, mixed_precision=mp, cuda_graphs=cg).get("train")
        for name, (mp, cg) in asks.items()
    }
    emit(
        {
            "benchmark": "calibration_timing",
            "environment": environment(device, load_start),
            "params": {"n": args.n, "feedback_share": DEMO_SHARE},
            "wall_seconds": wall,
            "timings": [{"kind": t.kind, "examples": t.examples, "seconds": t.seconds} for t in timings],
            "seconds_per_example": rates,
            "graphs_priced": graphs_priced(rates),
            "train_seconds_per_example": priced,
        }
    )


if __name__ == "__main__":
    main()
