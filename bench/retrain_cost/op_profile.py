"""Where the ER run's extra time goes, operator by operator: ``torch.profiler`` over whole short runs of
λ = 0 and of the ER default on the same HateXplain posts (``whole_run``'s setup), self CPU time per ATen op.

    python -m bench.retrain_cost.op_profile --n 160 --threads 1 > bench/retrain_cost/results/op_profile.json
"""

from __future__ import annotations

import argparse
import copy
import json
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch
from torch.profiler import ProfilerActivity, profile
from xmd.core.modeling import load_model, minilm_path
from xmd.core.pipeline import feedback_targets
from xmd.core.retrain import ERConfig, RetrainConfig, train_loop
from xmd.core.simulate import feedback_from_words

from bench.benchlib import environment, load_average, set_threads
from bench.real_data import hatexplain as hx
from bench.retrain_cost.whole_run import identity_words, variants

TOP = 25


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=160, help="training posts (one epoch)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--arms", default="lambda0,er_every1")
    args = p.parse_args(argv)
    set_threads(args.threads)
    load_start = load_average()
    every = hx.load_posts(hx.data_dir() / "val.csv")
    examples = [post.example("train") for post in hx.subsample(every, args.n, 0)]
    cfg = RetrainConfig(mixed_precision=False, epochs=1)
    loaded = load_model(minilm_path(), labels=hx.LABELS, device="cpu", seed=0)
    feedback, _ = feedback_from_words(identity_words(every))
    targets = feedback_targets(loaded, examples, feedback, cfg.max_length)
    state = copy.deepcopy(loaded.model.state_dict())
    arms = {}
    for name in args.arms.split(","):
        er, extra = variants(name)
        loaded.model.load_state_dict(state)
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            train_loop(loaded, examples, cfg, er=er, targets=targets if er else None, **extra)
        ops = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)
        arms[name] = {
            "self_cpu_s_total": round(sum(e.self_cpu_time_total for e in ops) / 1e6, 2),
            "ops": [
                {"op": e.key, "self_cpu_s": round(e.self_cpu_time_total / 1e6, 3), "calls": e.count} for e in ops[:TOP]
            ],
        }
    doc = {
        "study": "retrain_cost",
        "params": {"n_train": len(examples), "epochs": 1, "arms": args.arms, "er": ERConfig.__name__},
        "arms": arms,
        "environment": environment(torch.device("cpu"), load_start),
    }
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
