"""Explanations and word aggregates: incremental updates in SQL equal a fresh core TaskAggregate."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import func, select
from store_helpers import make_explanation, random_examples
from xmd.core.aggregate import TaskAggregate
from xmd.core.suspicion import label_skew
from xmd.core.types import DataError
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words
from xmd.datasets import service as datasets
from xmd.explanations import aggregates, ranking
from xmd.explanations import service as explanations
from xmd.explanations.models import AggregateState, Explanation, WordAggregate, WordOccurrence
from xmd.feedback import service as feedback
from xmd.projects import service as projects
from xmd.versions import service as versions

LABELS = ["neg", "neu", "pos"]
METHOD = "grad_x_input"


def quantised_explanation(text: str, rng: random.Random) -> CoreExplanation:
    """Scores that float32 represents exactly (k/8), so stored == given; ties are frequent on purpose."""
    words, _ = split_words(text)
    scores = [rng.randint(-24, 24) / 8 for _ in words]
    n_seen = len(words) if rng.random() < 0.8 else rng.randint(0, len(words))
    return make_explanation(text, scores, n_seen=n_seen, probs=(0.2, 0.3, 0.5))


@pytest.fixture()
def setup(db):
    project = projects.create(db_session=db, name="p", labels=LABELS, model_source="m")
    rng = random.Random(7)
    ds = datasets.add_dataset(
        db_session=db, project=project, name="train", role="train", examples=random_examples(80, rng, num_labels=3)
    )
    rows = datasets.list_examples(db_session=db, dataset_id=ds.id, limit=1000)
    mv = versions.create_base(db_session=db, project=project, path="/m")
    return project, ds, rows, mv


def _assert_bounds(db, mv, method: str = METHOD) -> int:
    """Every stored rank key equals the one recomputed from the row and the state's floor, the floor is
    at or below the current prior (so each key bounds the word's suspicion) and within the band."""
    state = explanations.get_state(db_session=db, model_version_id=mv.id, method=method)
    prior = aggregates.prior_of(state.label_totals)
    if state.bound_floor is not None:  # None: bounds of the first schema (floor 0), valid for every prior
        assert all(f <= p <= f + 2 * aggregates.BAND for f, p in zip(state.bound_floor, prior, strict=True))
    rows = db.execute(
        select(WordAggregate).where(WordAggregate.model_version_id == mv.id, WordAggregate.method == method)
    ).scalars()
    n = 0
    for row in rows:
        want = aggregates.suspicion_bound(row.importance, row.label_counts, state.bound_floor)
        assert row.suspicion_bound == want, row.word
        skew = label_skew(row.label_counts, prior)[0] if sum(state.label_totals) else 0.0
        assert row.importance * skew <= row.suspicion_bound + 1e-12, row.word
        n += 1
    return n


def _assert_same(db, mv, agg: TaskAggregate, rows_by_ext) -> None:
    assert _assert_bounds(db, mv) == agg.n_words
    state = explanations.get_state(db_session=db, model_version_id=mv.id, method=METHOD)
    assert state.bound_floor is not None or not sum(state.label_totals)
    assert state.n_examples == len(agg)
    assert state.label_totals == agg.label_totals
    n = ranking.count_words(db_session=db, model_version_id=mv.id, method=METHOD)
    assert n == agg.n_words
    stored = ranking.ranking(db_session=db, model_version_id=mv.id, method=METHOD, sort="count", limit=1000)
    assert len(stored) == agg.n_words
    for s in stored:
        ref = agg.stats(s.word)
        assert ref is not None, s.word
        assert (s.count, s.label_counts, s.skew_label, s.skew_label_name) == (
            ref.count,
            ref.label_counts,
            ref.skew_label,
            ref.skew_label_name,
        )
        assert s.mean_importance == pytest.approx(ref.mean_importance, abs=1e-9)
        assert s.mean_signed == pytest.approx(ref.mean_signed, abs=1e-9)
        assert s.skew == pytest.approx(ref.skew, abs=1e-9)
        assert s.suspicion == pytest.approx(ref.suspicion, abs=1e-9)
        # the flag's inputs need the whole vocabulary: the service builds them from its rows as the core does
        assert (s.p_value, s.q_value, s.lean) == pytest.approx((ref.p_value, ref.q_value, ref.lean), rel=1e-9)
        assert s.suspicious == ref.suspicious

    # Same pages, same order and tie-breaks as the core, for every sort and filter.
    for sort in ("importance", "count", "suspicion"):
        for kw in ({}, {"label": 0}, {"label": 2, "min_count": 3}, {"search": "SPIEL"}, {"min_count": 5}):
            for offset, limit in ((0, 100), (0, 3), (2, 4), (50, 10)):
                got = ranking.ranking(
                    db_session=db, model_version_id=mv.id, method=METHOD, sort=sort, offset=offset, limit=limit, **kw
                )
                want = agg.ranking(sort=sort, offset=offset, limit=limit, **kw)
                assert [w.word for w in got] == [w.word for w in want], (sort, kw, offset, limit)
            assert ranking.count_words(db_session=db, model_version_id=mv.id, method=METHOD, **kw) == agg.n_matching(
                **kw
            )

    # Examples containing a word, paged, equal the core's.
    by_id = {r.id: r.ext_id for r in rows_by_ext.values()}
    for word in ("spielberg", "great", "it's", "the"):
        got = ranking.examples_with_word(
            db_session=db, model_version_id=mv.id, method=METHOD, word=word.upper(), limit=1000
        )
        assert sorted(by_id[e.id] for e in got) == sorted(agg.examples(word))
        page = ranking.examples_with_word(
            db_session=db, model_version_id=mv.id, method=METHOD, word=word, offset=2, limit=3
        )
        assert [e.id for e in page] == [e.id for e in got][2:5]


def test_incremental_aggregates_equal_a_fresh_task_aggregate(db, setup):
    _project, _ds, rows, mv = setup
    rng = random.Random(11)
    rows_by_ext = {r.ext_id: r for r in rows}
    current: dict[str, CoreExplanation] = {}

    def upsert(batch: list[tuple]) -> None:
        explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=batch)
        for row, exp in batch:
            current[row.ext_id] = exp

    # 1. first 50 in two batches, one example twice in a batch (the later one wins)
    first = [(r, quantised_explanation(r.text, rng)) for r in rows[:50]]
    upsert(first[:25])
    upsert([*first[25:], (rows[30], quantised_explanation(rows[30].text, rng))])
    # 2. rescore 20 of them, add the remaining 30
    again = [(r, quantised_explanation(r.text, rng)) for r in rng.sample(rows[:50], 20)]
    upsert(again + [(r, quantised_explanation(r.text, rng)) for r in rows[50:]])
    # 3. take 10 out
    gone = rng.sample(rows, 10)
    assert explanations.remove_explanations(
        db_session=db, model_version=mv, method=METHOD, example_ids=[r.id for r in gone]
    ) == len(gone)
    for r in gone:
        current.pop(r.ext_id)

    agg = TaskAggregate(len(LABELS), label_names=LABELS)
    for ext_id, exp in current.items():
        agg.add(ext_id, rows_by_ext[ext_id].label, exp)
    _assert_same(db, mv, agg, rows_by_ext)

    # Reading back in the same session after a rescore gives the new scores (no stale ORM copies).
    rescored = next(r for r, _ in again if r.ext_id in current)
    got = explanations.get_explanation(db_session=db, example_id=rescored.id, model_version_id=mv.id, method=METHOD)
    assert rescored.ext_id in current and got.scores == current[rescored.ext_id].scores

    # Round trip: words from the text, float32 scores, everything else as given.
    r = rows[60]
    got = explanations.get_explanation(db_session=db, example_id=r.id, model_version_id=mv.id, method=METHOD)
    want = current[r.ext_id]
    assert (got.words, got.spans, got.scores, got.n_seen, got.probs, got.example_id) == (
        want.words,
        want.spans,
        want.scores,
        want.n_seen,
        want.probs,
        r.ext_id,
    )
    assert (
        explanations.get_explanation(db_session=db, example_id=gone[0].id, model_version_id=mv.id, method=METHOD)
        is None
    )
    assert (
        explanations.get_explanation(db_session=db, example_id=gone[0].id, model_version_id=mv.id, method="x") is None
    )

    # Another method of the same version is a separate aggregate.
    assert ranking.count_words(db_session=db, model_version_id=mv.id, method="occlusion") == 0
    assert explanations.get_state(db_session=db, model_version_id=mv.id, method="occlusion") is None
    assert explanations.get_state(db_session=db, model_version_id=mv.id, method=METHOD).n_examples == len(current)


