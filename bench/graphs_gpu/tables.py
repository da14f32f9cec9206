"""CUDA graphs (``TrainConfig.cuda_graphs``): the numbers and rows of README.md, read from ``results/*.json``."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from bench.er_speed.tables import GPU_ER_TARGET
from bench.report.fmt import judged, load, sig

LABELS = {
    "plain": "plain (eager)",
    "plain_graphs": "plain, graphs",
    "both_default": "`both` default (eager)",
    "both_joint": "`both` default (eager, joint forward)",
    "both_graphs": "`both` default, graphs",
    "both_attr_every2_graphs": "`both`, `attribution_every=2`, graphs",
    "both_attr_every4_joint": "`both`, `attribution_every=4` (eager, joint forward)",
    "both_attr_every4_graphs": "`both`, `attribution_every=4`, graphs",
    "erasure_joint": "`erasure` (eager, joint forward)",
    "erasure_graphs": "`erasure`, graphs",
}
STEP_FILES = ("er_overhead_graphs_cuda", "er_overhead_graphs_b64_share30_cuda")
STATIC_FILES = (("er_overhead_static_b16", "batch 16"), ("er_overhead_static_b64_share30", "batch 64, 30 % feedback"))


def x(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}x"


def steps(doc: dict[str, Any]) -> list[list[str]]:
    res, ratios = doc["results"], doc["ratios"]
    plain_g = res.get("plain_graphs", {}).get("median_step_s")
    rows = []
    for v, r in res.items():
        eager = 1.0 if v == "plain" else ratios.get(f"{v}_vs_plain")
        graphed = r["median_step_s"] / plain_g if plain_g and v.endswith("_graphs") else None
        rows.append(
            [LABELS.get(v, v), f"{r['median_step_s'] * 1000:.1f}", x(eager), x(graphed), f"{r['peak_memory_mib']:.0f}"]
        )
    return rows


def targets(docs: dict[str, dict[str, Any] | None]) -> list[list[str]]:
    rows = []
    for name in STEP_FILES:
        ratios = (docs.get(name) or {}).get("ratios", {})
        for v in ("both_graphs", "both_attr_every4_graphs"):
            label = LABELS[v].removesuffix(", graphs")
            for key, against in (
                (f"{v}_vs_plain_graphs", "a graphed plain step"),
                (f"{v}_vs_plain", "the eager plain step"),
            ):
                if ratios.get(key) is not None:
                    rows.append(
                        judged(
                            f"**GPU** graphed ER step vs {against}, {label}",
                            ratios[key],
                            "<=",
                            GPU_ER_TARGET,
                            name,
                            "x",
                        )
                    )
    return rows


def demo(d: dict[str, Any], label: str) -> list[str]:
    m, r = d["metrics"], d["retrain"]
    s = m["planted_word_share"]
    before, after = s["before"]["mean_share"], s["after"]["mean_share"]
    g = r.get("graphs") or {}
    graphs = f"{g['graphs']} graphs, {g['replays']} replays" if "graphs" in g else "–"
    return [
        label,
        f"{r['train_loop_seconds']:.1f}",
        f"{m['clean_before']:.4f} → {m['clean_after']:.4f}",
        f"{m['anti_after']:.3f}",
        f"{(after - before) / before:+.0%}",
        graphs,
    ]


def planted_share_fall(d: dict[str, Any]) -> float:
    s = d["metrics"]["planted_word_share"]
    return 1 - s["after"]["mean_share"] / s["before"]["mean_share"]


def context(results: Path) -> dict[str, Any]:
    docs = {n: load(results, n) for n in STEP_FILES}
    check = load(results, "graphs_check_cuda")
    gpu_demo = [
        (f"{kind}, seed {s}", load(results, f"demo_speed_{kind}_seed{s}_cuda"))
        for s in range(3)
        for kind in ("eager", "graphs")
    ]
    cpu = {kind: [load(results, f"demo_speed_{kind}_seed{s}_stop29") for s in range(6)] for kind in ("eager", "static")}
    static = []
    for name, how in STATIC_FILES:
        now, before = load(results, name), load(results, f"{name}_before")
        for v in ("plain_graphs", "erasure_graphs", "both_graphs", "both_default"):
            key = f"{v}_vs_plain_cpu"
            label = LABELS.get(v, v).replace(", graphs", ", static step")
            static.append(
                [how, label, x((before or {}).get("ratios", {}).get(key)), x((now or {}).get("ratios", {}).get(key))]
            )
    g16 = docs["er_overhead_graphs_cuda"]["ratios"]
    rows = targets(docs)
    return {
        **docs,
        "check": check,
        "steps16": steps(docs["er_overhead_graphs_cuda"]),
        "steps64": steps(docs["er_overhead_graphs_b64_share30_cuda"]),
        "gpu_demo": [demo(d, label) for label, d in gpu_demo if d],
        "cpu_demo": [
            [
                k,
                sig(100 * statistics.fmean(planted_share_fall(d) for d in ds if d)) + " %",
                f"{min(d['metrics']['anti_after'] for d in ds if d):.3f}",
                sum(1 for d in ds if d),
            ]
            for k, ds in cpu.items()
        ],
        "static": static,
        "targets": rows,
        "headline": {"vs_eager": x(g16["both_graphs_vs_plain"]), "vs_graphed": x(g16["both_graphs_vs_plain_graphs"])},
    }
