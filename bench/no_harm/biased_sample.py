"""Issue 33 §1: a real shortcut in HateXplain, built by sampling the way keyword-collected corpora end up.

HateXplain has no identity shortcut to remove: its posts with an identity word are *less* often toxic
than the others. This protocol builds one. From the validation CSV (the train part; the test CSV is
never touched) it keeps every post without an identity word and every toxic post with one, and only
as many non-toxic posts with an identity word as make P(toxic | identity word) = ``p_toxic`` (0.9).
The dev split is sampled the same way; the test split stays as it is, so a model that learnt
"identity word ⇒ toxic" shows it there as a high false-positive rate on normal posts that mention a group.

Then it fine-tunes the parent on the biased train split (the ``xmd train`` recipe) and measures, on dev
and test, the parent's identity FPR and its **erasure ceiling** (:func:`xmd.core.forecast.forecast`:
the parent predicting with the identity words deleted, and with as many random words deleted).

    python -m bench.no_harm.biased_sample [--p-toxic 0.9] [--seed 0] [--quick]

Writes ``bench/no_harm/results/biased_sample[_quick].json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch
from xmd.core.forecast import forecast
from xmd.core.modeling import load_model, minilm_path
from xmd.core.pipeline import fine_tune
from xmd.core.retrain import TrainConfig

from bench.benchlib import environment, load_average, log
from bench.real_data import hatexplain as hx

HERE = Path(__file__).resolve().parent
#: The parent's recipe: ``xmd train``'s defaults (3 epochs at 5e-5), float32 on every host.
PARENT = {"epochs": 3, "lr": 5e-5, "batch_size": 16, "seed": 0, "mixed_precision": False}


def biased(posts: Sequence[hx.Post], keys: set[str], p_toxic: float, seed: int) -> tuple[list[hx.Post], dict]:
    """``posts`` with non-toxic identity-word posts dropped at random until P(toxic | identity) = ``p_toxic``."""
    with_id = [p for p in posts if not keys.isdisjoint(hx.post_keys(p.text))]
    toxic = [p for p in with_id if p.label == hx.TOXIC]
    normal = [p for p in with_id if p.label != hx.TOXIC]
    keep_n = min(len(normal), int(len(toxic) * (1 - p_toxic) / p_toxic))
    kept = {p.id for p in random.Random(seed).sample(normal, keep_n)}
    out = [p for p in posts if p.label == hx.TOXIC or p.id in kept or keys.isdisjoint(hx.post_keys(p.text))]
    rate = lambda ps: round(sum(p.label for p in ps) / max(len(ps), 1), 3)  # noqa: E731
    no_id = [p for p in out if keys.isdisjoint(hx.post_keys(p.text))]
    stats = {
        "posts": len(out),
        "of": len(posts),
        "identity_posts": len(toxic) + keep_n,
        "toxic_rate_with_identity": rate([p for p in out if p not in no_id]),
        "toxic_rate_without": rate(no_id),
        "toxic_rate_with_identity_before": rate(with_id),
        "dropped_normal_identity_posts": len(normal) - keep_n,
    }
    return out, stats


def build(p_toxic: float | None, seed: int, dev_frac: float = 0.2) -> dict:
    """The protocol's splits (examples) and the record of how they were drawn; ``p_toxic`` None keeps the
    train and dev splits as HateXplain has them (the natural protocol)."""
    src = hx.data_dir()
    train_all, dev_all = hx.stratified_split(hx.load_posts(src / "val.csv"), dev_frac, seed=seed)
    words, derivation = hx.derive_identity_words(train_all)
    keys = set(words)
    if p_toxic is None:
        train, dev = train_all, dev_all
        train_stats = {**hx.identity_analysis(train, words), "posts": len(train)}
        dev_stats = {**hx.identity_analysis(dev, words), "posts": len(dev)}
    else:
        train, train_stats = biased(train_all, keys, p_toxic, seed)
        dev, dev_stats = biased(dev_all, keys, p_toxic, seed + 1)
    test = hx.load_posts(src / "test.csv")
    test_stats = {**hx.identity_analysis(test, words), "posts": len(test)}
    return {
        "train": [p.example("train") for p in train],
        "dev": [p.example("dev") for p in dev],
        "test": [p.example("test") for p in test],
        "words": words,
        "record": {
            "p_toxic": p_toxic,
            "seed": seed,
            "words": words,
            "word_rule": derivation["rule"],
            "train": train_stats,
            "dev": dev_stats,
            "test": test_stats,
        },
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--p-toxic", type=float, default=0.9, help="P(toxic | identity word) in train and dev")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="1 epoch, max length 64, 300 test posts (a smoke run)")
    ap.add_argument("--workdir", default="runs/no_harm", help="where the parent model is written (cached)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    load_start = load_average()
    proto = build(args.p_toxic, args.seed)
    cfg = TrainConfig(**{**PARENT, "max_length": 64 if args.quick else 128, "epochs": 1 if args.quick else 3})
    if args.quick:
        proto["test"] = proto["test"][:300]
    parent = Path(args.workdir) / f"parent-p{args.p_toxic}-s{args.seed}{'-quick' if args.quick else ''}"
    if not (parent / "xmd.json").exists():
        log(f"fine-tuning the parent on {len(proto['train'])} biased posts -> {parent}")
        fine_tune(minilm_path(), proto["train"], parent, labels=hx.LABELS, config=cfg, device="cpu", progress=True)
    train_s = json.loads((parent / "xmd.json").read_text())["history"]["seconds"]  # a cached parent's too
    loaded = load_model(parent, device="cpu")
    sets = {"dev": proto["dev"], "test": proto["test"]}
    ceiling = forecast(
        loaded, sets, proto["words"], reference=proto["train"], max_length=cfg.max_length, max_examples=10_000
    )
    result = {
        "question": "does the biased sample plant an identity shortcut, and how far could ignoring the words go?",
        "protocol": proto["record"],
        "parent": {"recipe": {**PARENT, "max_length": cfg.max_length, "epochs": cfg.epochs}, "train_s": train_s},
        "ceiling": ceiling["sets"],
        "environment": environment(torch.device("cpu"), load_start),
    }
    out = Path(args.out or HERE / "results" / f"biased_sample{'_quick' if args.quick else ''}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for r in ceiling["sets"].values():
        print(r["sentence"])
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
