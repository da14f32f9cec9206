"""Team scale: README.md's numbers, read from ``results/team_scale.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import judged, load, loadavg, sig

NEXT_TARGET_MS = 50.0
AGREEMENT_TARGET_MS = 200.0
"""Issue 32 §7: Next within 50 ms p95, the agreement summary within 200 ms (10 annotators, 1M examples, PostgreSQL)."""


def row(r: dict[str, Any]) -> list[str]:
    return [
        f"{r['n_examples']:,}",
        f"`{str(r.get('xmd_commit') or '–')[:7]}`",
        f"{r['assignments']:,}",
        f"{r['seed']['shared_examples']:,}",
        f"{loadavg(r.get('loadavg_start'))}",
        sig(r["baseline_route_ms"]["p50_ms"]),
        f"{sig(r['next_ms']['random']['p50_ms'])} / {sig(r['next_ms']['random']['p95_ms'])}",
        f"{sig(r['next_ms']['disagreement']['p50_ms'])} / {sig(r['next_ms']['disagreement']['p95_ms'])}",
        sig(r["next_plan"]["server_execution_ms"]),
        sig(r["next_cpu_ms"]["random"]["p50_ms"]),
        f"{sig(r['agreement_after_click_ms']['p50_ms'])} / {sig(r['agreement_after_click_ms']['p95_ms'])}",
        f"{sig(r['agreement_unchanged_ms']['p50_ms'])} / {sig(r['agreement_unchanged_ms']['p95_ms'])}",
        sig(r["agreement_after_click_cpu_ms"]["p50_ms"]),
    ]


def context(results: Path) -> dict[str, Any]:
    doc = load(results, "team_scale")
    runs = doc["results"] if doc else []
    # the largest size, its latest run (the runs are in the order they were made)
    biggest = max(enumerate(runs), key=lambda ir: (ir[1]["n_examples"], ir[0]))[1] if runs else None
    targets = []
    if biggest is not None:
        where = f"{biggest['n_examples']:,} examples, {biggest['annotators']} annotators, PostgreSQL"
        targets = [
            judged(f"Next p95 (random order), {where}", biggest["next_ms"]["random"]["p95_ms"], "<=", NEXT_TARGET_MS,
                   "team_scale", " ms"),
            judged(f"Next p95 (disagreement order), {where}", biggest["next_ms"]["disagreement"]["p95_ms"], "<=",
                   NEXT_TARGET_MS, "team_scale", " ms"),
            judged(f"agreement summary p95 after a click, {where}", biggest["agreement_after_click_ms"]["p95_ms"],
                   "<=", AGREEMENT_TARGET_MS, "team_scale", " ms"),
        ]  # fmt: skip
    return {
        "doc": doc,
        "rows": [row(r) for r in runs],
        "big": biggest,
        "targets": targets,
        "headline": {
            "n": f"{biggest['n_examples']:,}" if biggest else "–",
            "next_p95": sig(biggest["next_ms"]["random"]["p95_ms"]) if biggest else "–",
            "agreement_p95": sig(biggest["agreement_after_click_ms"]["p95_ms"]) if biggest else "–",
            "baseline_p50": sig(biggest["baseline_route_ms"]["p50_ms"]) if biggest else "–",
            "all_met": all(r[3] == "**met**" for r in targets) if targets else False,
        },
    }
