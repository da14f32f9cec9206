"""One explain job over several workers: README.md's numbers, read from ``results/*.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import judged, load, loadavg, sig

RUNS = (
    "worker_scaling_100k_stop24",
    "worker_scaling_100k",
    "worker_scaling_100k_state_lock_first",
    "worker_scaling_minilm",
    "worker_scaling_100k_stop20",
    "worker_scaling",
)
"""The runs in the report, newest first; the last one ran on a machine loaded by other people's work."""


def rows(doc: dict[str, Any]) -> list[list[Any]]:
    return [
        [
            r["workers"],
            r["chunks"],
            sig(r["job_s"]),
            sig(r["rows_per_s"]),
            sig(r.get("speedup")),
            sig(r.get("efficiency")),
            f"{100 * r['overhead_share']:.2f} %",
            sig(r.get("model_load_s_per_worker")),
            loadavg(r.get("loadavg_start")),
        ]
        for r in doc["results"]
    ]


def targets(name: str, doc: dict[str, Any]) -> list[list[str]]:
    res = {r["workers"]: r for r in doc["results"]}
    model = doc["params"]["model"]
    out = []
    if 2 in res and res[2].get("speedup") is not None:
        out.append(judged(f"explain job, 2 workers vs 1 ({model})", res[2]["speedup"], ">=", 1.7, name, "x"))
    worst = max(r["overhead_share"] for r in res.values() if r.get("overhead_share") is not None)
    out.append(judged(f"orchestration overhead per chunk ({model}), worst", 100 * worst, "<=", 5, name, " %"))
    return out


def context(results: Path) -> dict[str, Any]:
    docs = {n: d for n in RUNS if (d := load(results, n))}
    target_rows = [row for n, d in docs.items() for row in targets(n, d)]
    best = docs["worker_scaling_100k_stop24"]
    two = next(r for r in best["results"] if r["workers"] == 2)
    return {
        "runs": [
            {"name": n, "doc": d, "quiet": (d["environment"].get("loadavg_start") or [99])[0] < 3, "rows": rows(d)}
            for n, d in docs.items()
        ],
        "targets": target_rows,
        "headline": {
            "speedup": sig(two["speedup"]),
            "overhead": f"{max(100 * r['overhead_share'] for r in best['results']):.1f}",
        },
    }
