"""The *suspicious* flag on the demo: README.md's numbers, read from ``results/suspicion_demo.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import load


def context(results: Path) -> dict[str, Any]:
    doc = load(results, "suspicion_demo")
    d = doc["demo"]
    flagged = d["flagged"]
    planted = next(w for w in flagged if w["word"] == doc["planted_word"])
    next_q = min(w["q_value"] for w in flagged if w["word"] != doc["planted_word"])
    controls = doc["control_shuffled_labels"]
    rows = [
        [
            f"planted word (`{doc['planted_word']}`)",
            f"flagged, rank {d['planted_rank_by_suspicion']} by suspicion, "
            f"q = {planted['q_value']:.1e} (next smallest q: {next_q:.1e})",
        ],
        [
            f"words flagged, whole vocabulary ({d['n_words']} words)",
            f"{len(flagged)}: " + ", ".join(w["word"] for w in flagged[:8]) + (", …" if len(flagged) > 8 else ""),
        ],
        [
            "flagged among the top 50 by importance",
            f"{d['top50_by_importance_flagged_new']} (previous rule: {d['top50_by_importance_flagged_old']})",
        ],
        [
            f"control: labels shuffled, {len(controls)} seeds",
            "words flagged per seed: " + ", ".join(str(c["n_flagged"]) for c in controls),
        ],
        [f"computing the flags of all {d['n_words']} words", f"{d['ranking_seconds_all_words']:.2f} s"],
    ]
    return {
        "doc": doc,
        "rows": rows,
        "targets": [],
        "headline": {
            "rank": d["planted_rank_by_suspicion"],
            "q": f"{planted['q_value']:.0e}",
            "flagged": sum(c["n_flagged"] for c in controls),
            "controls": len(controls),
        },
    }
