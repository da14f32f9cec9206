"""Issue 33 §4: what a whole ER retrain costs against λ = 0, and where the difference goes.

A whole retrain, not one step: HateXplain's validation posts (``bench/real_data/hatexplain.py``), 25 identity
words as task-level *remove* (scope all), the retrain defaults (:class:`RetrainConfig`: 2 epochs, batch 32,
max length 128, length bucketing; float32), every arm from the same weights (all-MiniLM-L6-v2 with a fresh
head drawn from seed 0: the ratio is what is measured, not accuracy). The arms run one after the other in ONE
process, in the order given (``--order``, e.g. ``lambda0,er,er,lambda0``, so a drift in the shared machine's
load falls on both), and each records its wall and CPU seconds and the load average around it.

``--profile`` runs each arm once more under cProfile and keeps, per arm, the cumulative seconds of the
functions a step is made of (``PHASES``); ``--batches`` records each batch's width, feedback rows and time.

    python -m bench.retrain_cost.whole_run --order lambda0,er,er,lambda0 > bench/retrain_cost/results/x.json
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import json
import os
import pstats
import resource
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch
from xmd.core.modeling import load_model, minilm_path, seed_everything
from xmd.core.pipeline import feedback_targets
from xmd.core.retrain import ERConfig, RetrainConfig, train_loop
from xmd.core.simulate import feedback_from_words

from bench.benchlib import environment, load_average, log, set_threads
from bench.real_data import hatexplain as hx

HERE = Path(__file__).resolve().parent
WORDS_FILE = HERE.parent / "real_data" / "data" / "hatexplain_identity_words.txt"
#: ``white`` alone marks a sixth of the posts; without it the 25 most frequent words reach about a third of
#: them, the share of the run the issue timed (624 of 1,914).
LEFT_OUT = ("white",)
N_WORDS = 25

#: (label, file suffix, function name) of the cProfile rows kept: the parts a training step is made of.
PHASES = (
    ("encode the batch", "words.py", "encode"),
    ("feedback tensors", "batching.py", "feedback_tensors"),
    ("attribution forward (create_graph)", "attribution.py", "gradient_word_scores"),
    ("plain forward of the other rows", "eager.py", "with_rest"),
    ("plain forward (λ = 0)", "modeling_bert.py", "forward"),
    ("erased copies (no grad)", "base.py", "erased_copies"),
    ("ER terms", "base.py", "er_term"),
    ("backward", "_tensor.py", "backward"),
    ("clip", "clip_grad.py", "clip_grad_norm_"),
    ("AdamW", "adamw.py", "adamw"),
    ("train_loop", "loop.py", "train_loop"),
)


def identity_words(posts: list[hx.Post]) -> list[str]:
    """The ``N_WORDS`` identity words that occur in most posts (``LEFT_OUT`` aside)."""
    words = [w.strip() for w in WORDS_FILE.read_text().splitlines() if w.strip() and w.strip() not in LEFT_OUT]
    counts = Counter(k for p in posts for k in hx.post_keys(p.text) & set(words))
    return [w for w, _ in counts.most_common(N_WORDS)]


def variants(name: str) -> tuple[ERConfig | None, dict[str, Any]]:
    """An arm's ER config (None: λ = 0) and extra ``train_loop`` keywords."""
    if name == "lambda0":
        return None, {}
    if name == "er":
        return ERConfig(), {}
    if name == "er_erasure":
        return ERConfig(objective="erasure"), {}
    if name == "er_joint":
        return ERConfig(), {"joint": True}
    if name.startswith("er_rows"):
        return ERConfig(attribution_rows=int(name.removeprefix("er_rows"))), {}
    if name == "er_allrows":
        return ERConfig(attribution_rows=0), {}
    if name.startswith("er_every"):
        # every feedback row, as when these arms were run (attribution_rows was 0 then)
        return ERConfig(attribution_every=int(name.removeprefix("er_every")), attribution_rows=0), {}
    raise SystemExit(f"unknown arm {name!r}")


def profile_rows(prof: cProfile.Profile) -> dict[str, float]:
    """Cumulative seconds of each ``PHASES`` function (summed over same-named functions of that file)."""
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    out: dict[str, float] = {}
    for label, suffix, fn in PHASES:
        total = sum(v[3] for (f, _, n), v in stats.items() if n == fn and f.endswith(suffix))
        out[label] = round(total, 2)
    # A model forward inside the steps' own functions is counted there; "plain forward" keeps the outermost
    # BertForSequenceClassification calls only, which cProfile cannot tell apart: reported as is.
    return out


def batch_recorder(loaded, examples, targets, cfg, rows_out: list[dict]):
    """A batch hook recording each batch's padded width, rows with feedback and the time since the last one."""
    by_id = {ex.id: ex for ex in examples}
    last = [time.perf_counter()]

    def hook(epoch: int, bi: int, ids: list[str]) -> None:
        now = time.perf_counter()
        if rows_out:
            rows_out[-1]["s"] = round(now - last[0], 4)
        last[0] = now
        lens = [
            len(loaded.tokenizer(by_id[i].text, truncation=True, max_length=cfg.max_length)["input_ids"]) for i in ids
        ]
        fb = [lens[k] for k, i in enumerate(ids) if targets.get(i)]
        rows_out.append({"width": max(lens), "tokens": sum(lens), "fb_rows": len(fb), "fb_width": max(fb, default=0)})

    return hook