def test_unquantised_scores_and_rescoring_back_to_zero(db, setup):
    _project, _ds, rows, mv = setup
    rng = random.Random(3)
    items = [(r, make_explanation(r.text, [rng.gauss(0, 1) for _ in split_words(r.text)[0]])) for r in rows[:30]]
    explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=items)
    stored = {
        r.id: explanations.get_explanation(db_session=db, example_id=r.id, model_version_id=mv.id, method=METHOD)
        for r in rows[:30]
    }
    agg = TaskAggregate(len(LABELS), label_names=LABELS)
    for r, _ in items:
        agg.add(r.ext_id, r.label, stored[r.id])
    for s in ranking.ranking(db_session=db, model_version_id=mv.id, method=METHOD, sort="count", limit=1000):
        assert s.mean_importance == pytest.approx(agg.stats(s.word).mean_importance, abs=1e-9)
        # float32 storage: within float32 precision of the scores as given
    fresh = TaskAggregate(len(LABELS))
    for r, e in items:
        fresh.add(r.ext_id, r.label, e)
    for w in agg.ranking(sort="count", limit=1000):
        assert w.mean_importance == pytest.approx(fresh.stats(w.word).mean_importance, rel=1e-5)

    # Removing everything leaves no word rows and no float residue behind.
    explanations.remove_explanations(db_session=db, model_version=mv, method=METHOD, example_ids=[r.id for r in rows])
    assert db.scalar(select(func.count()).select_from(WordAggregate)) == 0
    assert db.scalar(select(func.count()).select_from(WordOccurrence)) == 0
    state = explanations.get_state(db_session=db, model_version_id=mv.id, method=METHOD)
    assert state.n_examples == 0 and state.label_totals == [0, 0, 0]


