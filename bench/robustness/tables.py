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
    bad += sum(len(r.get("issue31", {}).get("problems", [])) for r in doc["runs"])
    return {
        "doc": doc,
        "rows": rows,
        "accepted": sorted({a for r in doc["runs"] for a in r.get("accepted", [])}),
        "targets": [],
        "issue31": [[r["setup"], *issue31_row(r["issue31"])] for r in doc["runs"] if "issue31" in r],
        "worst_health": max(r["health_worst_s"] for r in doc["runs"]),
        "load": ", ".join(f"{k} {'–'.join(str(x) for x in v)}" for k, v in doc.get("load_average_1min", {}).items()),
        "headline": {
            "probes": sum(r["probes"] for r in doc["runs"]),
            "errors": sum(r["5xx"] for r in doc["runs"]),
            "hangs": sum(r["hangs"] for r in doc["runs"]),
            "clean": bad == 0,
        },
    }


def issue31_row(i: dict[str, Any]) -> list[Any]:
    """Issue 31's cases of one run: what the service answered (see probe_issue31.py)."""
    race = [i[k] for k in ("admin_race_patch", "admin_race_delete")]
    cols = i["columns"]
    restart = i.get("worker_restart", {}).get("restarted_after_s")
    return [
        " / ".join(f"{r['trials']} trials, {r['left_no_admin']} without admin" for r in race),
        f"{i['dataset']['delete_while_job_unfinished']}, then {i['dataset']['delete_after']}",
        f"{cols['wide_upload']['status']} in {cols['wide_upload']['seconds']} s",
        cols["duplicates_upload"],
        i["bool_word_index"],
        "none" if not i["malformed_link"]["exception_text"] else "leaked",
        "-" if restart is None else f"{restart} s",
        len(i["problems"]),
    ]
