"""Does a retrain through CUDA graphs (``TrainConfig.cuda_graphs``) learn what the eager steps learn, and how
much sooner? A GPU check, since graphs exist only there.

Three runs of one short retrain from the same demo model (MiniLM, dropout off so that the runs are
comparable step for step; task-level *remove* of the planted word, ``ERConfig()`` defaults):

- ``eager``: the default eager step (the joint forward on a GPU);
- ``static``: the static step of :mod:`xmd.core.retrain.steps.static`, run eagerly (what each graph records);
- ``graphs``: the same step recorded and replayed.

``graphs`` against ``static`` checks capture and replay (same losses to float rounding); ``static`` against
``eager`` checks that padding and masking change nothing. Prints one JSON document.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import torch
from xmd.core.demo import SHORTCUT_WORD
from xmd.core.feedback import FeedbackSet
from xmd.core.retrain import ERConfig, TrainConfig, train_loop
from xmd.core.retrain.steps import graphed as graphs
from xmd.core.types import Action, TaskFeedback

from bench.benchlib import demo_train, emit, environment, load_average, load_demo_model, log, resolve_device


def run(mode: str, args: argparse.Namespace, device: torch.device) -> dict[str, Any]:
    loaded = load_demo_model(device, seed=args.seed)
    for m in loaded.model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    data = demo_train(args.n, seed=args.seed)
    targets = FeedbackSet(task=[TaskFeedback(word=SHORTCUT_WORD, action=Action.REMOVE)]).expand(data)
    config = TrainConfig(
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=3e-5,
        seed=args.seed,
        mixed_precision=False,
        cuda_graphs=mode != "eager",
    )
    graphs.CAPTURE = mode == "graphs"
    t0 = time.perf_counter()
    history = train_loop(loaded, data, config, er=ERConfig(attribution_every=args.every), targets=targets)
    seconds = time.perf_counter() - t0
    log(f"{mode}: {len(history.steps)} steps in {seconds:.1f} s; graphs {history.graphs}")
    return {
        "seconds": seconds,
        "train_loop_seconds": history.seconds,
        "graphs": history.graphs,
        "losses": [[s.task_loss, s.er_loss] for s in history.steps],
        "weights": torch.cat([p.detach().flatten().float().cpu() for p in loaded.model.parameters()]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--n", type=int, default=512, help="demo training texts")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--every", type=int, default=1, help="ERConfig.attribution_every")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    device = resolve_device(args.device)
    if device.type != "cuda":  # a dry run of the script: the static step eagerly, nothing to capture
        graphs.wanted = lambda config, device: config.cuda_graphs
    load = load_average()
    runs = {mode: run(mode, args, device) for mode in ("eager", "static", "graphs")}

    def gap(a: str, b: str) -> dict[str, float]:
        la, lb = torch.tensor(runs[a]["losses"]), torch.tensor(runs[b]["losses"])
        return {
            "max_loss_diff": float((la - lb).abs().max()),
            "max_rel_loss_diff": float(((la - lb).abs() / lb.abs().clamp(min=1e-6)).max()),
            "max_weight_diff": float((runs[a]["weights"] - runs[b]["weights"]).abs().max()),
        }

    emit(
        {
            "benchmark": "graphs_check",
            "environment": environment(device, load),
            "params": vars(args),
            "runs": {m: {k: v for k, v in r.items() if k != "weights"} for m, r in runs.items()},
            "graphs_vs_static": gap("graphs", "static"),
            "static_vs_eager": gap("static", "eager"),
            "speedup_train_loop": {
                "graphs_vs_eager": runs["eager"]["train_loop_seconds"] / runs["graphs"]["train_loop_seconds"],
                "static_vs_eager": runs["eager"]["train_loop_seconds"] / runs["static"]["train_loop_seconds"],
            },
        }
    )


if __name__ == "__main__":
    main()
