"""Consensus against union and one annotator (issue 32 §5): README.md's numbers, from ``results/consensus.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import load, sig

ORDER = ("union", "majority", "single")


def _ms(s: dict[str, Any] | None, scale: float = 1.0) -> str:
    if not s or s.get("mean") is None:
        return "–"
    return f"{scale * s['mean']:.3f} ± {scale * (s.get('std') or 0):.3f}"


def _q(entry: dict[str, Any] | None, key: str) -> dict[str, Any] | None:
    if not entry:
        return None
    return {"mean": entry["mean"].get(key), "std": entry["std"].get(key)}


def context(results: Path) -> dict[str, Any]:
    doc = load(results, "consensus") or {"arms": {}, "protocol": {}}
    arms = doc["arms"]
    rows: list[list[Any]] = []
    first = next(iter(arms.values()), None)
    if first:
        p, qb = first["parent"], first["quality_before"] or {}
        rows.append(
            ["parent", "–", sig(p["accuracy"]), sig(p["macro_f1"]), sig(qb.get("auprc")), sig(qb.get("token_f1"))]
        )
        lam = first["metrics"].get("lambda0")
        ql = first["quality_after"].get("lambda0")
        if lam:
            rows.append(
                [
                    "λ = 0",
                    "0",
                    _ms(lam["accuracy"]),
                    _ms(lam["macro_f1"]),
                    _ms(_q(ql, "auprc")),
                    _ms(_q(ql, "token_f1")),
                ]
            )
    for name in ORDER:
        if name not in arms:
            continue
        e = arms[name]
        d, q = e["metrics"]["debug"], e["quality_after"].get("debug")
        marks = doc["protocol"].get("marks", {}).get(name, "–")
        rows.append([name, marks, _ms(d["accuracy"]), _ms(d["macro_f1"]), _ms(_q(q, "auprc")), _ms(_q(q, "token_f1"))])
    h: dict[str, str] = {}
    for name, e in arms.items():
        q = e["quality_after"].get("debug")
        h[f"{name}_acc"] = _ms(e["metrics"]["debug"]["accuracy"])
        h[f"{name}_auprc"] = _ms(_q(q, "auprc"))
    if first and "lambda0" in first["metrics"]:
        h["lambda0_acc"] = _ms(first["metrics"]["lambda0"]["accuracy"])
        h["lambda0_auprc"] = _ms(_q(first["quality_after"].get("lambda0"), "auprc"))
        h["parent_auprc"] = sig((first["quality_before"] or {}).get("auprc"))
    headline = "; ".join(
        f"{n}: AUPRC {h.get(n + '_auprc', '–')}, acc {h.get(n + '_acc', '–')}" for n in (*ORDER, "lambda0")
    )
    return {
        "doc": doc,
        "rows": rows,
        "n_arms": len(arms),
        "seeds": len(first["seeds"]) if first else 0,
        "h": h,
        "headline": headline,
    }
