"""TaskAggregate: hand-computed statistics, incremental == recompute, ranking and persistence."""

from __future__ import annotations

import json
import random

import pytest
from xmd.core.aggregate import TaskAggregate, _shares, aggregate
from xmd.core.normalize import normalize_scores
from xmd.core.suspicion import WordStats
from xmd.core.types import DataError, Example, Explanation
from xmd.core.words import is_punctuation, split_words, word_key


def make_exp(text: str, scores: list[float], n_seen: int | None = None, example_id: str | None = None):
    words, spans = split_words(text)
    assert len(words) == len(scores), (words, scores)
    return Explanation(
        words=words,
        spans=spans,
        scores=list(scores),
        target=0,
        probs=[0.5, 0.5],
        method="test",
        n_seen=len(words) if n_seen is None else n_seen,
        example_id=example_id,
    )


# Prior over labelled examples: e1 -> 0, e2 -> 1, e3 -> 1, so [1/3, 2/3]; e4 is unlabelled.
DATA = [
    ("e1", 0, "Spielberg is great", [3.0, -1.0, 0.0]),
    ("e2", 1, "spielberg SPIELBERG bad .", [1.0, 1.0, -2.0, 0.0]),
    ("e3", 1, "great movie", [1.0, 1.0]),
    ("e4", None, "spielberg", [2.0]),
]


@pytest.fixture()
def agg() -> TaskAggregate:
    a = TaskAggregate(2, label_names=["neg", "pos"])
    for eid, label, text, scores in DATA:
        a.add(eid, label, make_exp(text, scores))
    return a


def test_hand_computed_stats(agg):
    assert len(agg) == 4
    assert agg.n_words == 5  # spielberg, is, great, bad, movie; "." is punctuation
    assert agg.prior == pytest.approx([1 / 3, 2 / 3])

    s = agg.stats("Spielberg")
    assert s is not None and s.word == "spielberg"
    assert s.count == 3  # the unlabelled e4 counts here ...
    assert s.label_counts == [1, 1]  # ... but not here
    # e1: 3/4; e2: two occurrences, 1/4 + 1/4; e4: 1
    assert s.mean_importance == pytest.approx((0.75 + 0.5 + 1.0) / 3)
    assert s.mean_signed == pytest.approx((0.75 + 0.5 + 1.0) / 3)
    # P(1|w) = (1 + 2/3) / 3 = 5/9 < prior 2/3 -> clipped to 0
    assert s.skew == 0.0 and s.skew_label == 1 and s.suspicion == 0.0

    s = agg.stats("is")
    assert (s.count, s.label_counts) == (1, [1, 0])
    assert s.mean_importance == pytest.approx(0.25)
    assert s.mean_signed == pytest.approx(-0.25)
    # P(0|w) = (1 + 1/3) / 2 = 2/3; skew = (2/3 - 1/3) / (2/3) = 1/2
    assert s.skew == pytest.approx(0.5) and s.skew_label == 0 and s.skew_label_name == "neg"
    assert s.suspicion == pytest.approx(0.125)

    s = agg.stats("bad")
    assert s.mean_importance == pytest.approx(0.5) and s.mean_signed == pytest.approx(-0.5)
    # P(1|w) = (1 + 2/3) / 2 = 5/6; skew = (5/6 - 2/3) / (1/3) = 1/2
    assert s.skew == pytest.approx(0.5) and s.skew_label == 1 and s.suspicion == pytest.approx(0.25)

    s = agg.stats("great")
    assert (s.count, s.label_counts) == (2, [1, 1])
    assert s.mean_importance == pytest.approx(0.25)  # 0 in e1, 1/2 in e3

    assert agg.stats(".") is None
    assert agg.stats("unseen") is None
    assert agg.examples("SPIELBERG") == ["e1", "e2", "e4"]
    assert agg.examples("spielberg", offset=1, limit=1) == ["e2"]
    assert agg.examples("nope") == []