def test_validation(db, setup):
    _project, _ds, rows, mv = setup
    wrong = make_explanation("a completely different text", [1.0, 1.0, 1.0, 1.0])
    with pytest.raises(DataError, match="different text"):
        explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=[(rows[0], wrong)])
    db.rollback()
    other = projects.create(db_session=db, name="other", labels=LABELS, model_source="m")
    other_mv = versions.create_base(db_session=db, project=other, path="/o")
    ok = make_explanation(rows[0].text, [1.0] * len(split_words(rows[0].text)[0]))
    with pytest.raises(DataError, match="another project"):
        explanations.upsert_explanations(db_session=db, model_version=other_mv, method=METHOD, items=[(rows[0], ok)])
    with pytest.raises(ValueError):
        ranking.ranking(db_session=db, model_version_id=mv.id, method=METHOD, sort="alphabetical")
    with pytest.raises(ValueError):
        ranking.ranking(db_session=db, model_version_id=mv.id, method=METHOD, label=3)
    assert explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=[]) == 0
    assert ranking.ranking(db_session=db, model_version_id=mv.id, method=METHOD) == []


def test_hand_computed_suspicion(db):
    """The core's own hand-checked numbers (tests/unit/test_aggregate.py) come out of SQL too."""
    project = projects.create(db_session=db, name="hand", labels=["neg", "pos"], model_source="m")
    data = [
        ("e1", 0, "Spielberg is great", [3.0, -1.0, 0.0]),
        ("e2", 1, "spielberg SPIELBERG bad .", [1.0, 1.0, -2.0, 0.0]),
        ("e3", 1, "great movie", [1.0, 1.0]),
        ("e4", None, "spielberg", [2.0]),
    ]
    from xmd.core.types import Example as CoreExample

    ds = datasets.add_dataset(
        db_session=db,
        project=project,
        name="d",
        role="train",
        examples=[CoreExample(id=i, text=t, label=lab) for i, lab, t, _ in data],
    )
    rows = datasets.list_examples(db_session=db, dataset_id=ds.id)
    mv = versions.create_base(db_session=db, project=project, path="/m")
    items = [(r, make_explanation(t, s)) for r, (_, _, t, s) in zip(rows, data, strict=True)]
    explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=items)
    s = ranking.word_stats(db_session=db, model_version_id=mv.id, method=METHOD, word="Spielberg")
    assert s.count == 3 and s.label_counts == [1, 1]
    assert s.mean_importance == pytest.approx((0.75 + 0.5 + 1.0) / 3)
    assert s.skew == 0.0 and s.skew_label == 1 and s.skew_label_name == "pos"
    assert ranking.word_stats(db_session=db, model_version_id=mv.id, method=METHOD, word=".") is None
    top = ranking.ranking(db_session=db, model_version_id=mv.id, method=METHOD, sort="suspicion", limit=2)
    agg = TaskAggregate(2, label_names=["neg", "pos"])
    for r, (_, lab, t, sc) in zip(rows, data, strict=True):
        agg.add(r.ext_id, lab, make_explanation(t, sc))
    assert [w.word for w in top] == [w.word for w in agg.ranking(sort="suspicion", limit=2)]


