"""Figures of the study READMEs, drawn only from the JSON documents in ``bench/<study>/results/``.

Every figure has to be regenerable from committed code and data, so nothing is drawn by hand.
``python -m bench.report`` calls :func:`draw_all` before it renders the READMEs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt

BENCH = Path(__file__).resolve().parent.parent
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


def real_data_plot(doc: dict[str, Any], out: Path) -> Path | None:
    """Identity FPR, accuracy, identity shares and AUPRC per arm (mean ± std over seeds)."""
    base, arms = doc["base"], doc["summary"]["arms"]
    if not arms:
        return None
    panels = [
        ("fpr_identity", "identity-term FPR (normal posts)", base["test"]["fpr_identity"]),
        ("accuracy", "accuracy", base["test"]["accuracy"]),
        ("share_occlusion", "identity-word share (occlusion)", (base.get("shares") or {}).get("occlusion")),
        ("auprc", "rationale AUPRC (grad x input)", (base.get("plausibility") or {}).get("auprc")),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 3.2))
    for ax, (key, label, before) in zip(axes, panels, strict=True):
        names = [a for a in ("lambda0", "remove", "deletion", "rationale_add") if key in arms.get(a, {})]
        means = [arms[a][key]["mean"] for a in names]
        stds = [arms[a][key]["std"] for a in names]
        colours = ["#1f77b4" if a in ("remove", "rationale_add") else "#999999" for a in names]
        ax.bar(range(len(names)), means, yerr=stds, color=colours, capsize=3)
        if before is not None:
            ax.axhline(before, color="#d62728", linestyle="--", linewidth=1, label="base (before)")
            ax.legend(fontsize=7, loc="lower right")
        ax.set_xticks(range(len(names)), [n.replace("_", "\n") for n in names], fontsize=8)
        ax.set_title(label, fontsize=9)
    fig.suptitle(
        f"HateXplain test: debugged (blue) vs controls (grey), mean ± std over seeds {doc['config']['seeds']} "
        f"({doc['environment'].get('device_name', '?')})",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(out, dpi=110, metadata=PNG_META)
    plt.close(fig)
    return out


def draw_all(bench: Path = BENCH) -> list[Path]:
    """Every figure whose results exist; returns the files written."""
    written: list[Path | None] = []
    for name in ("attribution_throughput", "attribution_throughput_cuda"):
        doc = load(bench / "attribution" / "results", name)
        if doc:
            written.append(throughput_plot(doc, bench / "attribution" / "results" / f"{name}.png"))
    for name in ("effect_sweep", "effect_sweep_cuda", "effect_objectives"):
        doc = load(bench / "effect" / "results", name)
        if doc and doc.get("runs"):
            written.append(effect_plot(doc, bench / "effect" / "results" / f"{name}.png"))
    for name in ("real_data_gpu",):
        doc = load(bench / "real_data" / "results", name)
        if doc:
            written.append(real_data_plot(doc, bench / "real_data" / "results" / f"{name}.png"))
    return [p for p in written if p is not None]
