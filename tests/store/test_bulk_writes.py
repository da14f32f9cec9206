"""Batched writes of the store (xmd.db.bulk): the same rows as the per-row statements they replaced, and no
update lost when several writers store chunks of one aggregate at once (SQLite and PostgreSQL)."""

from __future__ import annotations

import random
import threading
from datetime import datetime, timezone
from typing import Any

import pytest
from sqlalchemy import bindparam, delete, event, select
from store_helpers import make_explanation, random_examples
from xmd.core.aggregate import TaskAggregate
from xmd.core.words import split_words
from xmd.datasets import service as datasets
from xmd.db import bulk
from xmd.explanations import aggregates, ranking
from xmd.explanations import service as explanations
from xmd.explanations.aggregates import SORT_DIGITS, Delta, suspicion_bound
from xmd.explanations.models import Explanation, WordAggregate, WordOccurrence
from xmd.projects import service as projects
from xmd.versions import service as versions

LABELS = ["neg", "neu", "pos"]
METHOD = "grad_x_input"
_WORDS = WordAggregate.__table__

# ------------------------------------------------------------------ the per-row writes, as they were

_UPDATE_WORD = (
    _WORDS.update()
    .where(
        _WORDS.c.model_version_id == bindparam("k_model_version_id"),
        _WORDS.c.method == bindparam("k_method"),
        _WORDS.c.word == bindparam("k_word"),
    )
    .values(
        {c: bindparam(c) for c in ("count", "sum_share", "sum_signed", "importance", "suspicion_bound", "label_counts")}
    )
)
_UPDATE_BOUND = (
    _WORDS.update()
    .where(
        _WORDS.c.model_version_id == bindparam("k_mv"),
        _WORDS.c.method == bindparam("k_method"),
        _WORDS.c.word == bindparam("k_word"),
    )
    .values(suspicion_bound=bindparam("b"))
)


def per_row_apply(db, mv, method: str, num_labels: int, deltas: dict[str, Delta], floor) -> None:
    """``apply_word_deltas`` before the batched writes: SELECT by IN lists, one UPDATE per changed row
    (executemany), INSERT per new row, DELETE at count 0."""
    existing: dict[str, Any] = {}
    words = sorted(deltas)
    for i in range(0, len(words), 500):
        stmt = select(*aggregates.WORD_COLS).where(
            WordAggregate.model_version_id == mv.id,
            WordAggregate.method == method,
            WordAggregate.word.in_(words[i : i + 500]),
        )
        existing.update({row.word: row for row in db.execute(stmt)})
    updates, inserts, deletes = [], [], []
    for word in words:
        d = deltas[word]
        row = existing.get(word)
        if row is None:
            if d.count <= 0:
                continue
            count, sum_share, sum_signed, labels = d.count, d.sum_share, d.sum_signed, d.label_counts
        else:
            count = row.count + d.count
            if count <= 0:
                deletes.append(word)
                continue
            if d.count == 0 and d.sum_share == 0.0 and d.sum_signed == 0.0 and not any(d.label_counts):
                continue
            sum_share, sum_signed = row.sum_share + d.sum_share, row.sum_signed + d.sum_signed
            old = list(row.label_counts) + [0] * (num_labels - len(row.label_counts))
            labels = [a + b for a, b in zip(old, d.label_counts, strict=True)]
        importance = round(max(0.0, sum_share / count), SORT_DIGITS)
        values = {
            "count": count,
            "sum_share": sum_share,
            "sum_signed": sum_signed,
            "importance": importance,
            "suspicion_bound": suspicion_bound(importance, labels, floor),
            "label_counts": labels,
        }
        if row is None:
            inserts.append(
                {**values, "model_version_id": mv.id, "method": method, "word": word, "project_id": mv.project_id}
            )
        else:
            updates.append({"k_model_version_id": mv.id, "k_method": method, "k_word": word, **values})
    if deletes:
        db.execute(
            delete(WordAggregate).where(
                WordAggregate.model_version_id == mv.id, WordAggregate.method == method, WordAggregate.word.in_(deletes)
            )
        )
    if updates:
        db.execute(_UPDATE_WORD, updates)
    if inserts:
        db.execute(_WORDS.insert(), inserts)


def per_row_refresh(db, mv, method: str, floor) -> int:
    rows = db.execute(
        select(_WORDS.c.word, _WORDS.c.importance, _WORDS.c.label_counts, _WORDS.c.suspicion_bound).where(
            _WORDS.c.model_version_id == mv.id, _WORDS.c.method == method
        )
    ).all()
    updates = [
        {"k_mv": mv.id, "k_method": method, "k_word": w, "b": b}
        for w, imp, lc, old in rows
        if (b := suspicion_bound(imp, lc, floor)) != old
    ]
    if updates:
        db.execute(_UPDATE_BOUND, updates)
    return len(updates)


