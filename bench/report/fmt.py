"""Number formats and the markdown table the study tables use: one home, so every README writes numbers alike.

Registered as Jinja filters and globals by :mod:`bench.report.build`; the study ``tables.py`` modules call
them to fill table cells.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


def load(results: Path, name: str) -> dict[str, Any] | None:
    """The JSON document ``results/<name>.json``, or None when that run was never made."""
    path = results / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def sig(x: float | None, digits: int = 3) -> str:
    """A number to ``digits`` significant figures ('–' when not measured)."""
    if x is None:
        return "–"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}" if abs(x) < 10**digits else f"{x:,.0f}"


def r2(x: float | None) -> str:
    """A ratio to two decimals ('–' when not measured)."""
    return "–" if x is None else f"{x:.2f}"


def times(x: float | None) -> str:
    """A ratio as '1.23x'."""
    return "–" if x is None else f"{sig(x)}x"


def pct(x: float | None, digits: int = 1) -> str:
    """A fraction as a percentage."""
    return "–" if x is None else f"{100 * x:.{digits}f} %"


def mean_std(s: dict[str, Any] | None) -> str:
    """A summary ``{mean, std, n}`` as 'mean ± std' to three decimals (the mean alone for one seed)."""
    if not s:
        return "–"
    return f"{s['mean']:.3f}" if s["n"] < 2 else f"{s['mean']:.3f} ± {s['std']:.3f}"


def verdict(ok: bool | None) -> str:
    """**met** / **missed**, or 'not measured'."""
    if ok is None:
        return "not measured"
    return "**met**" if ok else "**missed**"


def loadavg(values: Sequence[float] | None) -> str:
    """A load average triple as '1.0/0.9/0.9' ('?' when not recorded)."""
    return "/".join(f"{v:.1f}" for v in values) if values else "?"


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A markdown table; cells are written as given (format them first)."""
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def target_row(label: str, t: dict[str, Any] | None, source: str, unit: str = "x") -> list[str]:
    """A targets-table row from a runner's ``targets`` entry (``value``, ``op``, ``threshold``, ``met``)."""
    if not t or t.get("value") is None:
        return [label, "–", "–", verdict(None), f"`{source}`"]
    return [
        label,
        f"{t['op']} {sig(t['threshold'])}{unit}",
        f"{sig(t['value'])}{unit}",
        verdict(t.get("met")),
        f"`{source}`",
    ]


def judged(label: str, value: float | None, op: str, threshold: float, source: str, unit: str = "") -> list[str]:
    """A targets-table row judged here (the runner did not record the target)."""
    if value is None:
        return [label, f"{op} {sig(threshold)}{unit}", "–", verdict(None), f"`{source}`"]
    ok = value <= threshold if op == "<=" else value >= threshold
    return [label, f"{op} {sig(threshold)}{unit}", f"{sig(value)}{unit}", verdict(ok), f"`{source}`"]


TARGET_HEADER = ["target", "threshold", "measured", "", "result file"]


def count(rows: Sequence[Sequence[str]]) -> str:
    """'5 of 7 met' over a targets table."""
    met = sum(1 for r in rows if r[3] == "**met**")
    judged_rows = sum(1 for r in rows if r[3] in ("**met**", "**missed**"))
    return f"{met} of {judged_rows} met" if judged_rows else "no target"
