"""Comparison statistics on constructed numbers: metrics, the word false-positive rate, the paired
bootstrap and the verdict rule (issue 14: an effect is claimed only against controls and seed noise)."""

from __future__ import annotations

import numpy as np
import pytest
from xmd.core.compare import (
    choose_positive,
    compare_predictions,
    contains_words,
    overall_verdict,
    paired_bootstrap,
    removed_task_words,
    resample_weights,
    set_metrics,
    verdict,
)
from xmd.core.evaluate import macro_f1, per_class_f1
from xmd.core.types import Action, DataError, Example, TaskFeedback

LABELS = ["normal", "toxic"]


def test_word_fpr_on_a_constructed_set():
    texts = ["the Jews are here", "nice day", "jews, muslims", "hello", "Muslims pray", "you idiot"]
    y = [0, 0, 0, 0, 1, 1]  # four normal posts: two with an identity word, two without
    p = [1, 0, 1, 1, 1, 1]  # flags both identity posts, one of the two others
    has = contains_words(texts, ["jews", "MUSLIMS"])
    assert has.tolist() == [True, False, True, False, True, False]
    m = set_metrics(y, p, LABELS, has_words=has, positive=1)
    assert m["fpr_words"] == 1.0 and m["fpr_other"] == 0.5 and m["fpr_gap"] == 0.5
    assert m["n_negative_words"] == 2 and m["n_negative_other"] == 2
    assert m["positive_label"] == "toxic"
    assert m["accuracy"] == pytest.approx(3 / 6)
    # No normal post without the words: that rate is undefined, not 0.
    m = set_metrics([0, 1], [1, 1], LABELS, has_words=[True, False], positive=1)
    assert m["fpr_words"] == 1.0 and m["fpr_other"] is None and m["fpr_gap"] is None


def test_word_fnr_is_the_flagged_class_missed_on_each_slice():
    """Issue 30 §3: the false-negative rate of the flagged class, on the words' slice and off it."""
    texts = ["jews are vermin", "kill the muslims", "you idiot", "go away scum", "jews pray", "nice"]
    y = [1, 1, 1, 1, 0, 0]  # four toxic posts: two with an identity word, two without
    p = [0, 1, 0, 0, 0, 0]  # misses one of the identity ones, both of the others
    has = contains_words(texts, ["jews", "muslims"])
    m = set_metrics(y, p, LABELS, has_words=has, positive=1)
    assert m["fnr_words"] == 0.5 and m["fnr_other"] == 1.0
    assert m["n_positive_words"] == 2 and m["n_positive_other"] == 2
    boot = paired_bootstrap(y, np.array([p]), np.array([y]), LABELS, has_words=has, positive=1, n_resamples=200)
    assert boot["fnr_words"]["diff"] == 0.5 and boot["fnr_other"]["diff"] == 1.0
    lo, hi = boot["fnr_words"]["ci_low"], boot["fnr_words"]["ci_high"]
    assert lo is not None and hi is not None and lo <= 0.5 <= hi


def test_set_metrics_agree_with_evaluate():
    rng = np.random.default_rng(3)
    for k in (2, 3, 4):
        y = rng.integers(0, k, 50)
        p = rng.integers(0, k - 1, 50)  # the last class is never predicted
        names = [f"c{i}" for i in range(k)]
        m = set_metrics(y, p, names)
        assert m["macro_f1"] == pytest.approx(macro_f1(y, p, k))
        ref = per_class_f1(y, p, k)
        assert [m["per_class_f1"][n] for n in names] == pytest.approx(ref)


def test_choose_positive_rules():
    exs = [Example(str(i), t, lab) for i, (t, lab) in enumerate([("jews x", 1), ("jews y", 1), ("a", 0), ("b", 0)])]
    assert choose_positive(exs, 2, ["jews"]) == (1, "word_lift")
    flipped = [Example(e.id, e.text, 1 - e.label) for e in exs]
    assert choose_positive(flipped, 2, ["jews"]) == (0, "word_lift")
    assert choose_positive(exs, 2, ["absent"]) == (1, "minority")  # balanced: tie goes to index 1
    assert choose_positive(exs[:3], 2, []) == (0, "minority")
    assert choose_positive(exs, 2, ["jews"], given=0) == (0, "given")
    with pytest.raises(DataError):
        choose_positive(exs, 2, ["jews"], given=2)


def test_removed_task_words_follow_resets_and_overrides():
    task = [
        TaskFeedback("Jews", Action.REMOVE),
        TaskFeedback("gay", Action.REMOVE),
        TaskFeedback("gay", Action.RESET),
        TaskFeedback("great", Action.ADD),
    ]
    assert removed_task_words(task) == ["jews"]


def test_resample_weights_match_an_index_loop():
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    w = resample_weights(9, 5, rng_a)
    idx = rng_b.integers(0, 9, size=(5, 9))
    for r in range(5):
        assert w[r].tolist() == np.bincount(idx[r], minlength=9).tolist()
    assert (w.sum(axis=1) == 9).all()


def flip(y: np.ndarray, acc: float, seed: int) -> np.ndarray:
    """Predictions that are right on exactly ``acc`` of the examples (a random subset is flipped)."""
    p = y.copy()
    p[np.random.default_rng(seed).permutation(y.size)[: round(y.size * (1 - acc))]] ^= 1
    return p


def constructed_pair(n: int = 2000, acc_a: float = 0.80, acc_b: float = 0.70, seed: int = 0):
    """Gold labels and two prediction vectors whose accuracies are exactly ``acc_a`` and ``acc_b``."""
    y = np.random.default_rng(seed).integers(0, 2, n)
    return y, flip(y, acc_a, seed + 1), flip(y, acc_b, seed + 2)


