"""Candidate settings for the HateXplain benchmark, measured on the dev split only (never on test).

``bench/real_data.py`` runs xmd's defaults on test. When they miss a target, this script measures the
candidates issue 14 lists on the dev split of ``val.csv``, one seed, with dev metrics after every epoch
(what early stopping would see): the ER objective and λ, counterfactual pairs (each post with an
identity word also trained with the words deleted, same label), remove + counterfactual pairs, the
paper's scopes (correct / incorrect), and for the rationale *add* feedback its objective and strength,
judged by plausibility on the dev rationales. Prints one JSON document and writes ``--out``.

    python bench/real_data_dev.py --candidates lambda0 remove counterfactual remove:both:3
    python bench/real_data_dev.py --candidates remove+attribution_every=2 remove+attribution_rows=4 \
        rationale_add remove_correct

A candidate is an arm spec of ``bench/real_data.py`` (``name[:objective[:λ]][+setting=value...]``, any
``ERConfig`` setting); ``--add-target``, ``--counterfactual-weight`` and ``--task-scope`` set the default
of every candidate.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

from xmd.core.attribution import explain
from xmd.core.evaluate import plausibility
from xmd.core.modeling import load_model

from bench.benchlib import environment, load_average, log, read_jsonl, resolve_device, set_threads
from bench.real_data import real_data as rd

DEFAULT_CANDIDATES = [
    "lambda0",
    "remove",
    "counterfactual",
    "remove:both:3",
    "remove_cf",
    "rationale_add",
    "rationale_add:attribution:1",
    "remove:erasure:1",
    "remove_correct",
    "remove_incorrect",
]


def dev_plausibility(ctx: dict, mode: dict) -> dict:
    loaded = ctx["loaded"]
    pairs = [(p.example("dev"), p.word_rationale()) for p in ctx["dev_posts"]]
    pairs = [(ex, r) for ex, r in pairs if r is not None]
    exps = explain(
        loaded, [ex.text for ex, _ in pairs], target=[ex.label for ex, _ in pairs], max_length=mode["max_length"]
    )
    rats = [r for _, r in pairs]
    out = plausibility(exps, rats)
    out["auprc_abs"] = plausibility([replace(e, scores=[abs(x) for x in e.scores]) for e in exps], rats)["auprc"]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--candidates", nargs="+", default=DEFAULT_CANDIDATES)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--device", default="auto")
    p.add_argument("--log", type=Path, default=None)
    p.add_argument("--out", type=Path, default=rd.HERE / "results" / "real_data_dev.json")
    p.add_argument("--time-budget-s", type=float, default=None)
    p.add_argument("--quick", action="store_true")
    rd.add_er_arguments(p)
    p.add_argument(
        "--assemble",
        type=Path,
        default=None,
        help="train nothing: the candidates in --log, the base's dev metrics from this real_data.py result",
    )
    args = p.parse_args()
    if args.assemble:
        ref = json.loads(args.assemble.read_text())
        runs = [r for r in read_jsonl(args.log) if r["arm"] in args.candidates]
        doc = {
            "benchmark": "real_data_dev",
            "environment": {**ref["environment"], "loadavg_end": load_average()},
            "config": {
                "split": f"dev: {ref['base']['dev']['n']} posts of val.csv (20 % stratified, seed 0); test untouched",
                "epochs": args.epochs,
                "seed": args.seed,
                "base_train": ref["config"]["base_train"],
                "candidates": args.candidates,
                "not_run": [c for c in args.candidates if c not in {r["arm"] for r in runs}],
                "assembled_from": f"{args.log.name} (candidates), {args.assemble.name} (base dev metrics)",
            },
            "base": {"dev": ref["base"]["dev"], "dev_plausibility": ref["base"].get("dev_plausibility") or {}},
            "runs": runs,
        }
        args.out.write_text(json.dumps(doc, indent=2) + "\n")
        print(f"{args.out}: {len(runs)} candidate(s)")
        return
    main_args = rd.parse_args(["--quick"] if args.quick else [])
    for key in rd.ER_FLAGS:  # the candidates' ER defaults
        setattr(main_args, key, getattr(args, key))
    for cand in args.candidates:  # a typo fails here, before an hour of training
        rd.parse_spec(cand, main_args)
    mode = dict(rd.MODES["quick" if args.quick else "cpu"])
    set_threads(args.threads)
    device = resolve_device(args.device)
    loadavg_start = load_average()
    t_start = time.perf_counter()
    ctx = rd.build_context(main_args, mode)
    ctx["workdir"] = main_args.workdir
    loaded = load_model(rd.base_model(ctx, mode, str(device)), device=device)
    rd.prepare(ctx, mode, loaded, test=False)
    base = {"dev": ctx["base"]["dev"], "dev_plausibility": dev_plausibility(ctx, mode)}
    log(f"base dev: {base}")
    done = {r["arm"]: r for r in read_jsonl(args.log)}
    runs, not_run, walls = [], [], []
    for cand in args.candidates:
        if cand in done:
            runs.append(done[cand])
            continue
        if (
            args.time_budget_s
            and walls
            and time.perf_counter() - t_start + statistics.fmean(walls) > args.time_budget_s
        ):
            not_run.append(cand)
            continue
        t0 = time.perf_counter()
        r = rd.run_arm(cand, args.seed, ctx, mode, main_args, epochs=args.epochs, full=False)
        if cand.startswith("rationale_add") or cand.split("+")[0] == "lambda0":
            r["dev_plausibility"] = dev_plausibility(ctx, mode)
        walls.append(time.perf_counter() - t0)
        log(
            f"{cand}: {[(round(e['accuracy'], 3), e['fpr_identity']) for e in r['epoch_dev']]} "
            f"{r.get('dev_plausibility', '')} ({walls[-1]:.0f} s)"
        )
        runs.append(r)
        if args.log is not None:
            with args.log.open("a") as fh:
                fh.write(json.dumps(r) + "\n")
    doc = {
        "benchmark": "real_data_dev",
        "environment": environment(device, loadavg_start),
        "config": {
            "split": f"dev: {len(ctx['dev'])} posts of val.csv (20 % stratified, seed 0); test is not touched",
            "epochs": args.epochs,
            "seed": args.seed,
            "base_train": ctx["base_config"],
            "candidates": args.candidates,
            "er_defaults": {k: getattr(args, k) for k in rd.ER_FLAGS},
            "not_run": not_run,
            "wall_seconds": time.perf_counter() - t_start,
        },
        "base": base,
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=2)
    args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