def run_arm(name: str, loaded, state: dict, examples, targets, cfg, profile: bool, batches: bool) -> dict[str, Any]:
    """One whole training run of arm ``name`` from ``state``; its seconds, load and (optionally) profile."""
    er, extra = variants(name)
    loaded.model.load_state_dict(state)
    seed_everything(cfg.seed)
    rows: list[dict] = []
    hook = batch_recorder(loaded, examples, targets, cfg, rows) if batches else None
    load0 = load_average()
    prof = cProfile.Profile() if profile else None
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    c0, t0 = time.process_time(), time.perf_counter()
    if prof is not None:
        prof.enable()
    history = train_loop(loaded, examples, cfg, er=er, targets=targets if er else None, batch_hook=hook, **extra)
    if prof is not None:
        prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    if rows:
        rows[-1]["s"] = round(time.perf_counter() - t0 - sum(r.get("s", 0) for r in rows[:-1]), 4)
    out: dict[str, Any] = {
        "arm": name,
        "profiled": profile,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "train_s": round(history.seconds, 2),
        "user_s": round(r1.ru_utime - r0.ru_utime, 2),
        "sys_s": round(r1.ru_stime - r0.ru_stime, 2),
        "minor_faults": r1.ru_minflt - r0.ru_minflt,
        "involuntary_switches": r1.ru_nivcsw - r0.ru_nivcsw,
        "steps": len(history.steps),
        "final_loss": round(history.steps[-1].loss, 4),
        "er_loss_last": round(history.steps[-1].er_loss, 5),
        "load_before": load0,
        "load_after": load_average(),
    }
    if prof is not None:
        out["phases_s"] = profile_rows(prof)
    if rows:
        out["batches"] = rows
    log(f"{name}: {out['wall_s']} s wall, {out['cpu_s']} s CPU, {out['steps']} steps, load {out['load_after']}")
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--order", default="lambda0,er,er,lambda0", help="arms, comma-separated, run in this order")
    p.add_argument("--n", type=int, default=1914, help="training posts (a seeded stratified subsample of val.csv)")
    p.add_argument("--epochs", type=int, default=None, help="default: RetrainConfig's")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--profile", action="store_true", help="run every arm under cProfile (slower; the phases)")
    p.add_argument("--batches", action="store_true", help="record every batch's width, feedback rows and seconds")
    p.add_argument("--note", default=None)
    p.add_argument("--log", type=Path, default=None, help="append each finished arm here as a JSON line")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    set_threads(args.threads)
    load_start = load_average()
    posts = hx.subsample(hx.load_posts(hx.data_dir() / "val.csv"), args.n, 0)
    examples = [p.example("train") for p in posts]
    words = identity_words(posts)
    cfg = RetrainConfig(mixed_precision=False, **({"epochs": args.epochs} if args.epochs else {}))
    seed_everything(0)
    loaded = load_model(minilm_path(), labels=hx.LABELS, device="cpu", seed=0)
    feedback, _ = feedback_from_words(words)
    targets = feedback_targets(loaded, examples, feedback, cfg.max_length)
    state = copy.deepcopy(loaded.model.state_dict())
    arms = []
    for name in args.order.split(","):
        arms.append(run_arm(name, loaded, state, examples, targets, cfg, args.profile, args.batches))
        if args.log is not None:
            with args.log.open("a") as f:
                f.write(json.dumps({k: v for k, v in arms[-1].items() if k != "batches"}) + "\n")
    by: dict[str, list[float]] = {}
    for a in arms:
        by.setdefault(a["arm"], []).append(a["wall_s"])
    mean = {k: sum(v) / len(v) for k, v in by.items()}
    cpu: dict[str, list[float]] = {}
    for a in arms:
        cpu.setdefault(a["arm"], []).append(a["cpu_s"])
    base, base_cpu = mean.get("lambda0"), sum(cpu.get("lambda0", [0])) / max(len(cpu.get("lambda0", [])), 1)
    doc = {
        "study": "retrain_cost",
        "params": {
            "n_train": len(examples),
            "n_feedback_examples": sum(1 for v in targets.values() if v),
            "n_feedback_positions": sum(len(v) for v in targets.values()),
            "words": words,
            "config": {k: v for k, v in cfg.__dict__.items()},
            "order": args.order,
            "profile": args.profile,
        },
        "note": args.note,
        "arms": arms,
        "mean_wall_s": {k: round(v, 2) for k, v in mean.items()},
        "ratio_wall_vs_lambda0": {k: round(v / base, 3) for k, v in mean.items()} if base else {},
        "ratio_cpu_vs_lambda0": {k: round(sum(v) / len(v) / base_cpu, 3) for k, v in cpu.items()} if base_cpu else {},
        "environment": environment(torch.device("cpu"), load_start),
    }
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
