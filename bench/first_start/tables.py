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