def test_delete_dataset_takes_its_explanations_out_of_the_ranking(db, setup):
    project, _ds, rows, mv = setup
    rng = random.Random(5)
    other = datasets.add_dataset(
        db_session=db, project=project, name="extra", role="train", examples=random_examples(10, rng, 3, "x")
    )
    extra_rows = datasets.list_examples(db_session=db, dataset_id=other.id)
    explanations.upsert_explanations(
        db_session=db,
        model_version=mv,
        method=METHOD,
        items=[(r, quantised_explanation(r.text, rng)) for r in rows[:20] + extra_rows],
    )
    datasets.delete_dataset(db_session=db, dataset=other)
    agg = TaskAggregate(len(LABELS), label_names=LABELS)
    for r in rows[:20]:
        agg.add(
            r.ext_id,
            r.label,
            explanations.get_explanation(db_session=db, example_id=r.id, model_version_id=mv.id, method=METHOD),
        )
    _assert_same(db, mv, agg, {r.ext_id: r for r in rows})
    assert db.scalar(select(func.count()).select_from(Explanation)) == 20


def test_suspicion_pages_on_a_large_vocabulary(db):
    """Many words with varied label skew, so that the threshold scan has to decide where to stop."""
    from xmd.core.types import Example as CoreExample

    rng = random.Random(23)
    project = projects.create(db_session=db, name="big", labels=["a", "b"], model_source="m")
    vocab = [f"w{i}" for i in range(400)]
    bias = {w: rng.random() for w in vocab}  # P(label 1 | word) differs per word
    exs = []
    for i in range(600):
        words = rng.sample(vocab, rng.randint(2, 12))
        p1 = sum(bias[w] for w in words) / len(words)
        exs.append(CoreExample(id=str(i), text=" ".join(words), label=int(rng.random() < p1**2)))
    ds = datasets.add_dataset(db_session=db, project=project, name="d", role="train", examples=exs)
    rows = datasets.list_examples(db_session=db, dataset_id=ds.id, limit=1000)
    mv = versions.create_base(db_session=db, project=project, path="/m")
    items = []
    for r in rows:
        words = split_words(r.text)[0]
        items.append((r, make_explanation(r.text, [rng.randint(1, 64) / 8 for _ in words])))
    explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=items)
    agg = TaskAggregate(2)
    for r, e in items:
        agg.add(r.ext_id, r.label, e)
    for offset, limit, kw in ((0, 10, {}), (0, 50, {}), (37, 25, {}), (0, 20, {"min_count": 8}), (5, 5, {"label": 0})):
        got = ranking.ranking(
            db_session=db, model_version_id=mv.id, method=METHOD, sort="suspicion", offset=offset, limit=limit, **kw
        )
        want = agg.ranking(sort="suspicion", offset=offset, limit=limit, **kw)
        assert [w.word for w in got] == [w.word for w in want], (offset, limit, kw)
        assert [w.suspicion for w in got] == pytest.approx([w.suspicion for w in want], abs=1e-12)
        assert [w.q_value for w in got] == pytest.approx([w.q_value for w in want], rel=1e-9)
        assert [w.suspicious for w in got] == [w.suspicious for w in want]