# ------------------------------------------------------------------ tests


def _word_rows(db, mv, method: str) -> dict[str, tuple]:
    rows = db.execute(
        select(WordAggregate).where(WordAggregate.model_version_id == mv.id, WordAggregate.method == method)
    )
    return {
        r.word: (
            r.project_id,
            r.count,
            r.sum_share,
            r.sum_signed,
            r.importance,
            r.suspicion_bound,
            list(r.label_counts),
        )
        for r in rows.scalars()
    }


def _random_deltas(rng: random.Random, vocab: list[str], present: dict[str, tuple]) -> dict[str, Delta]:
    """Deltas that add new words, change existing ones (some to count 0: deleted), and leave some as
    they are (all-zero deltas: no write)."""
    out: dict[str, Delta] = {}
    for word in rng.sample(vocab, 60):
        d = Delta(len(LABELS))
        row = present.get(word)
        kind = rng.random()
        if row is not None and kind < 0.15:  # take everything out
            d.count, d.sum_share, d.sum_signed = -row[1], -row[2], -row[3]
            d.label_counts = [-c for c in row[6]]
        elif row is not None and kind < 0.25:  # nothing changes
            pass
        else:
            d.count = rng.randint(1, 5)
            d.sum_share = sum(rng.random() / 7 for _ in range(d.count))
            d.sum_signed = d.sum_share * rng.uniform(-1, 1)
            for _ in range(d.count):
                d.label_counts[rng.randrange(len(LABELS))] += 1
        out[word] = d
    return out


def test_batched_word_writes_equal_the_per_row_statements(db):
    """The same random sequence of deltas (new words, changes, deletions, no-ops) and bound refreshes,
    applied once with the batched upsert and once with the former per-row statements: equal rows, bit
    for bit (sums, sort keys, bounds, label counts)."""
    project = projects.create(db_session=db, name="p", labels=LABELS, model_source="m")
    mv = versions.create_base(db_session=db, project=project, path="/m")
    rng = random.Random(4)
    vocab = [f"w{i}" for i in range(150)] + ["it's", "naïve", "Ünïcode", "a'b\"c", "%s", "?"]
    floors = [None, [0.2, 0.3, 0.4], [0.0, 0.5, 0.1]]
    for step in range(8):
        present = _word_rows(db, mv, "old")
        deltas = _random_deltas(rng, vocab, present)
        floor = floors[step % len(floors)]
        per_row_apply(db, mv, "old", len(LABELS), deltas, floor)
        aggregates.apply_word_deltas(
            db_session=db, model_version=mv, method="new", num_labels=len(LABELS), deltas=deltas, floor=floor
        )
        if step % 3 == 2:
            refresh = floors[(step + 1) % len(floors)]
            n_old = per_row_refresh(db, mv, "old", refresh)
            assert aggregates.refresh_bounds(db, model_version_id=mv.id, method="new", floor=refresh) == n_old
        db.commit()
        old, new = _word_rows(db, mv, "old"), _word_rows(db, mv, "new")
        assert new == old, step
        assert len(old) > 0
    assert any(r[1] > 5 for r in old.values())  # words were updated, not only inserted


def _small_project(db, name: str, seed: int) -> tuple[list[Any], Any]:
    """Six random examples (three labels) in a new project, and its base version."""
    project = projects.create(db_session=db, name=name, labels=LABELS, model_source="m")
    ds = datasets.add_dataset(
        db_session=db,
        project=project,
        name="d",
        role="train",
        examples=random_examples(6, random.Random(seed), num_labels=3),
    )
    rows = datasets.list_examples(db_session=db, dataset_id=ds.id)
    return rows, versions.create_base(db_session=db, project=project, path="/m")


