"""The demo retrain (``xmd demo``'s story): the numbers and rows of README.md, read from ``results/*.json``."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from bench.report.fmt import load, sig, target_row

RUNS = (
    ("demo_speed_seed", "default, float32 (Xeon)"),
    ("demo_speed_auto_stop27_seed", "default, auto = bf16 (AVX512-BF16 host)"),
    ("demo_speed_rows8_seed", "default since `attribution_rows=8`, auto = bf16 (AMX host), session D"),
)
ARMS = (
    ("every row (default), session A", "demo_speed_default_stop25_seed"),
    ("`attribution_gate`, session A", "demo_speed_gate_seed"),
    ("every row (default), session B", "demo_speed_eager_seed"),
    ("`attribution_rows=4`, drawn, session B", "demo_speed_rows4random_seed"),
    ("`attribution_rows=4`, fewest-taken first, session B", "demo_speed_rows4fair_seed"),
    ("float32 (AVX512-BF16 host)", "demo_speed_fp32_stop26_seed"),
    ("bf16 (AVX512-BF16 host)", "demo_speed_bf16_stop26_seed"),
    ("auto (bf16 there)", "demo_speed_auto_stop27_seed"),
    ("every batch (default), session C", "demo_speed_sessC_default_seed"),
    ("`attribution_every=2`, session C", "demo_speed_every2_seed"),
    ("every row (default then), session D", "demo_speed_sessD_default_seed"),
    ("`attribution_rows=8` (the default now), session D", "demo_speed_rows8_seed"),
    ("every row, float32, session D", "demo_speed_allrows_fp32_seed"),
    ("`attribution_rows=8`, float32, session D", "demo_speed_rows8_fp32_seed"),
)
"""Retrain settings compared on the demo from one baseline per session, seeds 0-2 (suffix ``_stop29`` where the
runs were taken in that session; its eager runs are kept with the graphs study, which compares them too)."""


def share_fall(d: dict[str, Any], method: str = "grad_x_input") -> float | None:
    """1 - after/before of the removed word's mean share on the feedback rows."""
    m = d["metrics"]
    b = ((m.get("feedback_shares_before") or {}).get(method) or {}).get("remove", {})
    a = ((m.get("feedback_shares_after") or {}).get(method) or {}).get("remove", {})
    if not b.get("mean_share") or a.get("mean_share") is None:
        return None
    return 1 - a["mean_share"] / b["mean_share"]


def clean_change(d: dict[str, Any]) -> float:
    """Clean accuracy after minus before, in points."""
    return 100 * (d["metrics"]["clean_after"] - d["metrics"]["clean_before"])


def targets(docs: dict[str, dict[str, Any]]) -> list[list[str]]:
    rows = []
    for prefix, how in RUNS:
        for seed in range(3):
            name = f"{prefix}{seed}"
            t = (docs.get(name) or {}).get("targets", {})
            for key, label in (
                ("retrain_seconds", "demo retrain (s)"),
                ("story_seconds", "whole demo story (s)"),
                ("anti_after", "anti-shortcut accuracy after"),
            ):
                if t.get(key, {}).get("value") is not None:
                    rows.append(target_row(f"{label}, {how}, seed {seed}", t[key], name, unit=""))
            if name in docs:
                change = clean_change(docs[name])
                rows.append(
                    target_row(
                        f"clean accuracy change (points), {how}, seed {seed}",
                        {"value": change, "op": ">=", "threshold": -1.0, "met": change >= -1.0},
                        name,
                        "",
                    )
                )
    return rows


def run_row(label: str, d: dict[str, Any]) -> list[str]:
    m, r = d["metrics"], d["retrain"]
    return [
        label,
        sig(r["seconds"]),
        sig(d["seconds"].get("total")) if not d["params"].get("baseline_reused") else "–",
        f"{r['steps']} / {r['total_steps']}",
        sig(r["seconds_per_step"]),
        f"{m['clean_before']:.3f} → {m['clean_after']:.3f}",
        f"{m['anti_before']:.3f} → {m['anti_after']:.3f}",
        f"{-100 * share_fall(d):.0f} %",
    ]


def arm_row(label: str, ds: list[dict[str, Any]]) -> list[Any]:
    falls = [share_fall(d) for d in ds]
    return [
        label,
        len(ds),
        f"{100 * statistics.fmean(falls):.1f} %",
        f"{100 * min(falls):.0f}–{100 * max(falls):.0f} %",
        f"{min(d['metrics']['anti_after'] for d in ds):.3f}",
        f"{statistics.fmean(clean_change(d) for d in ds):+.2f}",
        sig(statistics.fmean(d["retrain"]["train_loop_seconds"] for d in ds)),
    ]


def context(results: Path) -> dict[str, Any]:
    names = [f"{p}{s}" for p, _ in RUNS for s in range(3)]
    docs = {n: d for n in names if (d := load(results, n))}
    runs = [
        run_row(f"{how}, seed {n[-1]}", docs[n])
        for prefix, how in RUNS
        for n in names
        if n.startswith(prefix) and n in docs
    ]
    arms = []
    for label, prefix in ARMS:
        ds = [
            d
            for s in range(3)
            if (
                d := load(results, f"{prefix}{s}")
                or load(results, f"{prefix}{s}_stop29")
                or load(results.parent.parent / "graphs_gpu" / "results", f"{prefix}{s}_stop29")
            )
        ]
        if ds:
            arms.append(arm_row(label, ds))
    rows = targets(docs)
    seed0 = docs["demo_speed_seed0"]
    return {
        "runs": runs,
        "arms": arms,
        "padding": load(results, "demo_padding"),
        "before": load(results, "demo_speed_before"),
        "seed0": seed0,
        "targets": rows,
        "headline": {
            "fastest": sig(min(d["retrain"]["seconds"] for d in docs.values())),
            "slowest": sig(max(d["retrain"]["seconds"] for d in docs.values())),
            "anti": f"{min(d['metrics']['anti_after'] for d in docs.values()):.3f}",
            "all_met": all(r[3] == "**met**" for r in rows),
        },
    }