def test_bootstrap_ci_contains_the_true_difference_and_is_deterministic():
    y, a, b = constructed_pair()
    res = paired_bootstrap(y, a[None], b[None], LABELS, n_resamples=1000, seed=1)
    acc = res["accuracy"]
    assert acc["diff"] == pytest.approx(0.10)
    assert acc["ci_low"] < 0.10 < acc["ci_high"]
    assert acc["ci_low"] > 0.05 and acc["ci_high"] < 0.15  # 2000 examples: about ±0.03
    assert paired_bootstrap(y, a[None], b[None], LABELS, n_resamples=1000, seed=1) == res
    assert paired_bootstrap(y, a[None], b[None], LABELS, n_resamples=1000, seed=2)["accuracy"] != acc
    same = paired_bootstrap(y, a[None], a[None], LABELS, n_resamples=200, seed=1)["accuracy"]
    assert same == {"diff": 0.0, "ci_low": 0.0, "ci_high": 0.0}


def test_bootstrap_matches_a_slow_loop_and_averages_paired_seeds():
    y, a, b = constructed_pair(n=60)
    a2, b2 = flip(y, 0.9, 5), flip(y, 0.6, 6)
    res = paired_bootstrap(y, np.stack([a, a2]), np.stack([b, b2]), LABELS, n_resamples=300, seed=4)
    idx = np.random.default_rng(4).integers(0, 60, size=(300, 60))
    diffs = [np.mean([np.mean(pa[i] == y[i]) - np.mean(pb[i] == y[i]) for pa, pb in ((a, b), (a2, b2))]) for i in idx]
    assert res["accuracy"]["ci_low"] == pytest.approx(np.quantile(diffs, 0.025))
    assert res["accuracy"]["ci_high"] == pytest.approx(np.quantile(diffs, 0.975))
    full = np.mean([np.mean(a == y) - np.mean(b == y), np.mean(a2 == y) - np.mean(b2 == y)])
    assert res["accuracy"]["diff"] == pytest.approx(full)
    with pytest.raises(DataError):
        paired_bootstrap(y, a[None], np.stack([b, b2]), LABELS)


@pytest.mark.parametrize(
    ("diff", "lo", "hi", "noise", "direction", "expected"),
    [
        (0.05, 0.02, 0.08, 0.01, 1, "better"),  # interval above 0 and beyond seed noise
        (0.05, 0.02, 0.08, 0.06, 1, "within_noise"),  # seeds vary more than the gain
        (0.05, -0.01, 0.11, 0.0, 1, "within_noise"),  # interval straddles 0
        (-0.05, -0.08, -0.02, 0.01, 1, "worse"),
        (-0.05, -0.08, -0.02, 0.01, -1, "better"),  # lower FPR is better
        (0.05, 0.02, 0.08, 0.01, -1, "worse"),
        (None, None, None, 0.0, 1, "within_noise"),
    ],
)
def test_verdict_rule(diff, lo, hi, noise, direction, expected):
    assert verdict(diff, lo, hi, noise, direction) == expected


def test_overall_verdict():
    assert overall_verdict({"lambda0": "better", "deletion": "better"}) == ("better", "better than both controls")
    assert overall_verdict({"lambda0": "better"}) == ("better", "better than the control")
    assert overall_verdict({"lambda0": "better", "deletion": "within_noise"})[0] == "within_noise"
    assert overall_verdict({"lambda0": "better", "deletion": "worse"}) == ("worse", "worse")


def test_compare_predictions_end_to_end_on_constructed_arms():
    y = np.random.default_rng(0).integers(0, 2, 1500)
    # Three seeds each: the debugged arm (85%) beats lambda0 (70%) clearly, deletion (84.5%) not.
    preds = {
        "debug": np.stack([flip(y, 0.85, s) for s in (1, 2, 3)]),
        "lambda0": np.stack([flip(y, 0.70, s) for s in (4, 5, 6)]),
        "deletion": np.stack([flip(y, 0.845, s) for s in (7, 8, 9)]),
    }
    res = compare_predictions(y, preds, LABELS)
    assert res["arms"]["debug"]["mean"]["accuracy"] == pytest.approx(0.85)
    assert res["arms"]["debug"]["std"]["accuracy"] == pytest.approx(0.0)
    assert len(res["arms"]["deletion"]["per_seed"]) == 3
    assert res["differences"]["lambda0"]["accuracy"]["verdict"] == "better"
    assert res["differences"]["deletion"]["accuracy"]["verdict"] == "within_noise"
    assert res["verdicts"]["accuracy"] == {
        "verdict": "within_noise",
        "text": "within noise",
        "per_control": {"lambda0": "better", "deletion": "within_noise"},
    }
    assert set(res["differences"]["lambda0"]) >= {"accuracy", "macro_f1", "f1:normal", "f1:toxic"}
    assert "fpr_words" not in res["verdicts"]  # no words given, no bias verdict
    # Seed noise larger than the gain turns a clear interval into "within noise".
    noisy = {**preds, "debug": np.stack([flip(y, acc, s) for acc, s in ((0.95, 1), (0.75, 2), (0.85, 3))])}
    res = compare_predictions(y, noisy, LABELS)
    d = res["differences"]["lambda0"]["accuracy"]
    assert d["ci_low"] > 0 and d["noise"] == pytest.approx(0.1) and d["diff"] == pytest.approx(0.15)
    assert d["verdict"] == "better"
    res = compare_predictions(y, {**noisy, "lambda0": np.stack([flip(y, 0.78, s) for s in (4, 5, 6)])}, LABELS)
    d = res["differences"]["lambda0"]["accuracy"]
    assert d["ci_low"] > 0 and d["diff"] < d["noise"] and d["verdict"] == "within_noise"
