"""API latency under 50 clients: README.md's numbers, read from ``results/*.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import load, loadavg, sig, verdict

HISTORY = (
    ("api_latency_pg1m_before", "before the coverage count left the task view"),
    ("api_latency_pg1m_stop19", "before the routes were trimmed to fewer statements"),
    ("api_latency_pg1m_stop21", "two sessions earlier"),
    ("api_latency_pg1m_stop22", "fewer thread-pool hand-offs"),
    ("api_latency_pg1m", "one-statement click on PostgreSQL (now)"),
)
"""Earlier PostgreSQL 1M runs, oldest first; hosts differ between sessions, so compare within a session."""


def scenarios(doc: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for scenario, by_mode in doc["scenarios"].items():
        for mode, r in by_mode.items():
            target = f"p95 ≤ {sig(r['target_p95_ms'])} ms: {verdict(r.get('met'))}" if r.get("target_p95_ms") else ""
            rows.append(
                [
                    f"`{scenario}`",
                    mode,
                    r["requests"],
                    sig(r["p50_ms"]),
                    sig(r["p95_ms"]),
                    sig(r["p99_ms"]),
                    sig(r["throughput_rps"]),
                    sum((r.get("errors") or {}).values()),
                    target,
                ]
            )
    return rows


def targets(name: str, doc: dict[str, Any]) -> list[list[str]]:
    out = []
    for scenario, by_mode in doc["scenarios"].items():
        r = by_mode.get("interactive") or {}
        if r.get("target_p95_ms") is not None:
            out.append(
                [
                    f"API p95, `{scenario}`, {doc['n_examples']:,} examples, {doc['database']}",
                    f"<= {sig(r['target_p95_ms'])} ms",
                    f"{sig(r['p95_ms'])} ms",
                    verdict(r.get("met")),
                    f"`{name}`",
                ]
            )
    return out


def p95(doc: dict[str, Any], scenario: str) -> str:
    r = (doc.get("scenarios", {}).get(scenario) or {}).get("interactive")
    return sig(r["p95_ms"]) if r else "–"


def context(results: Path) -> dict[str, Any]:
    sqlite, pg = load(results, "api_latency"), load(results, "api_latency_pg1m")
    history = [
        [
            f"`{n}`",
            label,
            loadavg(d.get("loadavg_start")),
            p95(d, "feedback_write"),
            p95(d, "top100_words"),
            p95(d, "cached_explanation"),
        ]
        for n, label in HISTORY
        if (d := load(results, n))
    ]
    rows = targets("api_latency", sqlite) + targets("api_latency_pg1m", pg)
    return {
        "sqlite": sqlite,
        "pg": pg,
        "sqlite_rows": scenarios(sqlite),
        "pg_rows": scenarios(pg),
        "history": history,
        "targets": rows,
        "headline": {
            "click": p95(pg, "feedback_write"),
            "top100": p95(pg, "top100_words"),
            "cached": p95(pg, "cached_explanation"),
            "all_met": all(r[3] == "**met**" for r in rows),
        },
    }
