"""The benchmark report: verdicts follow the numbers, the generated files are current, the folder keeps its rules.

The READMEs and BENCHMARKS.md are generated from ``bench/<study>/results/*.json``; these check, on constructed
documents, that a ratio just over a target reads *missed*, that levers are compared paired by seed, and, on
the committed results, that every generated file is what ``make bench-report`` would write.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bench.effect.tables import every_accepted
from bench.er_speed.tables import GPU_ER_TARGET, gpu_targets
from bench.graphs_gpu import tables as graphs
from bench.real_data import tables as real
from bench.report import build, fmt

ROOT = Path(__file__).resolve().parents[2]


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
    verdict = {r[0].split("step, ", 1)[1]: r[3] for r in gpu_targets(docs)}
    assert GPU_ER_TARGET == 1.5
    assert verdict["`both`, default (attribution every batch)"] == "**missed**"
    assert verdict["`both`, `attribution_every=4`"] == "**met**"
    # bf16 is judged against its own bf16 plain step, not the float32 one.
    assert verdict["`both`, bf16 autocast (vs a bf16 plain step)"] == "**met**"
    assert verdict["`both`, `attribution_every=8`, batch 64"] == "**missed**"
    # A variant a file did not measure gets no row, and no file means no rows.
    assert not any("attribution_every=2" in k for k in verdict)
    assert gpu_targets({}) == []


def test_graph_rows_judge_like_for_like_and_against_the_eager_plain_step():
    ms = {"plain": 20.0, "plain_graphs": 8.0, "both_graphs": 12.1, "both_attr_every4_graphs": 9.0}
    ratios = {f"{v}_vs_plain": t / ms["plain"] for v, t in ms.items() if v != "plain"}
    ratios.update({f"{v}_vs_plain_graphs": t / ms["plain_graphs"] for v, t in ms.items() if v.endswith("_graphs")})
    rows = {(r[0], r[2]): r[3] for r in graphs.targets({"er_overhead_graphs_cuda": {"ratios": ratios}})}
    assert rows[("**GPU** graphed ER step vs a graphed plain step, `both` default", "1.51x")] == "**missed**"
    assert rows[("**GPU** graphed ER step vs the eager plain step, `both` default", "0.605x")] == "**met**"
    assert len(rows) == 4
    assert graphs.targets({}) == []


def _lever_doc() -> dict:
    def r(arm: str, seed: int, fpr: float, share: float) -> dict:
        secs = {"lambda0": 10.0, "remove": 18.0}.get(arm, 12.0) * (1 + seed)
        return {"arm": arm, "seed": seed, "test": {"fpr_identity": fpr, "accuracy": 0.78},
                "shares": {"grad_x_input": share}, "train_seconds": secs}  # fmt: skip

    def ms(values: list[float]) -> dict:
        m = sum(values) / len(values)
        return {"mean": m, "std": (sum((v - m) ** 2 for v in values) / len(values)) ** 0.5, "n": len(values)}

    runs = [
        r("lambda0", 0, 0.30, 0.13),
        r("lambda0", 1, 0.32, 0.13),
        r("remove", 0, 0.25, 0.08),
        r("remove", 1, 0.27, 0.08),
        r("remove+attribution_every=4", 0, 0.25, 0.10),
        r("remove+attribution_every=4", 1, 0.26, 0.10),
    ]
    arms = {}
    for arm in ("lambda0", "remove", "remove+attribution_every=4"):
        rs = [x for x in runs if x["arm"] == arm]
        arms[arm] = {
            "fpr_identity": ms([x["test"]["fpr_identity"] for x in rs]),
            "accuracy": ms([x["test"]["accuracy"] for x in rs]),
            "share_grad_x_input": ms([x["shares"]["grad_x_input"] for x in rs]),
        }
    return {"runs": runs, "summary": {"arms": arms}}


def test_levers_pair_by_seed_and_compare_with_seed_noise():
    doc = _lever_doc()
    fpr = next(p for p in real.paired(doc, "remove+attribution_every=4", "lambda0") if p[0] == "identity FPR")
    assert fpr[1] == pytest.approx([-0.05, -0.06]) and fpr[2] == pytest.approx(-0.055)
    speed, diffs = real.levers(doc)
    assert speed == [
        ["λ = 0 (continued training)", "15.0", "1.00x (1.00–1.00)"],
        ["debugged: remove identity words", "27.0", "1.80x (1.80–1.80)"],
        ["debugged: remove, `attribution_every=4`", "18.0", "1.20x (1.20–1.20)"],
    ]
    by_metric = {d[1]: d for d in diffs}
    assert by_metric["id. share, grad x input"][2:] == ["+0.020", "0.000", "beyond seed noise"]
    assert by_metric["identity FPR"][4] == "within seed noise"  # +0.005 against a seed std of 0.010


def test_every_k_reading_lists_only_the_k_accepted_on_every_seed():
    summary = {
        "both:1:mse": {"meets_acceptance": True},
        "both:1:mse:2:5:2": {"meets_acceptance": True},
        "both:1:mse:2:5:4": {"meets_acceptance": False},
        "both:1:mse:2:5:8": {},
    }
    assert every_accepted({"summary": summary}) == [1, 2]
    assert every_accepted(None) == []


def test_formats_and_verdicts():
    assert fmt.sig(None) == "–" and fmt.sig(0) == "0" and fmt.sig(1234.5) == "1,234" and fmt.sig(0.98765) == "0.988"
    assert fmt.target_row("x", {"value": 1.36, "op": "<=", "threshold": 1.35, "met": False}, "f")[2:4] == [
        "1.36x",
        "**missed**",
    ]
    assert fmt.judged("y", 20.0, "<=", 20.0, "f", " ms")[3] == "**met**"
    assert fmt.judged("y", None, ">=", 1.7, "f")[3] == "not measured"
    rows = [fmt.judged("a", 1, "<=", 2, "f"), fmt.judged("b", 3, "<=", 2, "f"), fmt.judged("c", None, "<=", 2, "f")]
    assert fmt.count(rows) == "1 of 2 met" and fmt.count([]) == "no target"
    assert fmt.table(["a", "b"], [[1, "x"]]) == "| a | b |\n|---|---|\n| 1 | x |"


def test_the_generated_files_are_current_and_the_summary_links_every_study():
    """What ``make bench-report`` writes is what is committed: edit a template or add a result, regenerate."""
    files = build.render_all()
    stale = [str(p.relative_to(ROOT)) for p, text in files.items() if not p.exists() or p.read_text() != text]
    assert not stale, f"out of date, run make bench-report: {stale}"
    summary = files[ROOT / "BENCHMARKS.md"]
    assert len(summary.splitlines()) <= 300
    for name in build.studies():
        assert f"(bench/{name}/README.md)" in summary
        readme = files[build.BENCH / name / "README.md"]
        assert "**Question.**" in readme and "## Reading" in readme


def test_bench_files_stay_under_450_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "bench").rglob("*")
        if p.is_file() and p.suffix in {".py", ".md", ".j2", ".sh"} and "__pycache__" not in p.parts
        if (n := len(p.read_text().splitlines())) > 450
    }
    assert not long


def _imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    return {n.split(".")[0] for n in names}


def test_bench_and_tests_do_not_import_each_other():
    """bench/ imports no test helper; outside tests/bench (the tests of bench code) no test imports bench."""
    bench_imports = {str(p.relative_to(ROOT)) for p in (ROOT / "bench").rglob("*.py") if "tests" in _imported(p)}
    assert not bench_imports
    test_helpers = {p.stem for p in (ROOT / "tests").rglob("*.py")} - {"conftest", "__init__"}
    bench_to_tests = {str(p.relative_to(ROOT)) for p in (ROOT / "bench").rglob("*.py") if _imported(p) & test_helpers}
    assert not bench_to_tests
    here = Path(__file__).resolve().parent
    tests_to_bench = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("*.py")
        if here not in p.resolve().parents and "bench" in _imported(p)
    }
    assert not tests_to_bench