def test_bulk_rows_read_back_as_sqlalchemy_writes_them(db):
    """Every column type the bulk writes use (bytes, JSON, NULL, UTC timestamps, text with quotes) reads
    back equal to the same row written by SQLAlchemy's own INSERT / UPDATE."""
    rows, mv = _small_project(db, "p", seed=2)
    when = datetime(2026, 11, 26, 4, 30, 0, 0, tzinfo=timezone.utc)  # microsecond 0: formats may differ there
    table = Explanation.__table__
    cols = ("example_id", "model_version_id", "method", "target", "probs", "scores", "n_seen", "delta", "created_at")

    def row(r, method: str, i: int) -> tuple:
        delta = None if i % 2 else 0.1 * i + 1e-17
        return (r.id, mv.id, method, i % 3, [0.1, 0.2 + i, 0.7], bytes([i, 0, 255, 7]), i, delta, when)

    db.execute(table.insert(), [dict(zip(cols, row(r, "orm", i), strict=True)) for i, r in enumerate(rows)])
    bulk.insert_rows(db, table, cols, [row(r, "bulk", i) for i, r in enumerate(rows)])
    later = datetime(2026, 11, 26, 5, 0, 1, 123456, tzinfo=timezone.utc)
    by = {(e.example_id, e.method): e.id for e in db.scalars(select(Explanation))}
    values = ("target", "probs", "delta", "created_at")
    db.execute(
        table.update().where(table.c.id == bindparam("k")).values({c: bindparam(c) for c in values}),
        [{"k": by[(r.id, "orm")], "target": 2, "probs": [1.0], "delta": None, "created_at": later} for r in rows[:3]],
    )
    bulk.update_rows(db, table, ("id",), values, [(by[(r.id, "bulk")], 2, [1.0], None, later) for r in rows[:3]])
    db.commit()
    db.expire_all()

    def read(method: str) -> dict[int, tuple]:
        got = db.scalars(select(Explanation).where(Explanation.method == method))
        return {
            e.example_id: (e.target, e.probs, e.scores, e.n_seen, e.delta, e.created_at, e.model_version_id)
            for e in got
        }

    assert read("bulk") == read("orm")
    assert read("bulk")[rows[0].id][5] == later
    # Text with quotes, non-ASCII and placeholder-like characters goes through as data.
    words = ["it's", 'a"b', "%s", "?", "naïve"]
    occ = WordOccurrence.__table__
    bulk.insert_rows(
        db, occ, ("model_version_id", "method", "word", "example_id"), [(mv.id, "x", w, rows[0].id) for w in words]
    )
    assert sorted(db.scalars(select(WordOccurrence.word).where(WordOccurrence.method == "x"))) == sorted(words)
    assert bulk.in_values(db, WordOccurrence.word, []) == []
    found = [
        w
        for cond in bulk.in_values(db, WordOccurrence.word, ["%s", "naïve", "absent"])
        for w in db.scalars(select(WordOccurrence.word).where(WordOccurrence.method == "x", cond))
    ]
    assert sorted(found) == ["%s", "naïve"]


def test_concurrent_chunks_of_one_aggregate_lose_no_update(db, session_factory):
    """Four writers, each with its own session, store chunks of the same (version, method) at once, some
    rescoring examples another writer stored: the word rows equal a fresh TaskAggregate of the final
    explanations (the state row's lock serialises the read-modify-write of the batched upsert)."""
    project = projects.create(db_session=db, name="c", labels=LABELS, model_source="m")
    rng = random.Random(8)
    ds = datasets.add_dataset(
        db_session=db, project=project, name="d", role="train", examples=random_examples(120, rng, num_labels=3)
    )
    rows = datasets.list_examples(db_session=db, dataset_id=ds.id, limit=1000)
    mv = versions.create_base(db_session=db, project=project, path="/m")
    db.commit()

    def explain(r, seed: int):
        g = random.Random(seed)
        return make_explanation(r.text, [g.randint(-16, 16) / 4 for _ in split_words(r.text)[0]])

    # Writer w stores examples w, w + 4, ... in chunks of 10, then rescores the first 8 of writer w + 1's.
    plans = []
    for w in range(4):
        mine = rows[w::4]
        chunks = [[(r, explain(r, r.id)) for r in mine[i : i + 10]] for i in range(0, len(mine), 10)]
        chunks.append([(r, explain(r, 1000 + r.id)) for r in rows[(w + 1) % 4 :: 4][:8]])
        plans.append(chunks)
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        with session_factory() as s:
            try:
                version = s.get(type(mv), mv.id)
                examples = {r.id: s.get(type(r), r.id) for chunk in plans[w] for r, _ in chunk}
                s.commit()
                barrier.wait(timeout=30)
                for chunk in plans[w]:
                    items = [(examples[r.id], e) for r, e in chunk]
                    explanations.upsert_explanations(db_session=s, model_version=version, method=METHOD, items=items)
            except BaseException as e:
                errors.append(e)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []

    db.expire_all()
    agg = TaskAggregate(len(LABELS))
    for r in rows:
        stored = explanations.get_explanation(db_session=db, example_id=r.id, model_version_id=mv.id, method=METHOD)
        assert stored is not None
        agg.add(r.ext_id, r.label, stored)
    state = explanations.get_state(db_session=db, model_version_id=mv.id, method=METHOD)
    assert state.n_examples == len(rows) and state.label_totals == agg.label_totals
    got = _word_rows(db, mv, METHOD)
    assert len(got) == agg.n_words
    for word, (_, count, sum_share, sum_signed, importance, _, labels) in got.items():
        ref = agg.stats(word)
        assert (count, labels) == (ref.count, ref.label_counts), word
        # Same contributions; only the order of the float additions differs between the writers.
        assert sum_share == pytest.approx(ref.mean_importance * ref.count, rel=1e-9, abs=1e-12), word
        assert sum_signed == pytest.approx(ref.mean_signed * ref.count, rel=1e-9, abs=1e-12), word
        assert importance == pytest.approx(ref.mean_importance, abs=2e-9), word
    occurrences = db.scalars(select(WordOccurrence.word).where(WordOccurrence.model_version_id == mv.id)).all()
    assert len(occurrences) == sum(agg.stats(w).count for w in got)
    top = ranking.ranking(db_session=db, model_version_id=mv.id, method=METHOD, sort="suspicion", limit=20)
    assert [w.word for w in top] == [w.word for w in agg.ranking(sort="suspicion", limit=20)]


