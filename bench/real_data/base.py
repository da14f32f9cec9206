"""What every arm of the real-data study starts from: the data, splits and word list, and the fine-tuned base.

Split from ``real_data.py`` (the arms); ``real_data_ceiling.py`` and ``real_data_dev.py`` start from the same.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

from xmd.core.modeling import minilm_path
from xmd.core.pipeline import fine_tune
from xmd.core.retrain import TrainConfig

from bench.benchlib import log
from bench.real_data import hatexplain as hx


def build_context(args: argparse.Namespace, mode: dict) -> dict:
    """Data, splits, word list, feedback targets: everything fixed before any model is trained."""
    src = hx.data_dir()
    val = hx.load_posts(src / "val.csv")
    test = hx.load_posts(src / "test.csv")
    full_train, dev_posts = hx.stratified_split(val, args.dev_frac, seed=0)
    # The word list is derived from the whole train part (never dev or test), whatever the subsample.
    words, derivation = hx.derive_identity_words(full_train)
    train_posts = hx.subsample(full_train, mode["train_n"], seed=0)
    if mode["train_n"]:
        dev_posts = hx.subsample(dev_posts, max(mode["train_n"] // 4, 60), seed=0)
    test_posts = hx.subsample(test, mode["test_n"], seed=0)
    keys = set(words)
    return {
        "train": [p.example("train") for p in train_posts],
        "dev": [p.example("dev") for p in dev_posts],
        "test": [p.example("test") for p in test_posts],
        "train_posts": train_posts,
        "test_posts": test_posts,
        "dev_posts": dev_posts,
        "words": words,
        "keys": keys,
        "derivation": {**derivation, "train_analysis": hx.identity_analysis(full_train, words)},
        "data_dir": str(src),
    }


def base_model(ctx: dict, mode: dict, device: str) -> Path:
    """The user's model: MiniLM fine-tuned by ``xmd.core.pipeline.fine_tune`` on the train part (cached)."""
    cfg = TrainConfig(  # float32 on every host, as the base of every stored table was
        epochs=mode["base_epochs"], lr=5e-5, batch_size=16, max_length=mode["max_length"], seed=0, mixed_precision=False
    )
    ident = hashlib.sha256(
        json.dumps([sorted(ex.id for ex in ctx["train"]), cfg.__dict__], sort_keys=True).encode()
    ).hexdigest()[:12]
    out = ctx["workdir"] / f"base-{ident}"
    if not (out / "xmd.json").exists():
        log(f"fine-tuning the base model on {len(ctx['train'])} posts -> {out}")
        t0 = time.perf_counter()
        fine_tune(minilm_path(), ctx["train"], out, labels=hx.LABELS, config=cfg, device=device, name="hatexplain base")
        log(f"  base fine-tune took {time.perf_counter() - t0:.0f} s")
    ctx["base_config"] = cfg.__dict__
    return out