def test_skew_extremes():
    a = TaskAggregate(2)
    for i in range(9):
        a.add(f"p{i}", 1, make_exp("plain", [1.0]))
    a.add("n", 0, make_exp("token plain", [1.0, 1.0]))
    # prior [0.1, 0.9]; "token" only in the label-0 example: P(0|w) = (1 + .1) / 2 = .55
    s = a.stats("token")
    assert s.skew_label == 0 and s.skew == pytest.approx((0.55 - 0.1) / 0.9)
    # only one label in the data -> no skew at all
    b = TaskAggregate(3)
    b.add("x", 2, make_exp("w", [1.0]))
    assert b.stats("w").skew == 0.0
    # no labelled example -> no skew, no skew label
    c = TaskAggregate(2)
    c.add("x", None, make_exp("w", [1.0]))
    s = c.stats("w")
    assert (s.skew, s.skew_label, s.label_counts) == (0.0, None, [0, 0])


def test_n_seen_truncation_and_filters():
    a = TaskAggregate(2, stopwords=frozenset({"The"}))
    a.add("x", 0, make_exp("the cat , sat down", [1.0, 1.0, 2.0, 0.0, 0.0], n_seen=3))
    # shares over the whole example: the/cat 1/4, "," 1/2 (punctuation: skipped, but it still
    # takes its share); sat/down were not seen.
    assert a.n_words == 1
    assert a.stats("cat").mean_importance == pytest.approx(0.25)
    assert a.stats("sat") is None and a.stats("the") is None

    p = TaskAggregate(2, include_punctuation=True)
    p.add("x", 0, make_exp("the cat , sat down", [1.0, 1.0, 2.0, 0.0, 0.0], n_seen=3))
    assert p.stats(",").mean_importance == pytest.approx(0.5)
    assert {w.word for w in p.ranking()} == {"the", "cat", ","}


def test_zero_scores_still_count():
    a = TaskAggregate(2)
    a.add("x", 0, make_exp("a b", [0.0, 0.0]))
    s = a.stats("a")
    assert s.count == 1 and s.mean_importance == 0.0 and s.mean_signed == 0.0


def test_shares_match_normalize_scores():
    rng = random.Random(3)
    for _ in range(50):
        scores = [rng.uniform(-3, 3) for _ in range(rng.randint(1, 20))]
        assert _shares(scores) == pytest.approx(normalize_scores(scores), abs=1e-14)
    assert _shares([0.0, 0.0]) == [0.0, 0.0]


def test_rescore_replaces_and_remove_undoes(agg):
    agg.add("e2", 0, make_exp("movie", [5.0]))  # rescore with new text, label and scores
    assert len(agg) == 4
    assert agg.stats("bad") is None
    s = agg.stats("movie")
    assert s.count == 2 and s.label_counts == [1, 1]
    assert s.mean_importance == pytest.approx(0.75)
    assert agg.stats("spielberg").count == 2

    agg.remove("e2")
    assert "e2" not in agg and "e1" in agg and len(agg) == 3
    assert agg.examples("movie") == ["e3"]
    with pytest.raises(KeyError):
        agg.remove("e2")


def test_bad_label_rejected():
    a = TaskAggregate(2)
    with pytest.raises(DataError, match=r"outside 0\.\.1"):
        a.add("x", 2, make_exp("a", [1.0]))
    assert len(a) == 0 and a.n_words == 0
    with pytest.raises(ValueError):
        TaskAggregate(2, label_names=["only one"])


# ---------------------------------------------------------------------- incremental == recompute

VOCAB = [
    *("Spielberg", "spielberg", "SPIELBERG", "great", "bad", "movie", "plot", "the", "a", "film"),
    *("boring", "don't", "Don’t", "acting", ",", ".", "!", "?", "café", "CAFÉ", "x", "y", "z"),
]


def random_exp(rng: random.Random) -> Explanation:
    n = rng.randint(1, 12)
    text = " ".join(rng.choice(VOCAB) for _ in range(n))
    words, _ = split_words(text)
    scores = [rng.choice([0.0, rng.uniform(-2, 2)]) for _ in words]
    n_seen = rng.randint(0, len(words)) if rng.random() < 0.3 else len(words)
    scores = [s if i < n_seen else 0.0 for i, s in enumerate(scores)]
    return make_exp(text, scores, n_seen=n_seen)


