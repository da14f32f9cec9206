"""Issue 33 §2: which retrain recipe keeps the parent's accuracy while removing the shortcut?

On the biased-sample protocol (:mod:`bench.no_harm.biased_sample`: a parent fine-tuned on HateXplain posts
where an identity word means toxic 9 times in 10), each candidate recipe retrains the parent with the
identity words as task-level *remove* feedback, beside its controls: λ = 0, deletion of the words from
the training data, and strip (the λ = 0 model predicting with the words stripped). Every arm takes the
candidate's recipe, so a control is never handicapped by a recipe the debug run does not share.
Arms and seeds come from :func:`xmd.core.controls.run_comparison`, the code ``xmd debug --controls`` runs.

Candidates are chosen on the dev split (accuracy within 0.5 point of the parent, then the lowest
identity FPR) and reported on the untouched test split.

    python -m bench.no_harm.candidates [--seeds 3] [--only default,short] [--quick]

Writes ``bench/no_harm/results/candidates[_quick].json`` (one entry per candidate, merged into an
existing file so candidates can be run one at a time).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch
from xmd.core.controls import ControlsConfig, run_comparison
from xmd.core.forecast import forecast
from xmd.core.modeling import load_model, minilm_path
from xmd.core.pipeline import fine_tune
from xmd.core.retrain import ERConfig, RetrainConfig, TrainConfig

from bench.benchlib import environment, load_average, log
from bench.no_harm.biased_sample import PARENT, build
from bench.real_data import hatexplain as hx
from bench.real_data.real_data import task_feedback

HERE = Path(__file__).resolve().parent
#: The recipes tried. ``default`` is the shipped retrain recipe (2 epochs at 3e-5, batches of 32).
CANDIDATES: dict[str, dict] = {
    "default": {},
    "short": {"epochs": 1},
    "gentle": {"lr": 1e-5},
    "short_gentle": {"epochs": 1, "lr": 1e-5},
    # ERConfig fields go under "er". attribution_every=2 was not run here: on the demo it missed the 80 % share
    # fall on all three seeds (bench/demo session C)
    "rows8": {"er": {"attribution_rows": 8}},
    # "early_stop" ({"early_stop_share": 0.1}: a tenth of the training rows held out, their task loss checked
    # eight times, the lowest kept, starting weights included; every arm) was measured at commit b636df2 and
    # removed with its setting: every debug arm kept its starting weights
    # "l2sp" ({"l2sp": 1000.0}: after each optimiser step every weight moved lr x 1000 of the way back to its
    # start, so it settled about 0.001 from it; every arm) was measured at commit e88edaa and removed with its
    # setting: results/candidates.json keeps its numbers
    # "anchor" ({"parent_kl": 1.0}: KL to the parent on the rows without feedback, every arm) was measured at
    # commit 3132a58 and removed with its setting: results/candidates.json keeps its numbers
}
METRICS = ("accuracy", "macro_f1", "fpr_words", "fpr_other", "fnr_words")


def summarise(comparison: dict) -> dict:
    """Per set: the parent's metrics, each arm's mean/std over seeds, and the debug arm against each control."""
    out: dict = {}
    for name, s in comparison["sets"].items():
        out[name] = {
            "parent": {m: s["before"].get(m) for m in METRICS},
            "arms": {
                arm: {m: {"mean": a["mean"].get(m), "std": a["std"].get(m)} for m in METRICS}
                for arm, a in s["arms"].items()
            },
            "differences": s.get("differences"),
        }
    return out


def parent_model(proto: dict, workdir: Path, quick: bool, natural: bool = False) -> Path:
    """The protocol's parent (``biased_sample.py``'s recipe), fine-tuned once and cached."""
    cfg = TrainConfig(**{**PARENT, "max_length": 64 if quick else 128, "epochs": 1 if quick else 3})
    path = workdir / f"parent-{'natural' if natural else 'p0.9'}-s0{'-quick' if quick else ''}"
    if not (path / "xmd.json").exists():
        log(f"fine-tuning the parent on {len(proto['train'])} posts -> {path}")
        fine_tune(minilm_path(), proto["train"], path, labels=hx.LABELS, config=cfg, device="cpu", progress=True)
    return path


def compare(
    parent: Path,
    proto: dict,
    run_dir: Path,
    config: RetrainConfig,
    er: ERConfig,
    seeds: int,
    arms: tuple[str, ...] = ("lambda0", "deletion", "strip"),
) -> dict:
    """The debug arm and ``arms`` for ``seeds`` seeds from ``config.seed``, on the protocol's dev and test
    splits (``xmd debug --controls``'s code); ``comparison.json`` is also written to ``run_dir``."""
    return run_comparison(
        parent,
        proto["train"],
        task_feedback(proto["words"]),
        run_dir,
        config=config,
        er=er,
        eval_sets={"dev": proto["dev"], "test": proto["test"]},
        controls=ControlsConfig(
            arms=arms,
            seeds=seeds,
            share_methods=("grad_x_input",),
            max_share_examples=128,
            positive_label=hx.LABELS[hx.TOXIC],
        ),
        device="cpu",
    ).to_dict()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--only", default=",".join(CANDIDATES), help="comma-separated candidate names")
    ap.add_argument("--quick", action="store_true", help="1-epoch parent, max length 64, 300 test posts")
    ap.add_argument("--workdir", default="runs/no_harm")
    ap.add_argument("--parent", default=None, help="a parent model folder instead of the biased-sample fine-tune")
    ap.add_argument("--limit", type=int, default=None, help="at most this many posts per split (a smoke run)")
    ap.add_argument("--out", default=None)
    ap.add_argument(
        "--natural", action="store_true", help="HateXplain's own train/dev split, no keyword sampling (issue 33)"
    )
    args = ap.parse_args(argv)
    load_start = load_average()
    proto = build(None if args.natural else 0.9, 0)
    if args.quick:
        proto["test"] = proto["test"][:300]
    if args.limit:
        proto.update({k: proto[k][: args.limit] for k in ("train", "dev", "test")})
    workdir = Path(args.workdir)
    parent = Path(args.parent) if args.parent else parent_model(proto, workdir, args.quick, args.natural)
    max_length = 64 if args.quick else 128
    stem = f"candidates{'_natural' if args.natural else ''}{'_quick' if args.quick else ''}"
    out = Path(args.out or HERE / "results" / f"{stem}.json")
    doc = json.loads(out.read_text()) if out.exists() else {"candidates": {}}
    if "forecast" not in doc or args.limit:
        # The forecast shown before a retrain (issue 30 §2): the parent with the words erased, held against
        # what the debug arms then achieve.
        loaded = load_model(parent, device="cpu")
        sets = {"dev": proto["dev"], "test": proto["test"]}
        fc = forecast(loaded, sets, proto["words"], reference=proto["train"], max_length=max_length)
        doc["forecast"] = fc["sets"]
        del loaded
    for name in args.only.split(","):
        cand = dict(CANDIDATES[name])
        er_fields = cand.pop("er", {})
        recipe = {**cand, "max_length": max_length, "mixed_precision": False}
        run_dir = workdir / f"cand-{name}{'-natural' if args.natural else ''}{'-quick' if args.quick else ''}"
        shutil.rmtree(run_dir, ignore_errors=True)
        log(f"candidate {name}: {recipe}, {args.seeds} seeds")
        t0 = time.perf_counter()
        comparison = compare(parent, proto, run_dir, RetrainConfig(**recipe), ERConfig(**er_fields), args.seeds)
        doc["candidates"][name] = {
            "recipe": {**recipe, **({"er": er_fields} if er_fields else {})},
            "seconds": round(time.perf_counter() - t0, 1),
            "seeds": comparison["seeds"],
            "summary": summarise(comparison),
            "verdicts": {n: s.get("verdicts") for n, s in comparison["sets"].items()},
            "notes": comparison["notes"],
            "runs": [{k: r.get(k) for k in ("arm", "seed", "steps")} for r in comparison["runs"]],
        }
        doc["protocol"] = {
            "p_toxic": None if args.natural else 0.9,
            "words": proto["words"],
            "parent": str(parent.name),
            "quick": args.quick,
        }
        doc["environment"] = environment(torch.device("cpu"), load_start)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
        for set_name, s in doc["candidates"][name]["summary"].items():
            p = s["parent"]
            row = {a: (v["accuracy"]["mean"], v["fpr_words"]["mean"]) for a, v in s["arms"].items()}
            log(f"  {set_name}: parent acc {p['accuracy']:.3f} fpr {p['fpr_words']}; arms (acc, fpr) {row}")
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
