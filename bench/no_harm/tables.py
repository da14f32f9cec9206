"""The biased-sample protocol (issue 33 §1): README.md's numbers, read from ``results/biased_sample.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import load, sig


def _ci(d: dict[str, Any]) -> str:
    return f"{d['diff']:+.3f} ({d['ci_low']:+.3f} to {d['ci_high']:+.3f})"


ARMS = ("debug", "lambda0", "deletion", "strip")


def _ms(s: dict[str, Any] | None) -> str:
    if not s or s.get("mean") is None:
        return "–"
    return f"{s['mean']:.3f} ± {s['std']:.3f}" if s.get("std") else f"{s['mean']:.3f}"


def _delta(s: dict[str, Any] | None, parent: float | None) -> str:
    if not s or s.get("mean") is None or parent is None:
        return "–"
    return f"{100 * (s['mean'] - parent):+.1f}"


def candidate_rows(doc: dict[str, Any] | None, split: str) -> list[list[Any]]:
    """One row per candidate × arm on ``split``: accuracy (points against the parent), identity FPR, other FPR."""
    rows: list[list[Any]] = []
    for name, cand in (doc or {}).get("candidates", {}).items():
        s = cand["summary"][split]
        parent = s["parent"]
        rows.append([name, "parent", sig(parent["accuracy"]), "", sig(parent["fpr_words"]), sig(parent["fpr_other"])])
        for arm in ARMS:
            a = s["arms"].get(arm)
            if a is None:
                continue
            rows.append(
                [
                    name,
                    arm,
                    _ms(a["accuracy"]),
                    _delta(a["accuracy"], parent["accuracy"]),
                    _ms(a["fpr_words"]),
                    _ms(a["fpr_other"]),
                ]
            )
    return rows


def forecast_rows(doc: dict[str, Any] | None) -> list[list[Any]]:
    """The parent's forecast (words erased / random words erased) beside each candidate's achieved debug arm."""
    if not doc or "forecast" not in doc:
        return []
    rows = []
    for split, f in doc["forecast"].items():
        fpr = f["fpr_words"]
        for name, cand in doc["candidates"].items():
            arms = cand["summary"][split]["arms"]
            rows.append(
                [
                    split,
                    name,
                    sig(fpr["now"]),
                    sig(fpr["erased"]),
                    sig(fpr["random"]),
                    _ms(arms["debug"]["fpr_words"]),
                    _ms(arms.get("strip", {}).get("fpr_words")),
                ]
            )
    return rows


def default_headline(doc: dict[str, Any] | None, name: str = "default") -> dict[str, Any]:
    """A candidate's numbers the reading quotes (empty before candidates.py has run it); ``default`` is the
    recipe with every feedback row taking the attribution term, ``rows8`` the default since issue 33 §4."""
    cand = (doc or {}).get("candidates", {}).get(name)
    if not cand:
        return {}
    out: dict[str, Any] = {}
    for split in ("dev", "test"):
        s = cand["summary"][split]
        p, arms = s["parent"], s["arms"]
        for arm, a in arms.items():
            out[f"{split}_{arm}_acc"] = _ms(a["accuracy"])
            out[f"{split}_{arm}_dacc"] = _delta(a["accuracy"], p["accuracy"])
            out[f"{split}_{arm}_fpr"] = _ms(a["fpr_words"])
        out[f"{split}_parent_acc"] = sig(p["accuracy"])
        out[f"{split}_parent_fpr"] = sig(p["fpr_words"])
        out[f"{split}_ceiling"] = sig(doc["forecast"][split]["fpr_words"]["erased"]) if "forecast" in doc else "–"
    return out


def verdict_rows(doc: dict[str, Any] | None, name: str = "default") -> list[list[Any]]:
    """The product's verdicts of candidate ``name`` (debug arm against each control) on the headline metrics."""
    verdicts = (doc or {}).get("candidates", {}).get(name, {}).get("verdicts") or {}
    return [
        [split, metric, v["text"], "; ".join(f"{c}: {x}" for c, x in (v.get("per_control") or {}).items())]
        for split, vs in verdicts.items()
        for metric, v in (vs or {}).items()
        if metric in ("accuracy", "macro_f1", "fpr_words", "fnr_words")
    ]


def seeds_rows(doc: dict[str, Any] | None) -> list[list[Any]]:
    """``seeds.py merge``: per setting and split, the debug arm over all seeds and its verdicts on identity FPR
    and accuracy against each control."""
    rows: list[list[Any]] = []
    for name, setting in (doc or {}).get("settings", {}).items():
        for split, s in setting["sets"].items():
            debug, v = s["arms"]["debug"], s["verdicts"]
            per = {m: "; ".join(f"{c}: {x}" for c, x in (v[m].get("per_control") or {}).items()) for m in v}
            measured = [_ms(a["fpr_words"]) for a in (debug, s["arms"]["strip"])]
            rows.append(
                [name, split, len(s["seeds"]), _ms(debug["accuracy"]), *measured, per["fpr_words"], per["accuracy"]]
            )
    return rows


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
        "cand": load(results, "candidates"),
        "cand_dev": candidate_rows(load(results, "candidates"), "dev"),
        "cand_test": candidate_rows(load(results, "candidates"), "test"),
        "forecast_rows": forecast_rows(load(results, "candidates")),
        "d": default_headline(load(results, "candidates")),
        "verdict_rows": verdict_rows(load(results, "candidates")),
        "nat": load(results, "candidates_natural"),
        "nd": default_headline(load(results, "candidates_natural")),
        "nat_dev": candidate_rows(load(results, "candidates_natural"), "dev"),
        "nat_test": candidate_rows(load(results, "candidates_natural"), "test"),
        "nat_verdicts": {
            n: verdict_rows(load(results, "candidates_natural"), n) for n in ("default", "anchor", "rows8")
        },
        "rows8_verdicts": verdict_rows(load(results, "candidates"), "rows8"),
        "r8": default_headline(load(results, "candidates"), "rows8"),
        "nr8": default_headline(load(results, "candidates_natural"), "rows8"),
        "seeds5": load(results, "seeds5"),
        "seeds_rows": seeds_rows(load(results, "seeds5")),
        "cand_seeds": ", ".join(
            str(x)
            for x in next(iter((load(results, "candidates") or {}).get("candidates", {}).values()), {}).get("seeds", [])
        ),
    }
