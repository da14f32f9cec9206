"""ER step time and memory: the numbers and rows of README.md, read from ``results/*.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.fmt import judged, load, r2, sig, target_row

GPU_ER_TARGET = 1.5
"""Issue 16: an ER step at most this many plain steps on a GPU (the CPU's target is 1.3x-1.35x)."""

GPU_ROWS = (
    ("er_overhead_cuda", "both_default", "`both`, default (attribution every batch)"),
    ("er_overhead_cuda", "both_attr_every2", "`both`, `attribution_every=2`"),
    ("er_overhead_cuda", "both_attr_every4", "`both`, `attribution_every=4`"),
    ("er_overhead_cuda", "both_bf16", "`both`, bf16 autocast (vs a bf16 plain step)"),
    ("er_overhead_every_cuda", "both_attr_every8", "`both`, `attribution_every=8`"),
    ("er_overhead_every_b64_share30_cuda", "both_default", "`both`, default, batch 64"),
    ("er_overhead_every_b64_share30_cuda", "both_attr_every8", "`both`, `attribution_every=8`, batch 64"),
    ("er_overhead_joint_cuda", "both_joint", "`both`, default, joint forward (a GPU's default)"),
    ("er_overhead_joint_cuda", "both_attr_every4_joint", "`both`, `attribution_every=4`, joint forward"),
    ("er_overhead_joint_b64_share30_cuda", "both_joint", "`both`, default, joint forward, batch 64"),
    ("er_overhead_joint_b64_share30_cuda", "both_attr_every4_joint", "`both`, `attribution_every=4`, joint, batch 64"),
)
"""(result, variant, label) of the GPU ER-step targets; each ratio is within its own file (its own plain step)."""


def gpu_targets(docs: dict[str, dict[str, Any] | None]) -> list[list[str]]:
    """The GPU ER-step rows, judged against the GPU target from each file's own plain step."""
    rows = []
    for name, variant, label in GPU_ROWS:
        doc = docs.get(name)
        key = "both_bf16_vs_plain_bf16" if variant == "both_bf16" else f"{variant}_vs_plain"
        v = (doc or {}).get("ratios", {}).get(key)
        if v is not None:
            rows.append(judged(f"**GPU** ER step vs plain step, {label}", v, "<=", GPU_ER_TARGET, name, "x"))
    erasure = (docs.get("er_overhead_cuda") or {}).get("targets", {}).get("erasure_vs_plain")
    if erasure:
        rows.append(target_row("**GPU** ER step vs plain step, `erasure`", erasure, "er_overhead_cuda"))
    return rows


def cpu_targets(docs: dict[str, dict[str, Any] | None]) -> list[list[str]]:
    er, er30 = docs["er_overhead"] or {}, docs["er_overhead_share30"] or {}
    rows = [
        target_row(
            "ER step vs plain step, default objective (`both`)", er["targets"]["both_default_vs_plain"], "er_overhead"
        ),
        target_row("ER step vs plain step, `erasure` objective", er["targets"]["erasure_vs_plain"], "er_overhead"),
        target_row(
            "ER step vs plain, `both`, 30 % feedback rows",
            er30["targets"]["both_default_vs_plain"],
            "er_overhead_share30",
        ),
    ]
    for name, variants, tag in (
        ("er_overhead_interleaved", ("both_default", "both_attr_rows4"), "interleaved"),
        (
            "er_overhead_interleaved_stop25",
            ("both_default", "both_attr_every2", "both_attr_rows4"),
            "interleaved, quiet host",
        ),
    ):
        t = (docs.get(name) or {}).get("targets", {})
        rows += [
            target_row(f"ER step vs plain step, `{v}` ({tag})", t[f"{v}_vs_plain"], name)
            for v in variants
            if f"{v}_vs_plain" in t
        ]
    return rows


def per_process(doc: dict[str, Any]) -> list[list[str]]:
    """One row per variant of a fresh-process run: median step, ratio, peak memory."""
    res, ratios = doc["results"], doc["ratios"]
    return [
        [
            f"`{v}`",
            sig(r["median_step_s"] * 1000),
            r2(ratios.get(f"{v}_vs_plain", 1.0 if v == "plain" else None)),
            sig(r.get("peak_memory_mib")),
            r.get("n_feedback_words", "–"),
        ]
        for v, r in res.items()
    ]


def interleaved(doc: dict[str, Any]) -> list[list[str]]:
    """One row per variant of an interleaved run: median wall and CPU time per step, CPU ratio to plain."""
    res, ratios = doc["results"], doc["ratios"]
    return [
        [
            f"`{v}`",
            sig(r["median_step_s"] * 1000),
            sig(r["median_cpu_s"] * 1000),
            r2(ratios.get(f"{v}_vs_plain_cpu", 1.0 if v == "plain" else None)),
        ]
        for v, r in res.items()
    ]


def profile(doc: dict[str, Any]) -> list[list[str]]:
    out = []
    for v, r in doc["results"].items():
        ph = r["phases"]
        host = [
            ph.get(k, {}).get("host_ms_per_step") for k in ("xmd.forward_and_loss", "xmd.backward", "xmd.optimizer")
        ]
        out.append([f"`{v}`", sig(r["wall_ms_per_step"]), *(sig(h) for h in host)])
    return out


NAMES = (
    "er_overhead",
    "er_overhead_share30",
    "er_overhead_interleaved",
    "er_overhead_interleaved_stop25",
    "er_overhead_interleaved_difference",
    "er_profile",
    "er_overhead_cuda",
    "er_overhead_every_cuda",
    "er_overhead_every_b64_share30_cuda",
    "er_overhead_joint_cuda",
    "er_overhead_joint_b64_share30_cuda",
    "er_overhead_fused_cuda",
    "er_overhead_b64_share30_cuda",
)


def context(results: Path) -> dict[str, Any]:
    docs = {n: load(results, n) for n in NAMES}
    cpu_rows, gpu_rows = cpu_targets(docs), gpu_targets(docs)
    er = docs["er_overhead"]
    joint = docs["er_overhead_joint_cuda"]
    gpu_best = (
        min((float(r[2].rstrip("x")), r[0]) for r in gpu_rows if r[3] == "**met**" and "every" in r[0])
        if gpu_rows
        else None
    )
    return {
        **docs,
        "cpu_targets": cpu_rows,
        "gpu_targets": gpu_rows,
        "targets": cpu_rows + gpu_rows,
        "cpu": per_process(er),
        "share30": per_process(docs["er_overhead_share30"]),
        "interleaved": interleaved(docs["er_overhead_interleaved_stop25"]),
        "difference": interleaved(docs["er_overhead_interleaved_difference"])
        if docs["er_overhead_interleaved_difference"]
        else [],
        "profile": profile(docs["er_profile"]),
        "gpu": per_process(docs["er_overhead_cuda"]),
        "joint": per_process(joint) if joint else [],
        "headline": {
            "cpu": sig(er["ratios"]["both_default_vs_plain"]),
            "joint": sig(joint["ratios"]["both_joint_vs_plain"]),
            "every4": sig(joint["ratios"]["both_attr_every4_joint_vs_plain"]),
            "every_met": gpu_best is not None,
        },
    }
