"""The *suspicious* flag: exact binomial tails, Benjamini–Hochberg q-values, and the rule on
constructed vocabularies (a chance skew is not flagged, a strong skew the model leans on is, and on a
vocabulary with no real skew the flags stay within the false-discovery rate)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from xmd.core.aggregate import TaskAggregate
from xmd.core.skewtest import QLookup, bh_q_values, binom_sf, skew_p_values
from xmd.core.suspicion import SUSPICIOUS_Q, default_min_count, is_suspicious
from xmd.core.types import Explanation
from xmd.core.words import split_words


def exact_sf(k: int, n: int, p: Fraction) -> float:
    return float(sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1)))


@pytest.mark.parametrize(
    ("n", "p"), [(1, Fraction(1, 2)), (7, Fraction(1, 3)), (40, Fraction(2, 3)), (300, Fraction(1, 10))]
)
def test_binomial_tail_is_exact(n, p):
    ks = np.arange(0, n + 1)
    got = binom_sf(ks, np.full(ks.shape, n), np.full(ks.shape, float(p)))
    want = np.array([exact_sf(int(k), n, p) for k in ks])
    # relative accuracy where the tail is small (the part a test decides on), absolute elsewhere
    small = want < 0.5
    assert np.allclose(got[small], want[small], rtol=1e-9, atol=0)
    assert np.allclose(got, want, rtol=0, atol=1e-12)


def test_binomial_tail_edges():
    assert binom_sf(np.array([0]), np.array([5]), np.array([0.3]))[0] == 1.0  # P(X >= 0)
    assert binom_sf(np.array([6]), np.array([5]), np.array([0.3]))[0] == 0.0  # more than n
    assert binom_sf(np.array([1]), np.array([5]), np.array([0.0]))[0] == 0.0
    assert binom_sf(np.array([5]), np.array([5]), np.array([1.0]))[0] == 1.0
    # a huge count: 600 of 600 at p = 0.65 (the demo's planted word) is astronomically unlikely
    assert 0 < binom_sf(np.array([600]), np.array([600]), np.array([0.65]))[0] < 1e-100


def test_bh_q_values_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.5])
    # sorted 0.01, 0.03, 0.04, 0.5 -> x m/i = 0.04, 0.06, 0.0533, 0.5 -> running min from the right
    assert bh_q_values(p) == pytest.approx([0.04, 0.05333333, 0.05333333, 0.5])
    lookup = QLookup(p)
    assert lookup(0.03) == pytest.approx(0.05333333) and lookup(0.5) == pytest.approx(0.5)


def test_p_value_takes_the_best_label_times_the_number_of_labels():
    prior = [0.5, 0.5]
    p = skew_p_values(np.array([[0, 10], [10, 0], [5, 5]]), prior)
    assert p[0] == pytest.approx(2 * 0.5**10) and p[1] == pytest.approx(2 * 0.5**10)
    assert p[2] == 1.0  # the min tail is P(X >= 5) = 0.623, times 2, capped
    # only one label in the data: nothing to test
    assert list(skew_p_values(np.array([[4, 0]]), [1.0, 0.0])) == [1.0]


def _exp(words: list[str], scores: list[float]) -> Explanation:
    text = " ".join(words)
    w, spans = split_words(text)
    return Explanation(words=w, spans=spans, scores=scores, target=0, probs=[0.5, 0.5], method="t", n_seen=len(w))


def _agg(rows: list[tuple[int, list[str], list[float]]]) -> TaskAggregate:
    agg = TaskAggregate(2, label_names=["neg", "pos"])
    for i, (label, words, scores) in enumerate(rows):
        agg.add(f"e{i}", label, _exp(words, scores))
    return agg


def _filler(rng: random.Random, k: int) -> list[str]:
    return [f"f{rng.randrange(40)}" for _ in range(k)]


def test_a_chance_skew_is_not_flagged_and_a_strong_skew_the_model_leans_on_is():
    rng = random.Random(0)
    rows = []
    for i in range(400):
        label = i % 2
        words = _filler(rng, 6)
        scores = [1.0] * 6
        if label == 1 and i < 120:  # "planted" in 60 positive examples only, and the model leans on it
            words.append("planted")
            scores.append(8.0)
        if i in (0, 1, 3, 5):  # "lucky": 3 positive, 1 negative, and the model leans on it: chance
            words.append("lucky")
            scores.append(8.0)
        if label == 1 and i >= 300 and i < 360:  # "ignored": as skewed as planted, but the model ignores it
            words.append("ignored")
            scores.append(0.2)
        rows.append((label, words, scores))
    agg = _agg(rows)
    lucky, planted, ignored = agg.stats("lucky"), agg.stats("planted"), agg.stats("ignored")
    assert lucky is not None and planted is not None and ignored is not None
    assert lucky.label_counts == [1, 3] and lucky.lean > 2 and lucky.q_value > SUSPICIOUS_Q
    assert not is_suspicious(lucky)
    assert planted.q_value < 1e-10 and planted.lean > 2 and is_suspicious(planted)
    assert ignored.q_value < 1e-6 and ignored.lean < 1 and not is_suspicious(ignored)
    flagged = [w.word for w in agg.ranking(sort="suspicion", limit=1000) if w.suspicious]
    assert flagged == ["planted"]


def test_a_small_sample_skew_is_chance():
    rng = random.Random(1)
    rows = []
    for i in range(200):
        label = i % 2
        words, scores = _filler(rng, 5), [1.0] * 5
        if i in (1, 3, 5):  # three positive examples: skew 1 by the old rule, but 3 of 3 at p = 1/2 is chance
            words.append("rare")
            scores.append(10.0)
        rows.append((label, words, scores))
    rare = _agg(rows).stats("rare")
    assert rare is not None and rare.skew > 0.5 and rare.lean > 2
    assert rare.p_value == pytest.approx(2 * 0.5**3) and not is_suspicious(rare)


def test_false_flags_stay_within_the_fdr_on_a_null_vocabulary():
    """Labels drawn independently of the words: every flag is false. Over seeds, the share of runs
    with any flag (the family-wise rate, which bounds the FDR under the complete null) stays <= q."""
    runs_with_flags = 0
    seeds = 20
    for seed in range(seeds):
        rng = random.Random(seed)
        rows = []
        for _ in range(300):
            k = rng.randint(3, 8)
            words = [f"w{rng.randrange(150)}" for _ in range(k)]
            scores = [rng.expovariate(1.0) * (5.0 if w < "w20" else 1.0) for w in words]
            rows.append((rng.randrange(2), words, scores))
        flagged = [w for w in _agg(rows).ranking(sort="suspicion", limit=1000) if w.suspicious]
        runs_with_flags += bool(flagged)
    assert runs_with_flags / seeds <= SUSPICIOUS_Q


def test_default_min_count_is_where_a_word_could_pass_the_skew_test() -> None:
    """Issue 30 §6: chosen from the label shares, so a balanced set's suspicion list does not start with
    words seen twice; a minority label (the usual hate-speech shape) lets rarer words through."""
    assert default_min_count([0.5, 0.5]) == 6
    assert default_min_count([0.7, 0.3]) == 4
    assert default_min_count([0.9, 0.1]) == 2
    assert default_min_count([1.0, 0.0]) == default_min_count([0.0, 0.0]) == 2  # nothing to test yet
    for prior in ([0.5, 0.5], [0.7, 0.3], [1 / 3] * 3):
        k = default_min_count(prior)
        best = min(
            float(skew_p_values([[k - 1 if j == i else 0 for j in range(len(prior))]], prior)[0])
            for i in range(len(prior))
        )
        assert best >= SUSPICIOUS_Q  # one count fewer: no word could be significant