def reference(state: dict[str, tuple[int | None, Explanation]], num_labels: int) -> dict[str, dict]:
    """Brute force from the definitions, with the torch normalize_scores."""
    out: dict[str, dict] = {}
    for eid, (label, exp) in state.items():
        shares = normalize_scores(exp.scores)
        per: dict[str, list[float]] = {}
        for i in range(exp.n_seen):
            w = exp.words[i]
            if is_punctuation(w):
                continue
            sign = -1.0 if exp.scores[i] < 0 else 1.0
            acc = per.setdefault(word_key(w), [0.0, 0.0])
            acc[0] += shares[i]
            acc[1] += sign * shares[i]
        for k, (sh, sg) in per.items():
            r = out.setdefault(k, {"ids": [], "imp": 0.0, "sig": 0.0, "lc": [0] * num_labels})
            r["ids"].append(eid)
            r["imp"] += sh
            r["sig"] += sg
            if label is not None:
                r["lc"][label] += 1
    return out


def assert_same(a: WordStats, b: WordStats) -> None:
    assert a.word == b.word
    assert a.count == b.count
    assert a.label_counts == b.label_counts
    assert a.skew_label == b.skew_label
    for f in ("mean_importance", "mean_signed", "skew", "suspicion"):
        assert getattr(a, f) == pytest.approx(getattr(b, f), abs=1e-9), f


def test_incremental_equals_full_recompute():
    rng = random.Random(1234)
    num_labels = 3
    inc = TaskAggregate(num_labels)
    state: dict[str, tuple[int | None, Explanation]] = {}
    next_id = 0
    for step in range(600):
        r = rng.random()
        if r < 0.5 or not state:
            eid = f"ex{next_id:04d}"
            next_id += 1
        elif r < 0.8:
            eid = rng.choice(sorted(state))  # rescore, possibly with a new label
        else:
            eid = rng.choice(sorted(state))
            inc.remove(eid)
            del state[eid]
            continue
        label = rng.choice([None, 0, 1, 2, 2])
        exp = random_exp(rng)
        inc.add(eid, label, exp)
        state[eid] = (label, exp)
        if step % 97 == 0:
            inc.ranking(sort="suspicion")  # populate the cache mid-way; updates must invalidate it

    assert len(state) > 50  # the walk did not wander off to an empty dataset
    fresh = TaskAggregate(num_labels)
    for eid, (label, exp) in state.items():
        fresh.add(eid, label, exp)
    restored = TaskAggregate.from_dict(json.loads(json.dumps(inc.to_dict())))

    ref = reference(state, num_labels)
    assert len(inc) == len(fresh) == len(restored) == len(state)
    assert inc.n_words == fresh.n_words == restored.n_words == len(ref)
    assert inc.label_totals == fresh.label_totals
    for key, r in ref.items():
        s_inc, s_fresh, s_rest = inc.stats(key), fresh.stats(key), restored.stats(key)
        assert_same(s_inc, s_fresh)
        assert_same(s_rest, s_fresh)
        assert s_fresh.count == len(r["ids"])
        assert s_fresh.label_counts == r["lc"]
        assert s_fresh.mean_importance == pytest.approx(r["imp"] / len(r["ids"]), abs=1e-9)
        assert s_fresh.mean_signed == pytest.approx(r["sig"] / len(r["ids"]), abs=1e-9)
        assert inc.examples(key) == sorted(r["ids"]) == fresh.examples(key)
    for sort in ("importance", "count", "suspicion"):
        full_inc = inc.ranking(sort=sort, limit=10_000)
        full_fresh = fresh.ranking(sort=sort, limit=10_000)
        assert len(full_inc) == len(ref)
        for a, b in zip(full_inc, full_fresh, strict=True):
            assert_same(a, b)


# ---------------------------------------------------------------------- ranking


