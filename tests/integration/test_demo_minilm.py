"""The real-model story of ``xmd demo``: on the demo data with the real all-MiniLM-L6-v2, one task-level
*remove* on the planted word must make the model stop using it, without wrecking the model.

One fast story (issue 29 §6): 1,000 training examples instead of the demo's 2,000, about two minutes on two
quiet cores. At this size (measured, seed 0) the baseline reaches 0.93 clean and 0 anti-shortcut accuracy; after
the remove, 0.945 and 0.845, the word's grad x input share on the feedback rows falls 78 % and its occlusion
share from 0.94 to 0.22. The bounds below leave room for that; the core's acceptance at the demo's full size
(share down >= 80 %, anti-shortcut accuracy >= 0.95, clean accuracy down <= 1 point, with seeds) is measured
by ``bench/demo`` and ``bench/effect``, not here. A naive loss can raise anti-shortcut accuracy by wrecking
the model; the clean bound is there to catch that.
"""

from __future__ import annotations

import pytest
from xmd.core.demo import SHORTCUT_WORD
from xmd.core.demo_story import prepare_baseline, run_demo
from xmd.core.pipeline import EFFECT_MAX_EXAMPLES

pytestmark = pytest.mark.slow
N_TRAIN = 1000


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("demo")
    return run_demo(workdir, n_train=N_TRAIN, device="cpu", progress=False)


def test_the_planted_word_is_found(report):
    top = [w["word"] for w in report["top_suspicious"][:3]]
    assert report["removed_word"] == SHORTCUT_WORD, top


def test_the_baseline_learned_the_shortcut(report):
    before = report["metrics_before"]
    assert before["test_clean"]["accuracy"] >= 0.85
    assert before["test_anti"]["accuracy"] <= 0.6


def test_removal_works_without_wrecking_the_model(report):
    before, after = report["metrics_before"], report["metrics_after"]
    # The share of the corrected word, on the training examples the feedback applied to, with the
    # method the UI shows by default (grad x input).
    b = report["feedback_shares_before"]["grad_x_input"]["remove"]
    a = report["feedback_shares_after"]["grad_x_input"]["remove"]
    # Measured over the first EFFECT_MAX_EXAMPLES of the ~300 corrected examples (issue 16).
    assert b["n"] == EFFECT_MAX_EXAMPLES == a["n"]
    assert 1 - a["mean_share"] / b["mean_share"] >= 0.60, (b, a)
    assert after["test_anti"]["accuracy"] - before["test_anti"]["accuracy"] >= 0.25, (before, after)
    assert before["test_clean"]["accuracy"] - after["test_clean"]["accuracy"] <= 0.02, (before, after)


def test_the_effect_carries_over_to_unseen_text(report):
    # On the anti-shortcut test set (never trained on) the planted word's share must fall by a third or more.
    share = report["planted_word_share"]
    assert share["after"]["mean_share"] <= 0.67 * share["before"]["mean_share"], share


def test_occlusion_agrees_that_the_word_is_no_longer_used(report):
    # Gradients can be silenced while the model still uses a word; occlusion (which the loss does
    # not optimise) must show the drop too.
    b = report["feedback_shares_before"]["occlusion"]["remove"]["mean_share"]
    a = report["feedback_shares_after"]["occlusion"]["remove"]["mean_share"]
    assert a <= 0.5 * b, (b, a)


def test_second_run_reuses_the_baseline_and_writes_a_new_version(report, tmp_path_factory):
    from pathlib import Path

    workdir = Path(report["workdir"])
    baseline, _ = prepare_baseline(workdir, n_train=N_TRAIN, device="cpu", progress=False)
    assert str(baseline) == report["baseline"]
    assert (Path(report["debugged"]) / "xmd.json").exists()