def test_the_state_lock_covers_only_the_aggregate_update_on_postgresql(db, engine, dialect):
    """On PostgreSQL a writer locks its examples, reads and writes its explanation and occurrence rows, and
    only then locks the (version, method) state row for the word aggregates, so writers sharing an explain
    job wait for each other only there; past EXAMPLE_LOCKS_MAX examples the version lock is exclusive.
    SQLite takes the state lock first (its first write takes the database lock)."""
    rows, mv = _small_project(db, "o", seed=3)
    db.commit()
    log: list[str] = []

    def on_execute(_c: Any, _cur: Any, statement: str, *_: Any) -> None:
        log.append(" ".join(statement.split()))

    def first(pattern: str) -> int:
        return next(i for i, s in enumerate(log) if pattern in s)

    items = [(r, make_explanation(r.text, [0.5] * len(split_words(r.text)[0]))) for r in rows]
    event.listen(engine, "before_cursor_execute", on_execute)
    try:
        explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=items)
        big = aggregates.EXAMPLE_LOCKS_MAX
        aggregates.EXAMPLE_LOCKS_MAX = 3  # this batch of 6 now counts as large
        try:
            start = len(log)
            explanations.upsert_explanations(db_session=db, model_version=mv, method="other", items=items)
            second = log[start:]
        finally:
            aggregates.EXAMPLE_LOCKS_MAX = big
    finally:
        event.remove(engine, "before_cursor_execute", on_execute)
    state_lock = first("FROM aggregate_states")
    if dialect == "sqlite":
        assert first("INSERT INTO aggregate_states") < first("FROM explanations") < first("INSERT INTO explanations")
        assert not any("pg_advisory" in s for s in log)
        return
    assert first("pg_advisory_xact_lock_shared") < first("pg_advisory_xact_lock(k)") < first("FROM explanations")
    assert first("FROM explanations") < first("INSERT INTO word_occurrences") < first("INSERT INTO explanations")
    assert first("INSERT INTO explanations") < state_lock < first("word_aggregates")
    assert any("pg_advisory_xact_lock(" in s for s in second)
    assert not any("pg_advisory_xact_lock(k)" in s or "lock_shared" in s for s in second)
    got = explanations.get_state(db_session=db, model_version_id=mv.id, method="other")
    assert got.n_examples == len(rows)


def test_bulk_writes_pass_through_the_parameter_guard(db):
    """Array parameters (PostgreSQL) and executemany rows (SQLite) are checked column by column: a NUL byte
    or a 64-bit overflow anywhere in a batch is refused with the guard's error, and nothing is written."""
    from xmd.db.guard import IntegerRangeError, NulByteError

    project = projects.create(db_session=db, name="g", labels=LABELS, model_source="m")
    rng = random.Random(1)
    ds = datasets.add_dataset(
        db_session=db, project=project, name="d", role="train", examples=random_examples(3, rng, num_labels=3)
    )
    row = datasets.list_examples(db_session=db, dataset_id=ds.id)[0]
    mv = versions.create_base(db_session=db, project=project, path="/m")
    db.commit()
    occ = WordOccurrence.__table__
    cols = ("model_version_id", "method", "word", "example_id")
    good = [(mv.id, "g", f"w{i}", row.id) for i in range(50)]
    with pytest.raises(NulByteError):
        bulk.insert_rows(db, occ, cols, [*good, (mv.id, "g", "bad\x00word", row.id)])
    db.rollback()
    with pytest.raises(IntegerRangeError):
        bulk.insert_rows(db, occ, cols, [*good, (mv.id, "g", "big", 2**64)])
    db.rollback()
    with pytest.raises(NulByteError):
        bulk.update_rows(db, Explanation.__table__, ("id",), ("method",), [(1, "x"), (2, "a\x00")])
    db.rollback()
    assert db.scalars(select(WordOccurrence.word)).all() == []