def test_ranking_orders_and_ties(agg):
    by_imp = [w.word for w in agg.ranking()]
    # spielberg .75; bad/movie .5 (tie: count equal, then word); great/is .25 (great has count 2)
    assert by_imp == ["spielberg", "bad", "movie", "great", "is"]
    assert [w.word for w in agg.ranking(sort="count")] == ["spielberg", "great", "bad", "movie", "is"]
    assert [w.word for w in agg.ranking(sort="suspicion")] == ["bad", "movie", "is", "spielberg", "great"]
    with pytest.raises(ValueError, match="unknown sort"):
        agg.ranking(sort="alphabetical")


def test_ranking_filters_and_paging(agg):
    assert [w.word for w in agg.ranking(label=0)] == ["spielberg", "great", "is"]
    assert [w.word for w in agg.ranking(label=1, sort="count")] == ["spielberg", "great", "bad", "movie"]
    assert [w.word for w in agg.ranking(min_count=2)] == ["spielberg", "great"]
    assert [w.word for w in agg.ranking(search="SPIEL")] == ["spielberg"]
    assert [w.word for w in agg.ranking(search="e")] == ["spielberg", "movie", "great"]
    assert agg.ranking(search="zzz") == []
    assert agg.n_matching() == 5
    assert agg.n_matching(label=0) == 3
    assert agg.n_matching(min_count=2, search="g") == 2
    full = [w.word for w in agg.ranking(sort="suspicion")]
    pages = [w.word for off in range(0, 5, 2) for w in agg.ranking(sort="suspicion", offset=off, limit=2)]
    assert pages == full
    assert agg.ranking(offset=10) == []
    assert agg.ranking(limit=0) == []
    with pytest.raises(ValueError):
        agg.ranking(label=2)
    with pytest.raises(ValueError):
        agg.ranking(offset=-1)


def test_ranking_cache_invalidated(agg):
    assert agg.ranking(limit=1)[0].word == "spielberg"
    agg.add("e5", 0, make_exp("zebra", [1.0]))
    assert agg.ranking(limit=1)[0].word == "zebra"
    agg.remove("e5")
    assert agg.ranking(limit=1)[0].word == "spielberg"
    # the prior moved, so skews moved: the suspicion order must be recomputed too
    before = {w.word: w.suspicion for w in agg.ranking(sort="suspicion")}
    for i in range(5):
        agg.add(f"n{i}", 0, make_exp("other", [1.0]))
    after = {w.word: w.suspicion for w in agg.ranking(sort="suspicion")}
    assert after["is"] != before["is"]


# ---------------------------------------------------------------------- convenience and persistence


def test_aggregate_helper_matches_add():
    examples = [Example(eid, text, label) for eid, label, text, _ in DATA]
    exps = [make_exp(text, scores) for _, _, text, scores in DATA]
    by_position = aggregate(exps, examples, label_names=["neg", "pos"])
    assert by_position.num_labels == 2  # from len(probs)
    shuffled = [make_exp(t, s, example_id=eid) for eid, _, t, s in reversed(DATA)]
    by_id = aggregate(shuffled, examples)
    for key in ("spielberg", "is", "bad", "great", "movie"):
        assert_same(by_position.stats(key), by_id.stats(key))
    assert by_position.stats("is").skew_label_name == "neg"
    with pytest.raises(DataError, match="unknown example"):
        aggregate([make_exp("a", [1.0], example_id="nope")], examples)
    with pytest.raises(DataError, match="no example_id"):
        aggregate([*exps, make_exp("a", [1.0])], examples)
    empty = aggregate([], [], num_labels=3)
    assert (len(empty), empty.num_labels, empty.ranking()) == (0, 3, [])


def test_to_dict_round_trip(agg):
    data = json.loads(json.dumps(agg.to_dict()))
    back = TaskAggregate.from_dict(data)
    assert back.label_names == ["neg", "pos"]
    assert [w.to_dict() for w in back.ranking()] == [w.to_dict() for w in agg.ranking()]
    back.remove("e2")  # restored contributions can still be undone
    assert back.stats("bad") is None
    with pytest.raises(DataError, match="version"):
        TaskAggregate.from_dict({**data, "version": 99})
