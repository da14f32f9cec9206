"""A newcomer's first start and first retrain through the service: README.md's numbers, from ``results/*.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import judged, load, sig

RUNS = (
    ("first_start_retrain", "Xeon, no estimate yet"),
    ("first_start_retrain_calibrated", "calibrated estimate, slow host"),
    ("first_start_retrain_calibrated_stop25", "calibrated estimate, quiet host"),
    ("first_start_retrain_fp32_stop26", "float32, AVX512-BF16 host"),
    ("first_start_retrain_bf16_stop26", "bf16, AVX512-BF16 host"),
    ("first_start_retrain_auto_stop27", "default (auto = bf16), AVX512-BF16 host"),
)
TARGETS = (
    "first_start_retrain",
    "first_start_retrain_calibrated",
    "first_start_retrain_calibrated_stop25",
    "first_start_retrain_auto_stop27",
)
"""The runs the 120 s retrain target reads (the others compare settings)."""


def run_row(name: str, label: str, d: dict[str, Any]) -> list[str]:
    s, r = d["seconds"], d["retrain"]
    expected = r.get("expected_s")
    return [
        f"`{name}`",
        label,
        sig(s["ui"]),
        sig(s["project_ready"]),
        sig(s["explained"]),
        sig(expected) if expected else "none shown",
        sig(r["seconds"]),
        sig(d.get("fine_tune_s_per_step")),
    ]


def phases(d: dict[str, Any]) -> list[list[str]]:
    """Expected against actual seconds per phase of the retrain job."""
    r = d["retrain"]
    expected = r.get("estimate_phases") or {}
    return [
        [p.get("label", p["name"]), sig(expected.get(p["name"])) if p["name"] in expected else "–", sig(p["seconds"])]
        for p in r["phases"]
    ]


CONTROL_RUNS = (
    ("first_start_plain_tiny", "no controls"),
    ("first_start_controls_tiny", "λ = 0, one seed (the default control)"),
)
"""Issue 30 §5: the wait for v2 and for its controls, on the tiny stand-in model (this shared host)."""


def control_rows(results: Path) -> list[list[str]]:
    """Per run: v2 ready and controls done, from the same request, with the estimate and the load."""
    rows = []
    for name, label in CONTROL_RUNS:
        d = load(results, name)
        if not d:
            continue
        r = d["retrain"]
        c = r.get("controls") or {}
        rows.append(
            [
                f"`{name}`",
                label,
                sig(r.get("expected_s")),
                sig(r["seconds"]),
                sig(r.get("estimate_until_controls_s")),
                sig(c.get("done_s")),
                sig(c["done_s"] - r["seconds"]) if c.get("done_s") else "–",
                ", ".join(f"{j['arm']} {j['status']}" for j in c.get("jobs") or []) or "–",
                " → ".join(u.split("load average: ")[-1] for u in (d["uptime_start"], d["uptime_end"]) if u),
            ]
        )
    return rows


def control_reading(results: Path) -> dict[str, Any] | None:
    """The numbers the reading quotes: each run's waits and its fine-tune speed (the host's speed then)."""
    plain, ctl = load(results, "first_start_plain_tiny"), load(results, "first_start_controls_tiny")
    if not plain or not ctl or not (ctl["retrain"].get("controls") or {}).get("done_s"):
        return None
    ready, done = ctl["retrain"]["seconds"], ctl["retrain"]["controls"]["done_s"]
    slower = ctl["fine_tune_s_per_step"] / plain["fine_tune_s_per_step"]
    return {
        "plain_ready": sig(plain["retrain"]["seconds"]),
        "ready": sig(ready),
        "done": sig(done),
        "added": sig(done - ready),
        "added_pct": sig(100 * (done - ready) / ready, 2),
        "slower": sig(slower, 2),
        "ready_scaled": sig(ready / slower),
        "estimate_added": sig(ctl["retrain"]["estimate_controls_s"]),
    }


def context(results: Path) -> dict[str, Any]:
    docs = {n: d for n, _ in RUNS if (d := load(results, n))}
    targets = [
        judged(
            f"demo retrain through the service (s), request → v2 ready ({label})",
            docs[n]["retrain"]["seconds"],
            "<=",
            120.0,
            n,
            "",
        )
        for n, label in RUNS
        if n in TARGETS and n in docs
    ]
    calibrated = docs["first_start_retrain_calibrated_stop25"]
    calib = load(results, "calibration_timing")
    auto = docs["first_start_retrain_auto_stop27"]
    return {
        "control_runs": control_rows(results),
        "ctl": control_reading(results),
        "runs": [run_row(n, label, docs[n]) for n, label in RUNS if n in docs],
        "phases": phases(calibrated),
        "calibrated": calibrated,
        "auto": auto,
        "calibration": [
            [t["kind"], t["examples"], sig(t["seconds"]), sig(1000 * t["seconds"] / t["examples"])]
            for t in (calib or {}).get("timings", [])
        ],
        "calib": calib,
        "targets": targets,
        "headline": {
            "retrain": sig(auto["retrain"]["seconds"]),
            "estimate": sig(auto["retrain"]["expected_s"]),
            "ui": sig(auto["seconds"]["ui"]),
            "last_met": bool(targets) and targets[-1][3] == "**met**",
        },
    }
