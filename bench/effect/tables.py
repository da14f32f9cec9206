"""Effect of one *remove* click on the demo shortcut: README.md's numbers, read from ``results/*.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import load, mean_std, sig
from bench.report.plots import effect_summary

FILES = ("effect_sweep_cuda", "effect_every_cuda", "effect_objectives", "effect_sweep")


def rows(doc: dict[str, Any]) -> list[list[Any]]:
    """The baseline, then one row per setting: accuracies and the removed word's shares after, accepted or not."""
    summary = effect_summary(doc)
    accepted = doc.get("summary", {})
    first = next(iter(summary.values()))
    out: list[list[Any]] = [
        [
            "baseline (before)",
            "–",
            f"{first['clean_before']['mean']:.3f}",
            f"{first['anti_before']['mean']:.3f}",
            f"{first['share_gxi_before']['mean']:.3f}",
            f"{first['share_occlusion_before']['mean']:.3f}",
            "–",
            "–",
        ]
    ]
    for spec, s in summary.items():
        drop = 1 - s["share_gxi_after"]["mean"] / s["share_gxi_before"]["mean"]
        out.append(
            [
                f"`{spec}`",
                s["anti_after"]["n"],
                mean_std(s["clean_after"]),
                mean_std(s["anti_after"]),
                f"{mean_std(s['share_gxi_after'])} ({-100 * drop:.0f} %)",
                mean_std(s["share_occlusion_after"]),
                "yes" if accepted.get(spec, {}).get("meets_acceptance") else "no",
                sig(s["seconds"]["mean"], 2),
            ]
        )
    return out


def every_accepted(doc: dict[str, Any] | None) -> list[int]:
    """The ``attribution_every`` K whose runs were accepted on every seed (K = 1: the term on every batch)."""
    accepted = (doc or {}).get("summary", {})
    ks = {spec: int(spec.split(":")[5]) if spec.count(":") >= 5 else 1 for spec in accepted}
    return sorted(k for spec, k in ks.items() if accepted[spec].get("meets_acceptance"))


def forecast_rows(doc: dict[str, Any] | None) -> list[list[Any]]:
    """Per eval set: the planted word's FPR now, the forecast (word erased, random words erased), and what the
    debug runs and the strip rival reached (``forecast_check.py``)."""
    if not doc:
        return []
    out = []
    for name, f in doc["forecast"].items():
        if not f["n_negative_words"]:  # no text of the other class holds the word: nothing to forecast
            continue
        arms = doc["achieved"][name]["arms"]
        fpr = f["fpr_words"]
        achieved = [
            mean_std({**arms[a]["fpr_words"], "n": len(doc["seeds"])}) if a in arms else "–"
            for a in ("debug", "lambda0", "strip")
        ]
        out.append([name, f["n_negative_words"], sig(fpr["now"]), sig(fpr["erased"]), sig(fpr["random"]), *achieved])
    return out


def context(results: Path) -> dict[str, Any]:
    docs = {n: load(results, n) for n in FILES}
    grid = docs["effect_sweep_cuda"]
    default = effect_summary(grid)["both:1:mse"]
    return {
        **docs,
        "every_accepted": every_accepted(docs["effect_every_cuda"]),
        "forecast_rows": forecast_rows(load(results, "forecast_check")),
        "tables": {n: rows(d) for n, d in docs.items() if d and d.get("runs")},
        "targets": [],
        "headline": {
            "anti": f"{default['anti_after']['mean']:.3f}",
            "clean_before": f"{default['clean_before']['mean']:.3f}",
            "clean_after": f"{default['clean_after']['mean']:.3f}",
        },
    }
