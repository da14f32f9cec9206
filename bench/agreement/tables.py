"""Agreement of HateXplain's three annotators: README.md's numbers, from ``results/agreement_hatexplain.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import load, pct, sig


def _mask_rows(masks: dict[str, dict[str, Any]]) -> list[list[str]]:
    ref = masks["reference_ge2"]["words"]
    rows = []
    for name, m in masks.items():
        if name == "reference_ge2":
            continue
        rows.append(
            [
                name.replace("_", " "),
                f"{m['words']:,}",
                f"{m['posts']:,}",
                f"{m['words'] / ref:.2f}x",
                pct(m["precision"]),
                pct(m["recall"]),
            ]
        )
    return rows


def context(results: Path) -> dict[str, Any]:
    doc = load(results, "agreement_hatexplain")
    three, some = doc["three_rationales"], doc["any_rationale_all_saw"]
    pairs = [
        [f"{p['a']} – {p['b']}", f"{p['n_tokens']:,}", pct(p["observed"]), sig(p["kappa"])] for p in three["pairs"]
    ]
    overall = [
        ["posts where all three gave a rationale", f"{three['n_posts']:,}", f"{three['n_tokens']:,}",
         sig(three["fleiss_kappa"]), sig(three["alpha"]), f"{three['seconds']:.2f} s"],
        ["every post with a rationale (all three saw it)", f"{some['n_posts']:,}", f"{some['n_tokens']:,}",
         sig(some["fleiss_kappa"]), sig(some["alpha"]), f"{some['seconds']:.2f} s"],
    ]  # fmt: skip
    words = [
        [f"`{w['word']}`", str(w["n_tokens"]), str(w["marked"]), str(w["unanimous"]), sig(w["alpha"])]
        for w in three["per_word"][:12]
    ]
    kappas = [p["kappa"] for p in three["pairs"]]
    return {
        "doc": doc,
        "pairs": pairs,
        "overall": overall,
        "words": words,
        "masks_three": _mask_rows(doc["masks_three_rationales"]),
        "masks_some": _mask_rows(doc["masks_any_rationale_all_saw"]),
        "targets": [],
        "headline": {
            "alpha": sig(three["alpha"]),
            "fleiss": sig(three["fleiss_kappa"]),
            "kappa_lo": sig(min(kappas)),
            "kappa_hi": sig(max(kappas)),
            "tokens": f"{three['n_tokens']:,}",
            "posts": f"{three['n_posts']:,}",
        },
    }
