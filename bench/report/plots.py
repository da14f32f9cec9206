"""Figures for BENCHMARKS.md, drawn only from the JSON documents in bench/results/.

Why a script: every figure in BENCHMARKS.md has to be regenerable from committed code and data, so
nothing is drawn by hand. ``bench/report.py`` calls :func:`draw_all`; run alone it does the same:

    .venv/bin/python bench/plots.py [--results bench/results]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt

RESULTS = Path(__file__).resolve().parent / "results"
# No timestamps or version strings inside the PNGs: regenerating unchanged results gives unchanged files.
PNG_META = {"Software": None}


def load(results: Path, name: str) -> dict[str, Any] | None:
    path = results / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


EFFECT_KEYS = (
    "clean_before",
    "clean_after",
    "anti_before",
    "anti_after",
    "share_gxi_before",
    "share_gxi_after",
    "share_occlusion_before",
    "share_occlusion_after",
    "seconds",
)


def effect_summary(doc: dict[str, Any]) -> dict[str, dict[str, dict[str, float]]]:
    """Mean, population std and n per setting, from the per-run records (any version of the file)."""
    import statistics

    out: dict[str, dict[str, dict[str, float]]] = {}
    for spec in dict.fromkeys(r["setting"] for r in doc["runs"]):
        rs = [r for r in doc["runs"] if r["setting"] == spec]
        out[spec] = {
            k: {
                "mean": statistics.fmean(r[k] for r in rs),
                "std": statistics.pstdev([r[k] for r in rs]) if len(rs) > 1 else 0.0,
                "n": len(rs),
            }
            for k in EFFECT_KEYS
        }
    return out


def throughput_plot(doc: dict[str, Any], out: Path) -> Path:
    """Examples/second per method against the ceiling and the per-example Captum loop (log scale)."""
    res = doc["results"]
    names = [n for n in res if not n.endswith("_peer_texts")]
    names.sort(key=lambda n: -res[n]["examples_per_s"])
    rates = [res[n]["examples_per_s"] for n in names]
    colours = ["#555555" if n == "ceiling" else "#d62728" if n.startswith("peer") else "#1f77b4" for n in names]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(names) + 1.4))
    ax.barh(range(len(names)), rates, color=colours)
    ax.set_yticks(range(len(names)), [f"{n.replace('_', ' ')}  (n={res[n]['n']})" for n in names])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("examples / second (log scale)")
    ceiling = res["ceiling"]["examples_per_s"]
    ax.axvline(ceiling, color="#555555", linestyle=":", linewidth=1)
    for i, r in enumerate(rates):
        ax.text(r, i, f" {r:.3g}/s  ({r / ceiling:.2f}x ceiling)", va="center", fontsize=8)
    env = doc["environment"]
    ax.set_title(
        f"Attribution throughput, MiniLM on demo texts (n = texts timed)\n"
        f"{env['device_name']}"
        + (f", {env['torch_threads']} torch thread(s)" if env.get("device") != "cuda" else "")
        + "; red: per-example Captum loop",
        fontsize=9,
    )
    ax.set_xlim(right=max(rates) * 12)
    fig.tight_layout()
    fig.savefig(out, dpi=110, metadata=PNG_META)
    plt.close(fig)
    return out


def effect_plot(doc: dict[str, Any], out: Path) -> Path:
    """Per setting: anti-shortcut and clean accuracy after, and the removed word's grad x input share."""
    summary = effect_summary(doc)
    settings = list(summary)
    panels = [
        ("anti_after", "anti-shortcut accuracy after", "anti_before"),
        ("clean_after", "clean accuracy after", "clean_before"),
        ("share_gxi_after", "share of the removed word\n(grad x input) after", "share_gxi_before"),
        ("share_occlusion_after", "share of the removed word\n(occlusion) after", "share_occlusion_before"),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 0.42 * len(settings) + 1.8), sharey=True)
    for ax, (key, label, before) in zip(axes, panels, strict=True):
        means = [summary[s][key]["mean"] for s in settings]
        stds = [summary[s][key]["std"] for s in settings]
        ax.barh(range(len(settings)), means, xerr=stds, color="#1f77b4", capsize=3)
        ax.axvline(summary[settings[0]][before]["mean"], color="#d62728", linestyle="--", linewidth=1, label="before")
        ax.set_xlim(0, 1.05)
        ax.set_xlabel(label, fontsize=8)
        ax.legend(fontsize=7, loc="lower right")
    axes[0].set_yticks(range(len(settings)), [f"{s}  (n={summary[s]['anti_after']['n']})" for s in settings])
    axes[0].invert_yaxis()
    fig.suptitle("Effect of one task-level 'remove' on the demo shortcut (mean ± std over seeds)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110, metadata=PNG_META)
    plt.close(fig)
    return out


def draw_all(results: Path = RESULTS) -> list[Path]:
    """Every figure whose results exist; returns the files written."""
    written = []
    for name in ("attribution_throughput", "attribution_throughput_cuda"):
        doc = load(results, name)
        if doc:
            written.append(throughput_plot(doc, results / f"{name}.png"))
    for name in ("effect_sweep", "effect_sweep_cuda", "effect_objectives"):
        doc = load(results, name)
        if doc and doc.get("runs"):
            written.append(effect_plot(doc, results / f"{name}.png"))
    return written


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", type=Path, default=RESULTS)
    for path in draw_all(p.parse_args().results):
        print(path)


if __name__ == "__main__":
    main()
