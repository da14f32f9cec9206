"""The BENCHMARKS.md pieces that judge GPU ER-step targets, read the every-K effect and the real-data extras.

BENCHMARKS.md is generated from bench/results/*.json; these check, on constructed documents, that the
generated verdicts follow the numbers (a ratio just over the GPU target is *missed*, a K whose share drop
falls under 80 % on one seed is not listed as passing), so a wrong verdict cannot slip into the file.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import report
import report_real_data as rrd


def _er_doc(ratios: dict[str, float]) -> dict:
    return {"ratios": ratios, "params": {"batch_size": 16}, "environment": {"device_name": "GPU"}}


def test_gpu_er_targets_judge_each_file_against_the_gpu_threshold():
    docs = {
        "er_overhead_cuda": _er_doc(
            {
                "both_default_vs_plain": 2.9,
                "both_attr_every4_vs_plain": 1.49,
                "both_bf16_vs_plain": 3.7,
                "both_bf16_vs_plain_bf16": 1.4,
            }
        ),
        "er_overhead_every_b64_share30_cuda": _er_doc({"both_attr_every8_vs_plain": 1.52}),
    }
    rows = {(r[4], r[0]): r for r in report.gpu_er_targets(docs)}
    verdict = {key[1].split("step, ")[1]: row[3] for key, row in rows.items()}
    assert verdict["`both`, default (attribution every batch)"] == "**missed**"
    assert verdict["`both`, `attribution_every=4`"] == "**met**"
    # bf16 is judged against its own bf16 plain step, not the float32 one.
    assert verdict["`both`, bf16 autocast (vs a bf16 plain step)"] == "**met**"
    assert verdict["`both`, `attribution_every=8`, batch 64"] == "**missed**"
    # A variant a file did not measure gets no row (every2 here), and no file means no rows.
    assert not any("attribution_every=2" in k[1] for k in rows)
    assert report.gpu_er_targets({}) == []


def _run(k: int, seed: int, drop: float, anti: float = 1.0) -> dict:
    setting = "both:1:mse" if k == 1 else f"both:1:mse:2:5:{k}"
    return {
        "setting": setting,
        "seed": seed,
        "share_gxi_before": 0.25,
        "share_gxi_after": 0.25 * (1 - drop),
        "anti_after": anti,
        "clean_before": 0.99,
        "clean_after": 0.98,
    }


def test_every_reading_lists_only_the_k_that_pass_on_every_seed():
    runs = [_run(1, s, 0.9) for s in range(3)] + [_run(2, 0, 0.83), _run(2, 1, 0.79), _run(4, 0, 0.6, anti=0.97)]
    text = report._every_reading({"runs": runs})[0]
    assert "K ∈ {1}" in text  # K = 2 fell under 80 % on seed 1
    assert "K = 2: 79–83 %" in text
    assert "0.970–1.000" in text
    assert "clean accuracy down at most 1.0 points" in text


def test_lever_diffs_pair_by_seed_and_compare_with_seed_noise():
    def r(arm: str, seed: int, fpr: float, acc: float, share: float) -> dict:
        return {
            "arm": arm,
            "seed": seed,
            "test": {"fpr_identity": fpr, "accuracy": acc},
            "shares": {"grad_x_input": share},
            "train_seconds": {"lambda0": 10.0, "remove": 18.0}.get(arm, 12.0) * (1 + seed),
        }

    def ms(values: list[float]) -> dict:
        m = sum(values) / len(values)
        return {"mean": m, "std": (sum((v - m) ** 2 for v in values) / len(values)) ** 0.5, "n": len(values)}

    runs = [
        r("lambda0", 0, 0.30, 0.78, 0.13),
        r("lambda0", 1, 0.32, 0.78, 0.13),
        r("remove", 0, 0.25, 0.78, 0.08),
        r("remove", 1, 0.27, 0.78, 0.08),
        r("remove+attribution_every=4", 0, 0.25, 0.78, 0.10),
        r("remove+attribution_every=4", 1, 0.26, 0.78, 0.10),
    ]
    arms = {}
    for arm in ("lambda0", "remove", "remove+attribution_every=4"):
        rs = [x for x in runs if x["arm"] == arm]
        arms[arm] = {
            "fpr_identity": ms([x["test"]["fpr_identity"] for x in rs]),
            "accuracy": ms([x["test"]["accuracy"] for x in rs]),
            "share_grad_x_input": ms([x["shares"]["grad_x_input"] for x in rs]),
        }
    lines = rrd._lever_diffs({"runs": runs, "summary": {"arms": arms}}, "remove+attribution_every=4")
    rows = [line for line in lines if line.startswith("| λ = 0") or line.startswith("| debugged")]
    fpr_vs_l0 = next(x for x in rows if x.startswith("| λ = 0") and "identity FPR" in x)
    assert "-0.050, -0.060" in fpr_vs_l0 and "-0.055" in fpr_vs_l0 and "beyond seed noise" in fpr_vs_l0
    share_vs_remove = next(x for x in rows if x.startswith("| debugged") and "share" in x)
    assert "+0.020, +0.020" in share_vs_remove and "beyond seed noise" in share_vs_remove
    acc_vs_remove = next(x for x in rows if x.startswith("| debugged") and "accuracy" in x)
    assert "within seed noise" in acc_vs_remove
    speed = "\n".join(rrd._lever_speed({"runs": runs, "summary": {"arms": arms}}))
    assert "| debugged: remove identity words | 27.0 | 1.80x (1.80–1.80) |" in speed
    assert "| debugged: remove, `attribution_every=4` | 18.0 | 1.20x (1.20–1.20) |" in speed
    assert "| λ = 0 (continued training) | 15.0 | 1.00x (1.00–1.00) |" in speed
    reading = "\n".join(rrd._lever_reading({"runs": runs, "summary": {"arms": arms}}))
    assert "`attribution_every=4` trained in 1.20x λ = 0's time (every row: 1.80x)" in reading
    assert "the identity words' share +0.020 (beyond seed noise 0.000)" in reading
    assert "No lever kept all three within seed noise on this data." in reading


def test_dev_reading_names_the_best_candidate_in_posts():
    def run(arm: str, fpr: float, auprc: float | None = None) -> dict:
        out = {
            "arm": arm,
            "epoch_dev": [
                {"accuracy": 0.7, "fpr_identity": 0.5, "n_normal_identity": 80},
                {"accuracy": 0.73, "fpr_identity": fpr, "n_normal_identity": 80},
            ],
        }
        if auprc is not None:
            out["dev_plausibility"] = {"auprc": auprc}
        return out

    dev = {
        "runs": [run("lambda0", 0.375, 0.30), run("remove", 0.300), run("remove:both:3", 0.2375), run("add", 0.3, 0.8)]
    }
    text = rrd._dev_reading(dev)[0]
    assert "`remove:both:3`'s 0.237" in text and "11 of 80 posts" in text
    assert "Highest dev AUPRC: `add` (0.800)" in text


def test_precision_pairs_runs_by_seed_and_says_whether_a_verdict_flipped():
    """bf16 against float32: per-seed differences come from the runs of the same arm and seed, the training
    times are each arm's means, and the closing line says a verdict flipped only when one did."""

    def run(arm: str, seed: int, fpr: float, acc: float, seconds: float) -> dict:
        return {"arm": arm, "seed": seed, "train_seconds": seconds, "test": {"fpr_identity": fpr, "accuracy": acc}}

    def doc(fprs: dict[str, list[float]], seconds: float, verdict: str) -> dict:
        runs = [run(a, s, v, 0.77, seconds) for a, vs in fprs.items() for s, v in enumerate(vs)]
        arms = {
            a: {
                "fpr_identity": {"mean": sum(vs) / len(vs), "std": 0.0, "n": len(vs)},
                "accuracy": {"mean": 0.77, "std": 0.0, "n": len(vs)},
            }
            for a, vs in fprs.items()
        }
        comparison = {"diff": -0.03, "seed_noise": 0.02, "verdict": verdict}
        return {
            "runs": runs,
            "config": {"seeds": [0, 1]},
            "summary": {"arms": arms, "comparisons": {"remove_vs_lambda0:fpr_identity": comparison}},
            "base": {"test": {"accuracy": 0.778, "n_normal_identity": 400}},
            "environment": {"cpu_model": "CPU", "loadavg_start": [0.1, 0.2, 0.3]},
        }

    fp32 = doc({"lambda0": [0.30, 0.32], "remove": [0.25, 0.27]}, 40.0, "better")
    bf16 = doc({"lambda0": [0.30, 0.31], "remove": [0.255, 0.27]}, 20.0, "better")
    lines = rrd.precision(fp32, bf16)
    text = "\n".join(lines)
    remove_fpr = next(x for x in lines if x.startswith("| **debugged**") and "identity FPR" in x)
    assert remove_fpr.endswith("| +0.005, +0.000 |")
    lambda0_fpr = next(x for x in lines if x.startswith("| λ = 0") and "identity FPR" in x)
    assert lambda0_fpr.endswith("| +0.000, -0.010 |")
    assert "λ = 0 (continued training) 40 → 20 s" in text
    assert "at most 0.010 on a seed (4 of the 400 normal identity posts" in text
    assert "Every verdict is the same in both precisions." in text
    flipped = rrd.precision(fp32, doc({"lambda0": [0.30, 0.31], "remove": [0.26, 0.28]}, 20.0, "within_noise"))
    assert "Every verdict is the same" not in "\n".join(flipped)
    assert any("the seeds decide it, not the precision" in x for x in flipped)
    assert rrd.precision(fp32, None) == []


