"""Bad inputs against a running service: README.md's numbers, read from ``results/probe_bad_inputs.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import load, sig


def context(results: Path) -> dict[str, Any]:
    doc = load(results, "probe_bad_inputs")
    keys = ("probes", "4xx", "2xx", "5xx", "hangs", "dropped", "lost", "added")
    rows = [[r["setup"], *(r[k] for k in keys), sig(r["health_worst_s"])] for r in doc["runs"]]
    bad = sum(r["5xx"] + r["hangs"] + r["lost"] + r["added"] for r in doc["runs"])
    return {
        "doc": doc,
        "rows": rows,
        "accepted": sorted({a for r in doc["runs"] for a in r.get("accepted", [])}),
        "targets": [],
        "headline": {
            "probes": sum(r["probes"] for r in doc["runs"]),
            "errors": sum(r["5xx"] for r in doc["runs"]),
            "hangs": sum(r["hangs"] for r in doc["runs"]),
            "clean": bad == 0,
        },
    }
