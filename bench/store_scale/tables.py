"""The store at 100k and 1M examples: README.md's numbers, read from ``results/*.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import judged, load, loadavg, sig

RANK_TARGET_MS = 20.0
"""Issue 16: the task view's top-100 by suspicion, and a click's way back to it, within 20 ms at 1M examples."""


def built(r: dict[str, Any]) -> str:
    return "aggregates only" if r.get("mode") == "aggregates_only" else "full ingest"


def row(r: dict[str, Any], doc: dict[str, Any]) -> list[str]:
    click = r.get("feedback_click", {}).get("task", {})
    return [
        r["db"],
        f"{r['n_examples']:,}",
        built(r),
        loadavg(r.get("loadavg_start") or doc["environment"].get("loadavg_start")),
        sig(r.get("ingest_rows_per_s")),
        sig(r.get("peak_rss_mib")),
        sig(r["ranking_top100_ms"]["suspicion"]),
        sig(r["ranking_top100_ms"]["importance"]),
        sig(click.get("click_to_ranking_ms")),
    ]


def targets(doc: dict[str, Any]) -> list[list[str]]:
    rows = []
    for r in doc["results"]:
        if r["n_examples"] < 1_000_000:
            continue
        where = f"{r['n_examples']:,} examples, {r['db']}, {built(r)}"
        click = r.get("feedback_click", {}).get("task", {}).get("click_to_ranking_ms")
        rows.append(
            judged(
                f"top-100 by suspicion, {where}",
                r["ranking_top100_ms"]["suspicion"],
                "<=",
                RANK_TARGET_MS,
                "store_scale",
                " ms",
            )
        )
        if click is not None:
            rows.append(judged(f"task click → ranking, {where}", click, "<=", RANK_TARGET_MS, "store_scale", " ms"))
    return rows


def context(results: Path) -> dict[str, Any]:
    doc, before = load(results, "store_scale"), load(results, "store_scale_before")
    rows = targets(doc)
    pg1m = [
        r
        for r in doc["results"]
        if r["n_examples"] >= 1_000_000 and r["db"] == "postgresql" and built(r) == "full ingest"
    ]
    worst = max((float(r[2].split()[0]) for r in rows), default=None)
    return {
        "doc": doc,
        "rows": [row(r, doc) for r in doc["results"]],
        "before": before,
        "before_rows": [row(r, before) for r in before["results"]] if before else [],
        "pg1m": pg1m[0] if pg1m else None,
        "targets": rows,
        "headline": {"worst": sig(worst), "all_met": all(r[3] == "**met**" for r in rows)},
    }
