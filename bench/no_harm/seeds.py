"""More seeds for a comparison that three left undecided: run arms for further seeds, then merge.

Three seeds of two retrains can differ in a verdict (the debug arm "better" than strip for one, "within
noise" for the other) while their means differ by about one seed std. More seeds tell a setting's effect
from the draw. Every arm is deterministic for its seed (the controls of two candidates match to the digit),
so the controls of one run can pair with the debug arms of another of the same seeds, parent and data.

    python -m bench.no_harm.seeds run --name rows8 --er '{"attribution_rows": 8}' --start 3 --seeds 2
    python -m bench.no_harm.seeds run --name allrows --er '{"attribution_rows": 0}' --start 0 --seeds 5 --debug-only
    python -m bench.no_harm.seeds merge --out seeds5 --controls DIR... --debug rows8=DIR,DIR allrows=DIR

``run`` writes ``runs/no_harm/seeds-<name>-<start>/comparison.json`` (biased-sample protocol, the candidates'
recipe); ``merge`` stacks the predictions of the ``comparison.json`` files by seed and writes
``results/<out>.json``: each debug setting's verdicts against the controls over all the seeds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np
import torch
from xmd.core.compare import compare_predictions
from xmd.core.retrain import ERConfig, RetrainConfig

from bench.benchlib import environment, load_average, log
from bench.no_harm.biased_sample import build
from bench.no_harm.candidates import METRICS, compare, parent_model

HERE = Path(__file__).resolve().parent


def run(args: argparse.Namespace) -> None:
    """The debug arm (and, unless ``--debug-only``, λ = 0, deletion and strip) for seeds start.. start+n-1."""
    proto = build(0.9, 0)
    workdir = Path(args.workdir)
    parent = parent_model(proto, workdir, quick=False)
    out = workdir / f"seeds-{args.name}-{args.start}"
    shutil.rmtree(out, ignore_errors=True)
    log(f"{args.name}: seeds {args.start}..{args.start + args.seeds - 1} -> {out}")
    config = RetrainConfig(max_length=128, mixed_precision=False, seed=args.start)
    arms = () if args.debug_only else ("lambda0", "deletion", "strip")
    compare(parent, proto, out, config, ERConfig(**json.loads(args.er)), args.seeds, arms)


def _stack(docs: list[dict], split: str, arm: str) -> tuple[list[int], np.ndarray]:
    """An arm's predictions on ``split`` from several comparisons, rows in seed order."""
    rows: dict[int, list[int]] = {}
    for d in docs:
        for seed, pred in zip(d["seeds"], d["sets"][split]["predictions"].get(arm, []), strict=False):
            rows[seed] = pred
    seeds = sorted(rows)
    return seeds, np.array([rows[s] for s in seeds])


def merge(args: argparse.Namespace) -> None:
    """Verdicts of each debug setting against the controls, over the seeds the comparisons hold together."""
    controls = [json.loads((Path(d) / "comparison.json").read_text()) for d in args.controls]
    first = controls[0]
    env = environment(torch.device("cpu"), load_average())
    doc: dict = {"study": "no_harm_seeds", "settings": {}, "environment": env}
    for spec in args.debug:
        name, dirs = spec.split("=", 1)
        debug = [json.loads((Path(d) / "comparison.json").read_text()) for d in dirs.split(",")]
        doc["settings"][name] = {"er": debug[0]["settings"]["er"], "sets": {}}
        for split in ("dev", "test"):
            s = first["sets"][split]
            assert all(d["sets"][split]["example_ids"] == s["example_ids"] for d in controls + debug)
            seeds, mine = _stack(debug, split, "debug")
            preds = {"debug": mine}
            for arm in ("lambda0", "deletion", "strip"):
                got, p = _stack(controls, split, arm)
                assert got == seeds, (arm, got, seeds)  # paired by seed
                preds[arm] = p
            cmp = compare_predictions(
                s["gold"], preds, first["labels"], has_words=s["has_words"], positive=first["positive"]["index"]
            )
            doc["settings"][name]["sets"][split] = {
                "seeds": seeds,
                "arms": {
                    a: {m: {"mean": v["mean"].get(m), "std": v["std"].get(m)} for m in METRICS}
                    for a, v in cmp["arms"].items()
                },
                "verdicts": cmp["verdicts"],
            }
            v = cmp["verdicts"]["fpr_words"]
            log(f"{name} {split} seeds {seeds}: fpr_words {v['text']} {v.get('per_control')}")
    out = HERE / "results" / f"{args.out}.json"
    out.write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
    log(f"wrote {out}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--name", required=True)
    r.add_argument("--er", default="{}", help="ERConfig fields as JSON")
    r.add_argument("--start", type=int, default=0)
    r.add_argument("--seeds", type=int, default=2)
    r.add_argument("--debug-only", action="store_true")
    r.add_argument("--workdir", default="runs/no_harm")
    m = sub.add_parser("merge")
    m.add_argument("--out", required=True)
    m.add_argument("--controls", nargs="+", required=True, help="comparison folders holding the control arms")
    m.add_argument("--debug", nargs="+", required=True, help="name=folder[,folder]: a setting's debug arms")
    args = ap.parse_args(argv)
    if args.cmd == "run":
        run(args)
    else:
        merge(args)


if __name__ == "__main__":
    main()