def test_rank_keys_follow_a_drifting_prior(db):
    """Batches whose labels drift from all-"a" to mostly-"b", with rescores, removals and feedback clicks
    in between: after each write the stored keys equal the recomputed ones (the floor moved several
    times, so rows untouched by a batch were rewritten) and the suspicion pages equal the core's."""
    from xmd.core.types import Example as CoreExample

    rng = random.Random(5)
    project = projects.create(db_session=db, name="drift", labels=["a", "b"], model_source="m")
    vocab = [f"w{i}" for i in range(120)]
    exs = []
    for i in range(400):
        label = int(rng.random() < i / 400)
        exs.append(CoreExample(id=str(i), text=" ".join(rng.sample(vocab, rng.randint(2, 9))), label=label))
    ds = datasets.add_dataset(db_session=db, project=project, name="d", role="train", examples=exs)
    rows = datasets.list_examples(db_session=db, dataset_id=ds.id, limit=1000)
    mv = versions.create_base(db_session=db, project=project, path="/m")
    current: dict[int, tuple] = {}
    floors = set()

    def check() -> None:
        _assert_bounds(db, mv)
        state = explanations.get_state(db_session=db, model_version_id=mv.id, method=METHOD)
        floors.add(tuple(state.bound_floor or ()))
        agg = TaskAggregate(2)
        for r, e in current.values():
            agg.add(r.ext_id, r.label, e)
        for offset, limit, kw in ((0, 10, {}), (0, 40, {}), (7, 9, {"min_count": 3}), (0, 15, {"label": 1})):
            got = ranking.ranking(
                db_session=db, model_version_id=mv.id, method=METHOD, sort="suspicion", offset=offset, limit=limit, **kw
            )
            want = agg.ranking(sort="suspicion", offset=offset, limit=limit, **kw)
            assert [w.word for w in got] == [w.word for w in want], (offset, limit, kw)

    def explain(r):
        return make_explanation(r.text, [rng.randint(1, 64) / 8 for _ in split_words(r.text)[0]])

    for start in range(0, 400, 40):
        batch = [(r, explain(r)) for r in rows[start : start + 40]]
        explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=batch)
        current.update({r.id: (r, e) for r, e in batch})
        check()
        if start % 120 == 0:  # rescore some earlier ones
            again = [(r, explain(r)) for r, _ in rng.sample(list(current.values()), 15)]
            explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=again)
            current.update({r.id: (r, e) for r, e in again})
            check()
        if start % 160 == 80:  # take some label-"a" ones out: the prior moves the other way too
            gone = [r.id for r, _ in current.values() if r.label == 0][:25]
            explanations.remove_explanations(db_session=db, model_version=mv, method=METHOD, example_ids=gone)
            for eid in gone:
                current.pop(eid)
            check()
        feedback.set_feedback(db_session=db, project=project, action="remove", word=rows[start].text.split()[0])
        feedback.set_feedback(db_session=db, project=project, action="remove", example=rows[start + 1], word_index=0)
        check()
    assert len(floors) >= 4, floors  # the floor followed the prior


def test_bounds_of_the_first_schema_stay_valid_and_are_tightened_on_the_next_write(db, setup):
    """A database upgraded from 0002 has bounds for a zero floor and no ``bound_floor``: pages stay right,
    and the next write recomputes every row for a floor below the prior."""
    _project, _ds, rows, mv = setup
    rng = random.Random(9)
    items = [(r, quantised_explanation(r.text, rng)) for r in rows[:60]]
    explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=items)
    state = db.get(AggregateState, (mv.id, METHOD))
    state.bound_floor = None
    words = db.execute(select(WordAggregate).where(WordAggregate.model_version_id == mv.id)).scalars().all()
    for w in words:
        w.suspicion_bound = aggregates.suspicion_bound(w.importance, w.label_counts)
    db.commit()
    assert _assert_bounds(db, mv) == len(words)
    agg = TaskAggregate(len(LABELS))
    for r, e in items:
        agg.add(r.ext_id, r.label, e)
    got = ranking.ranking(db_session=db, model_version_id=mv.id, method=METHOD, sort="suspicion", limit=30)
    assert [w.word for w in got] == [w.word for w in agg.ranking(sort="suspicion", limit=30)]
    explanations.upsert_explanations(
        db_session=db, model_version=mv, method=METHOD, items=[(rows[61], quantised_explanation(rows[61].text, rng))]
    )
    db.expire_all()
    assert explanations.get_state(db_session=db, model_version_id=mv.id, method=METHOD).bound_floor is not None
    assert _assert_bounds(db, mv) >= len(words)
