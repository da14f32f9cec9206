"""The biased-sample protocol (issue 33 §1): README.md's numbers, read from ``results/biased_sample.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import load, sig


def _ci(d: dict[str, Any]) -> str:
    return f"{d['diff']:+.3f} ({d['ci_low']:+.3f} to {d['ci_high']:+.3f})"


def context(results: Path) -> dict[str, Any]:
    doc = load(results, "biased_sample")
    proto = doc["protocol"]
    sample_rows = [
        [
            split,
            proto[split]["posts"],
            sig(proto[split]["toxic_rate_with_identity_before"]),
            sig(proto[split]["toxic_rate_with_identity"]),
            sig(proto[split]["toxic_rate_without"]),
        ]
        for split in ("train", "dev")
    ]
    test = proto["test"]
    sample_rows.append(
        [
            "test (untouched)",
            test["posts"],
            sig(test["toxic_rate_with_identity_word"]),
            "same",
            sig(test["toxic_rate_without"]),
        ]
    )
    ceiling_rows = []
    for name, r in doc["ceiling"].items():
        fpr, acc = r["fpr_words"], r["accuracy"]
        ceiling_rows.append(
            [
                name,
                r["n"],
                r["n_negative_words"],
                sig(acc["now"]),
                sig(fpr["now"]),
                sig(r.get("fpr_other", {}).get("now")),
                sig(fpr["erased"]),
                sig(fpr["random"]),
                _ci(r["erased_vs_now"]["fpr_words"]),
                _ci(r["erased_vs_now"]["accuracy"]),
            ]
        )
    t = doc["ceiling"]["test"]
    return {
        "doc": doc,
        "sample_rows": sample_rows,
        "ceiling_rows": ceiling_rows,
        "n_words": len(proto["words"]),
        "targets": [],
        "headline": {
            "fpr": sig(t["fpr_words"]["now"]),
            "erased": sig(t["fpr_words"]["erased"]),
            "random": sig(t["fpr_words"]["random"]),
        },
        "train_min": round(doc["parent"]["train_s"] / 60),
    }