def test_graph_rows_judge_like_for_like_and_against_the_eager_plain_step(tmp_path):
    """A graphed ER step is judged twice: against a graphed plain step (like for like) and against the eager
    plain step; the section reads the demo seeds from the files and says what the clean accuracy did."""
    import json

    import report_graphs as rg

    def step_doc(ms: dict[str, float]) -> dict:
        res = {v: {"median_step_s": t / 1000, "peak_memory_mib": 500.0} for v, t in ms.items()}
        ratios = {f"{v}_vs_plain": t / ms["plain"] for v, t in ms.items() if v != "plain"}
        ratios.update({f"{v}_vs_plain_graphs": t / ms["plain_graphs"] for v, t in ms.items() if v.endswith("_graphs")})
        return {"results": res, "ratios": ratios, "params": {"timed_steps": 12}}

    (tmp_path / "er_overhead_graphs_cuda.json").write_text(
        json.dumps(step_doc({"plain": 20.0, "plain_graphs": 8.0, "both_graphs": 12.1, "both_attr_every4_graphs": 9.0}))
    )
    rows = {(r[0], r[2]): r[3] for r in rg.target_rows(tmp_path)}
    assert rows[("**GPU** ER step with CUDA graphs vs a graphed plain step, `both` default", "1.51x")] == ("**missed**")
    assert rows[("**GPU** ER step with CUDA graphs vs the eager plain step, `both` default", "0.60x")] == ("**met**")
    assert len(rows) == 4
    assert rg.section(tmp_path) == []  # no capture check: no section

    def demo(train_s: float, clean_after: float, share_after: float, graphs: dict | None) -> dict:
        share = {"before": {"mean_share": 0.25}, "after": {"mean_share": share_after}}
        return {
            "retrain": {"train_loop_seconds": train_s, "seconds": train_s + 2, "graphs": graphs},
            "metrics": {
                "clean_before": 0.99,
                "clean_after": clean_after,
                "anti_before": 0.0,
                "anti_after": 1.0,
                "planted_word_share": share,
            },
        }

    check = {
        "environment": {"torch": "2.x"},
        "params": {"n": 64, "batch_size": 16},
        "graphs_vs_static": {"max_loss_diff": 1e-7, "max_rel_loss_diff": 1e-6, "max_weight_diff": 1e-6},
        "static_vs_eager": {"max_loss_diff": 1e-7, "max_rel_loss_diff": 1e-6, "max_weight_diff": 1e-6},
        "speedup_train_loop": {"graphs_vs_eager": 2.0},
        "runs": {"graphs": {"graphs": {"graphs": 2, "eager_steps": 4, "replays": 10}, "losses": [[1, 0]] * 14}},
    }
    (tmp_path / "graphs_check_cuda.json").write_text(json.dumps(check))
    g = {"graphs": 3, "replays": 120, "eager_steps": 6}
    for seed, (ce, cg) in enumerate(((0.99, 0.98), (0.985, 0.99), (0.99, 0.97))):
        (tmp_path / f"demo_speed_eager_seed{seed}_cuda.json").write_text(json.dumps(demo(8.0, ce, 0.05, None)))
        (tmp_path / f"demo_speed_graphs_seed{seed}_cuda.json").write_text(json.dumps(demo(4.0, cg, 0.04, g)))
    text = "\n".join(rg.section(tmp_path))
    assert "Training took 4.0 s with graphs against 8.0 s eager (2.0x faster, capture included)" in text
    assert (
        "clean accuracy moved -2.00 to +0.00 points (mean -1.00) with graphs against -0.50 to +0.00 (mean -0.17) eager"
        in text
    )
    assert "fell 84%–84% (mean 84.0%) with graphs against 80%–80% (mean 80.0%) eager" in text
    assert "| graphs, seed 2 | 4.0 | 6.0 | 0.9900 → 0.9700 | 0.000 → 1.000 | 0.250 → 0.040 (-84%) |" in text


def test_the_static_step_arithmetic_table_sets_the_first_version_beside_the_current_one(tmp_path):
    """Each CPU static-step file with its ``_before`` twin gives a row per variant with both ratios; a file
    without its twin gives none (a ratio without what it is compared with says nothing)."""
    import json

    import report_graphs as rg

    def doc(ratios: dict[str, float]) -> str:
        return json.dumps(
            {"environment": {"cpu_model": "Test CPU", "loadavg_start": [0.5, 0.4, 0.3]}, "ratios": ratios}
        )

    assert rg._static_arithmetic(tmp_path) == []
    (tmp_path / "er_overhead_static_b16.json").write_text(doc({"both_graphs_vs_plain_cpu": 2.3}))
    assert rg._static_arithmetic(tmp_path) == []
    (tmp_path / "er_overhead_static_b16_before.json").write_text(doc({"both_graphs_vs_plain_cpu": 4.3}))
    text = "\n".join(rg._static_arithmetic(tmp_path))
    assert "| batch 16, 8 rows with feedback | `both` default, static step | 4.30x | 2.30x |" in text
    assert "| batch 16, 8 rows with feedback | `erasure`, static step | – | – |" in text
    assert "Test CPU" in text and "load average 0.50" in text
