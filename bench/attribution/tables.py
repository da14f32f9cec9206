"""Attribution throughput: the numbers and rows of README.md, read from ``results/*.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import load, r2, sig, target_row


def variants(doc: dict[str, Any]) -> list[list[str]]:
    res = doc["results"]
    ceiling = res["ceiling"]["examples_per_s"]
    return [
        [f"`{name}`", r["n"], sig(r["median_s"]), sig(r["examples_per_s"]), f"{r['examples_per_s'] / ceiling:.3f}"]
        for name, r in sorted(res.items(), key=lambda kv: -kv[1]["examples_per_s"])
    ]


def ig_vs_peer(doc: dict[str, Any]) -> list[list[str]]:
    res, ratios, p = doc["results"], doc["ratios"], doc["params"]
    steps = p.get("peer_steps", [])
    return [
        [
            k,
            sig(res.get(f"integrated_gradients_{k}", {}).get("examples_per_s")),
            sig(res.get(f"peer_ig_loop_{k}", {}).get("examples_per_s")),
            r2(ratios.get(f"ig_batched_vs_peer_ig_{k}")),
        ]
        for k in (steps if isinstance(steps, list) else [steps])
    ]


def targets(doc: dict[str, Any] | None, name: str, gpu: bool) -> list[list[str]]:
    t = (doc or {}).get("targets", {})
    tag = "**GPU** " if gpu else ""
    return [
        target_row(f"{tag}`grad_x_input` vs the ceiling (throughput)", t.get("grad_x_input_vs_ceiling"), name),
        target_row(f"{tag}default explanation vs the peers' default", t.get("default_vs_peer_default"), name),
        target_row(f"{tag}batched IG vs per-example Captum IG, equal steps", t.get("ig_batched_vs_peer_ig"), name),
    ]


def context(results: Path) -> dict[str, Any]:
    cpu, gpu = load(results, "attribution_throughput"), load(results, "attribution_throughput_cuda")
    chunk, old = load(results, "ig_chunking"), load(results, "attribution_throughput_budget2048")
    rows = targets(cpu, "attribution_throughput", False) + (
        targets(gpu, "attribution_throughput_cuda", True) if gpu else []
    )
    default = cpu["ratios"]["default_vs_peer_default"]
    return {
        "cpu": cpu,
        "gpu": gpu,
        "cpu_variants": variants(cpu),
        "cpu_ig": ig_vs_peer(cpu),
        "gpu_variants": variants(gpu) if gpu else [],
        "gpu_ig": ig_vs_peer(gpu) if gpu else [],
        "chunking": [
            [f"`{n}`", sig(r["median_s"]), sig(r["examples_per_s"]), r2(r.get("vs_peer_loop"))]
            for n, r in (chunk or {}).get("results", {}).items()
        ],
        "chunk": chunk,
        "old": old,
        "targets": rows,
        "headline": {
            "cpu": sig(default),
            "gpu": sig(gpu["ratios"]["default_vs_peer_default"]) if gpu else "–",
            "all_met": all(r[3] == "**met**" for r in rows),
        },
    }
