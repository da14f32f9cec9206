"""Issue 32 §5: does retraining on the team's consensus give a better model than the union of everyone's
marks, or than one annotator's?

HateXplain's three rationale slots are three simulated people: on each training post, person *i* marks
*add* on every xmd word of the tokens their rationale flags (a post they judged normal carries no rationale,
so they marked nothing there); all three saw every post. Each policy's feedback
(:func:`xmd.core.consensus.consensus`) retrains the same parent through
:func:`xmd.core.controls.run_comparison`, beside λ = 0, over seeds. Measured on the untouched test split:
accuracy and macro-F1 on every post, and the plausibility of grad x input explanations (AUPRC and token-F1
against the posts' own rationale, words flagged by at least 2 of the 3 annotators) on toxic test posts.

With three people who all saw every post, ``majority`` (more than half of those who saw) and ``at least 2``
keep the same marks, so they are one arm here.

    python -m bench.team_consensus.consensus [--train 400] [--seeds 3] [--limit N]

Writes ``bench/team_consensus/results/consensus.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch
from xmd.core.consensus import Policy, consensus
from xmd.core.controls import ControlsConfig, run_comparison
from xmd.core.feedback import FeedbackSet
from xmd.core.modeling import minilm_path
from xmd.core.pipeline import fine_tune
from xmd.core.retrain import ERConfig, RetrainConfig, TrainConfig
from xmd.core.types import Action, InstanceFeedback

from bench.benchlib import environment, load_average, log
from bench.real_data import hatexplain as hx

HERE = Path(__file__).resolve().parent
PEOPLE = ("annotator1", "annotator2", "annotator3")
MAX_LENGTH = 64
PARENT = {"epochs": 3, "lr": 5e-5, "batch_size": 16, "seed": 0, "mixed_precision": False, "max_length": MAX_LENGTH}
METRICS = ("accuracy", "macro_f1")
QUALITY = ("auprc", "token_f1", "aopc_comprehensiveness")


def people_marks(posts: list[hx.Post]) -> dict[str, FeedbackSet]:
    """Rationale slot *i* of every post as person *i*: an *add* on each xmd word of a flagged token."""
    sets = {name: FeedbackSet() for name in PEOPLE}
    for post in posts:
        for name, flags in zip(PEOPLE, post.annotator_rationales, strict=False):
            for flag, words in zip(flags, post.token_words, strict=True):
                if flag:
                    sets[name].instance.extend(InstanceFeedback(post.id, w, Action.ADD) for w in words)
    return sets


def policies(posts: list[hx.Post]) -> dict[str, FeedbackSet]:
    """The feedback each arm retrains on."""
    people = people_marks(posts)
    seen = {name: [p.id for p in posts] for name in PEOPLE}
    return {
        "union": consensus(people, Policy.UNION, seen=seen).feedback,
        "majority": consensus(people, Policy.MAJORITY, seen=seen).feedback,
        "single": people[PEOPLE[0]],
    }


def with_rationale(post: hx.Post, split: str):
    """The post as an example whose ``meta["rationale"]`` is its 0/1 word rationale (or None)."""
    ex = post.example(split)
    return replace(ex, meta={**ex.meta, "rationale": post.word_rationale()})


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=int, default=400, help="training posts (a stratified subsample)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--limit", type=int, default=None, help="at most this many test posts (a smoke run)")
    ap.add_argument("--parent", default=None, help="a parent model folder instead of the MiniLM fine-tune")
    ap.add_argument("--workdir", default="runs/team_consensus")
    ap.add_argument("--out", default=str(HERE / "results" / "consensus.json"))
    args = ap.parse_args(argv)
    load_start = load_average()
    src = hx.data_dir()
    train_all, _ = hx.stratified_split(hx.load_posts(src / "val.csv"), 0.2, seed=0)
    train_posts = hx.subsample(train_all, args.train, seed=0)
    test_posts = hx.load_posts(src / "test.csv")[: args.limit]
    train = [p.example("train") for p in train_posts]
    test = [with_rationale(p, "test") for p in test_posts]
    toxic = [ex for ex in test if ex.meta["rationale"] is not None][:300]
    workdir = Path(args.workdir)
    parent = Path(args.parent) if args.parent else workdir / f"parent-{args.train}"
    if not args.parent and not (parent / "xmd.json").exists():
        log(f"fine-tuning the parent on {len(train)} posts -> {parent}")
        fine_tune(minilm_path(), train, parent, labels=hx.LABELS, config=TrainConfig(**PARENT), device="cpu")
    arms = policies(train_posts)
    doc: dict = {
        "question": "does retraining on the consensus beat the union and a single annotator?",
        "protocol": {
            "train_posts": len(train),
            "test_posts": len(test),
            "toxic_test_posts_with_rationale": len(toxic),
            "parent": PARENT,
            "marks": {name: len(fs.instance) for name, fs in arms.items()},
            "people": {name: len(fs.instance) for name, fs in people_marks(train_posts).items()},
        },
        "arms": {},
    }
    for i, (name, fs) in enumerate(arms.items()):
        run_dir = workdir / f"arm-{name}"
        shutil.rmtree(run_dir, ignore_errors=True)
        log(f"{name}: {len(fs.instance)} add marks, {args.seeds} seeds")
        t0 = time.perf_counter()
        comparison = run_comparison(
            parent,
            train,
            fs,
            run_dir,
            config=RetrainConfig(max_length=MAX_LENGTH, mixed_precision=False),
            er=ERConfig(),
            eval_sets={"test": test, "toxic": toxic},
            controls=ControlsConfig(
                arms=("lambda0",) if i == 0 else (),  # λ = 0 trains without the feedback: the same for every policy
                seeds=args.seeds,
                share_methods=("grad_x_input",),
                max_share_examples=64,
                quality_method="grad_x_input",
                rationale_column="rationale",
                quality_limit=150,
            ),
            device="cpu",
        ).to_dict()
        sets = comparison["sets"]
        quality = comparison["quality"] or {}
        entry = {
            "seconds": round(time.perf_counter() - t0, 1),
            "seeds": comparison["seeds"],
            "metrics": {
                arm: {m: {"mean": a["mean"].get(m), "std": a["std"].get(m)} for m in METRICS}
                for arm, a in sets["test"]["arms"].items()
            },
            "parent": {m: sets["test"]["before"].get(m) for m in METRICS},
            "quality_before": quality.get("before", {}).get("toxic"),
            "quality_after": {arm: q.get("toxic") for arm, q in quality.get("after", {}).items()},
        }
        doc["arms"][name] = entry
        doc["environment"] = environment(torch.device("cpu"), load_start)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
        log(f"  {name}: {entry['metrics']} quality {entry['quality_after']}")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
