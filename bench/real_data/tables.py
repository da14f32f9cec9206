"""Real data (HateXplain), debugged against controls: README.md's numbers, read from ``results/*.json``."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from bench.report.fmt import load, mean_std

ARM_NAMES = {
    "base": "fine-tuned base (before)",
    "lambda0": "λ = 0 (continued training)",
    "remove": "**debugged**: remove identity words",
    "deletion": "deletion (words cut from the texts)",
    "rationale_add": "**debugged**: add rationale words",
    "remove+attribution_every=4": "**debugged**: remove, `attribution_every=4`",
    "remove+attribution_every=2": "**debugged**: remove, `attribution_every=2`",
    "remove+attribution_rows=4": "**debugged**: remove, `attribution_rows=4`",
}
TARGET_NAMES = {
    "fpr_identity_relative_drop": "identity FPR down (relative to the base)",
    "accuracy_change_points": "accuracy change (points, vs the base)",
    "fpr_identity_better_than_lambda0": "identity FPR better than λ = 0 beyond noise",
    "fpr_identity_better_than_deletion": "identity FPR better than deletion beyond noise",
    "auprc_better_than_lambda0": "rationale add: AUPRC better than λ = 0 beyond noise",
}
LEVER_METRICS = (
    ("identity FPR", "fpr_identity", lambda r: r["test"]["fpr_identity"]),
    ("accuracy", "accuracy", lambda r: r["test"]["accuracy"]),
    ("id. share, grad x input", "share_grad_x_input", lambda r: (r.get("shares") or {}).get("grad_x_input")),
)
"""What a speed lever is compared on: label, summary key, value of one run."""


def v(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def arms_table(doc: dict[str, Any]) -> list[list[Any]]:
    base, t = doc["base"], doc["base"]["test"]
    rows: list[list[Any]] = [
        [
            ARM_NAMES["base"],
            "–",
            v(t["accuracy"]),
            v(t["fpr_identity"]),
            v(t["fpr_other"]),
            v((base.get("shares") or {}).get("occlusion")),
            v((base.get("plausibility") or {}).get("auprc")),
        ]
    ]
    for arm, a in doc["summary"]["arms"].items():
        rows.append(
            [
                ARM_NAMES.get(arm, f"`{arm}`"),
                a["accuracy"]["n"],
                mean_std(a.get("accuracy")),
                mean_std(a.get("fpr_identity")),
                mean_std(a.get("fpr_other")),
                mean_std(a.get("share_occlusion")),
                mean_std(a.get("auprc")),
            ]
        )
    return rows


def comparisons(doc: dict[str, Any]) -> list[list[str]]:
    rows = []
    for key, c in doc["summary"]["comparisons"].items():
        pair, metric = key.split(":")
        arm, control = pair.split("_vs_")
        rows.append(
            [
                ARM_NAMES.get(arm, arm).replace("**", ""),
                ARM_NAMES.get(control, control),
                metric,
                f"{c['diff']:+.3f} [{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}]",
                f"**{c['verdict'].replace('_', ' ')}**",
            ]
        )
    return rows


def targets(doc: dict[str, Any], name: str) -> list[list[str]]:
    rows = []
    for key, t in doc["summary"]["targets"].items():
        if isinstance(t["value"], str):
            value, threshold = t["value"].replace("_", " "), t["threshold"]
        elif key == "fpr_identity_relative_drop":
            value, threshold = f"{t['value']:.1%}", f"{t['op']} {t['threshold']:.0%}"
        else:
            value, threshold = f"{t['value']:+.2f}", f"{t['op']} {t['threshold']}"
        rows.append(
            [
                f"**real data**: {TARGET_NAMES.get(key, key)}",
                threshold,
                value,
                "**met**" if t["met"] else "**missed**",
                f"`{name}`",
            ]
        )
    return rows


def paired(doc: dict[str, Any], arm: str, control: str) -> list[tuple[str, list[float], float, float]]:
    """``arm`` against ``control`` paired by seed: (metric, per-seed differences, mean, seed noise = larger std)."""
    by = {(r["arm"], r["seed"]): r for r in doc["runs"]}
    arms = doc["summary"]["arms"]
    seeds = sorted(s for (a, s) in by if a == arm and (control, s) in by)
    out = []
    for label, key, get in LEVER_METRICS:
        d = [get(by[(arm, s)]) - get(by[(control, s)]) for s in seeds]
        out.append((label, d, sum(d) / len(d), max(arms[arm][key]["std"], arms[control][key]["std"])))
    return out


def levers(doc: dict[str, Any]) -> tuple[list[list[str]], list[list[str]]]:
    """Training time per arm against λ = 0 (paired by seed), and each lever against the default ``remove``."""
    by = {(r["arm"], r["seed"]): r for r in doc["runs"]}
    speed = []
    for arm in doc["summary"]["arms"]:
        seeds = sorted(s for (a, s) in by if a == arm and ("lambda0", s) in by)
        ratios = [by[(arm, s)]["train_seconds"] / by[("lambda0", s)]["train_seconds"] for s in seeds]
        secs = [by[(arm, s)]["train_seconds"] for s in seeds]
        speed.append(
            [
                ARM_NAMES.get(arm, f"`{arm}`").replace("**", ""),
                f"{statistics.fmean(secs):.1f}",
                f"{statistics.fmean(ratios):.2f}x ({min(ratios):.2f}–{max(ratios):.2f})",
            ]
        )
    diffs = [
        [
            f"`{arm}`",
            metric,
            f"{mean:+.3f}",
            f"{noise:.3f}",
            "beyond seed noise" if abs(mean) > noise else "within seed noise",
        ]
        for arm in doc["summary"]["arms"]
        if arm.startswith("remove+")
        for metric, _, mean, noise in paired(doc, arm, "remove")
    ]
    return speed, diffs


def ceiling(doc: dict[str, Any]) -> list[list[str]]:
    s = doc["summary"]
    rows = [["none (the base)", v(s["base_fpr_identity"]), "–", "–"]]
    for key in ("delete", "mask", "person"):
        e = s.get(key)
        if e:
            lo, hi = e["specific_ci95"]
            rows.append(
                [
                    key,
                    v(e["fpr_identity"]),
                    f"{100 * e['drop']:.0f} %",
                    f"{100 * e['specific_drop']:.0f} % [{100 * lo:.0f} %, {100 * hi:.0f} %]",
                ]
            )
    return rows


def context(results: Path) -> dict[str, Any]:
    gpu, levers_doc, ceiling_doc = (
        load(results, "real_data_gpu"),
        load(results, "real_data_levers"),
        load(results, "real_data_ceiling"),
    )
    speed, diffs = levers(levers_doc) if levers_doc else ([], [])
    rows = targets(gpu, "real_data_gpu")
    drop = gpu["summary"]["targets"]["fpr_identity_relative_drop"]["value"]
    return {
        "gpu": gpu,
        "arms": arms_table(gpu),
        "comparisons": comparisons(gpu),
        "levers_doc": levers_doc,
        "levers_arms": arms_table(levers_doc) if levers_doc else [],
        "speed": speed,
        "diffs": diffs,
        "ceiling_doc": ceiling_doc,
        "ceiling": ceiling(ceiling_doc) if ceiling_doc else [],
        "targets": rows,
        "headline": {"drop": f"{drop:.1%}"},
    }
