"""The incremental word aggregates behind the rankings: per-example contributions (computed by the
core's :class:`~xmd.core.aggregate.TaskAggregate`), deltas, and their bulk application to
``word_aggregates`` under the (version, method) state row's lock. :mod:`xmd.explanations.service`
calls this in the transaction that writes the explanations; :mod:`xmd.explanations.ranking` reads
the rows it keeps."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import delete, select, text
from sqlalchemy.orm import Session

from xmd.core.aggregate import TaskAggregate
from xmd.core.suspicion import SORT_DIGITS, skew_toward, suspicion
from xmd.core.types import Explanation as CoreExplanation
from xmd.db import bulk
from xmd.db.base import utcnow
from xmd.db.engine import dialect_insert, is_sqlite, lock_row
from xmd.explanations.models import AggregateState, WordAggregate
from xmd.versions.models import ModelVersion

INCLUDE_PUNCTUATION = False
"""As in the core's default: punctuation takes part in the shares but gets no row in the ranking."""
CHUNK = 500
"""Bound on the number of bind parameters per IN (...) list (SQLite allows 32766)."""

Contribution = list[tuple[str, float, float]]
WORD_COLS = (
    WordAggregate.word,
    WordAggregate.count,
    WordAggregate.sum_share,
    WordAggregate.sum_signed,
    WordAggregate.importance,
    WordAggregate.label_counts,
)


# ---------------------------------------------------------------------------------- helpers


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def contributions(num_labels: int, explanations: dict[int, CoreExplanation]) -> dict[int, Contribution]:
    """Per example id, its (word key, share, signed share) entries, computed by the core's TaskAggregate."""
    if not explanations:
        return {}
    agg = TaskAggregate(max(1, num_labels), include_punctuation=INCLUDE_PUNCTUATION)
    for eid, exp in explanations.items():
        agg.add(str(eid), None, exp)
    return {
        int(eid): [(str(k), float(s), float(g)) for k, s, g in contrib] for eid, _, contrib in agg.to_dict()["examples"]
    }


EXAMPLE_LOCK_SPACE = 0x786D6500000000
"""One-bigint advisory locks of single examples' explanations ("xme" << 32 + example id); the projects'
feedback locks (``xmd.feedback.service.PROJECT_LOCK_SPACE``) and the versions' below are other ranges."""
VERSION_LOCK_SPACE = 0x786D6600000000
EXAMPLE_LOCKS_MAX = 512
"""A writer of more examples at once takes its version's lock exclusively instead of one lock per example:
every lock lives in PostgreSQL's server-wide lock table (``max_locks_per_transaction`` x connections)."""


def lock_examples(db_session: Session, model_version_id: int, example_ids: Sequence[int]) -> None:
    """PostgreSQL: writers of the same examples' explanations wait for each other here, before reading the
    rows they replace, so the state row's lock (:func:`lock_state`) need only cover the aggregate update
    at the end: workers sharing an explain job write their chunks' explanations and word occurrences in
    parallel. A large batch takes the version's lock exclusively, which small writers hold shared; every
    writer takes the version lock, then its example locks in id order, then the state row: no cycles.
    SQLite has one writer at a time anyway, and its callers take the state lock first (see there)."""
    if is_sqlite(db_session):
        return
    version_key = VERSION_LOCK_SPACE + model_version_id
    if len(example_ids) > EXAMPLE_LOCKS_MAX:
        db_session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": version_key})
        return
    db_session.execute(text("SELECT pg_advisory_xact_lock_shared(:k)"), {"k": version_key})
    keys = [EXAMPLE_LOCK_SPACE + i for i in sorted(set(example_ids))]
    # the function scan yields the keys in array order, and each row's lock is taken as it is produced
    db_session.execute(
        text("SELECT count(pg_advisory_xact_lock(k)) FROM unnest(CAST(:keys AS bigint[])) AS t(k)"), {"keys": keys}
    )


def lock_state(db_session: Session, model_version: ModelVersion, method: str, num_labels: int) -> AggregateState:
    """Create the (version, method) state row if missing and lock it for the rest of the transaction.

    On SQLite this is a writer's first statement: its INSERT takes the database write lock, and a
    transaction that had read first would fail at once on another writer's commit (``xmd.db.engine``).
    On PostgreSQL writers take it last, after :func:`lock_examples` and their row writes."""
    stmt = (
        dialect_insert(db_session, AggregateState)
        .values(
            model_version_id=model_version.id,
            method=method,
            project_id=model_version.project_id,
            n_examples=0,
            label_totals=[0] * num_labels,
            updated_at=utcnow(),
        )
        .on_conflict_do_nothing(index_elements=["model_version_id", "method"])
    )
    db_session.execute(stmt)  # on SQLite this write also takes the database write lock
    lock_row(
        db_session,
        AggregateState,
        AggregateState.model_version_id == model_version.id,
        AggregateState.method == method,
    )
    state = db_session.execute(
        select(AggregateState)
        .where(AggregateState.model_version_id == model_version.id, AggregateState.method == method)
        .execution_options(populate_existing=True)
    ).scalar_one()
    return state


# Bulk writes go through :mod:`xmd.db.bulk` (one statement per batch on PostgreSQL, a plain executemany
# on SQLite): these tables are written by the million, and per-row statements cost up to half an ingest.
_WORDS = WordAggregate.__table__
_WORD_KEY = ("model_version_id", "method", "word")
_WORD_VALUES = ("count", "sum_share", "sum_signed", "importance", "suspicion_bound", "label_counts")
_WORD_ROW = (*_WORD_KEY, "project_id", *_WORD_VALUES)


def suspicion_bound(importance: float, label_counts: Sequence[int], floor: Sequence[float] | None = None) -> float:
    """Upper bound of a word's suspicion for every label prior p with p_l >= ``floor[l]`` for all l.

    The core's skew toward label l (:func:`xmd.core.suspicion.skew_toward`) decreases in p_l, so
    importance x max_l skew_toward(floor_l) bounds the skew of whichever label it picks. With floor 0
    this is the prior-independent importance x max n_l / (n + alpha); a floor just below the current
    prior is tight for frequent words too, whose skew is near 0 while n_l / (n + alpha) is near the prior.
    """
    n = sum(label_counts)
    if n <= 0:
        return 0.0
    floors = [0.0] * len(label_counts) if floor is None else floor
    g = max(skew_toward(n_l, n, f) for n_l, f in zip(label_counts, floors, strict=False))
    return suspicion(importance, min(1.0, max(0.0, g)))


BAND = 0.01
"""Width of the prior band the stored bounds stay valid in: the floor is set BAND below each label's
prior, and every row's bound is recomputed when a prior leaves [floor, floor + 2 BAND] (at 1M examples
a few times over a whole ingest; each recompute reads and rewrites the version's word rows once)."""


def prior_of(label_totals: Sequence[int]) -> list[float]:
    n = sum(label_totals)
    return [t / n if n else 0.0 for t in label_totals]


def next_floor(current: Sequence[float] | None, label_totals: Sequence[int]) -> tuple[list[float] | None, bool]:
    """(floor for the bounds after this write, whether every row must be recomputed)."""
    prior = prior_of(label_totals)
    if sum(label_totals) == 0:
        return current, False  # nothing labelled: every suspicion is 0, any valid bound will do
    if (
        current is not None
        and len(current) == len(prior)
        and all(f <= p <= f + 2 * BAND for f, p in zip(current, prior, strict=True))
    ):
        return list(current), False
    return [max(0.0, min(p - BAND, 1.0 - BAND)) for p in prior], True


def refresh_bounds(db_session: Session, *, model_version_id: int, method: str, floor: Sequence[float] | None) -> int:
    """Recompute every word row's ``suspicion_bound`` for ``floor``; returns how many rows changed."""
    rows = db_session.execute(
        select(_WORDS.c.word, _WORDS.c.importance, _WORDS.c.label_counts, _WORDS.c.suspicion_bound).where(
            _WORDS.c.model_version_id == model_version_id, _WORDS.c.method == method
        )
    ).all()
    updates = []
    for word, importance, label_counts, old in rows:
        bound = suspicion_bound(importance, label_counts, floor)
        if bound != old:
            updates.append((model_version_id, method, word, bound))
    bulk.update_rows(db_session, _WORDS, _WORD_KEY, ("suspicion_bound",), updates)
    return len(updates)


BOUND_MARGIN = 1e-9
"""Stop the scan only when a bound is this far below the k-th suspicion: a word whose float suspicion is
within rounding of the bound could still round (9 digits) up to a tie with the k-th."""


class Delta:
    __slots__ = ("count", "label_counts", "sum_share", "sum_signed")

    def __init__(self, num_labels: int) -> None:
        self.count = 0
        self.sum_share = 0.0
        self.sum_signed = 0.0
        self.label_counts = [0] * num_labels


def accumulate(deltas: dict[str, Delta], num_labels: int, entries: Contribution, label: int | None, sign: int) -> None:
    """Add (``sign`` = 1) or take away (-1) one example's contribution to the per-word deltas."""
    for key, share, signed in entries:
        d = deltas.get(key)
        if d is None:
            d = deltas[key] = Delta(num_labels)
        d.count += sign
        d.sum_share += sign * share
        d.sum_signed += sign * signed
        if label is not None:
            d.label_counts[label] += sign


def apply_word_deltas(
    db_session: Session,
    *,
    model_version: ModelVersion,
    method: str,
    num_labels: int,
    deltas: dict[str, Delta],
    floor: Sequence[float] | None = None,
) -> None:
    """Add ``deltas`` to the word rows: update existing rows, insert new words, delete words at count 0;
    bounds for ``floor`` (the state's ``bound_floor`` after this write)."""
    mv_id, project_id = model_version.id, model_version.project_id
    existing: dict[str, Any] = {}
    words = sorted(deltas)
    for cond in bulk.in_values(db_session, WordAggregate.word, words):
        stmt = select(*WORD_COLS).where(WordAggregate.model_version_id == mv_id, WordAggregate.method == method, cond)
        for row in db_session.execute(stmt):
            existing[row.word] = row
    rows: list[tuple[Any, ...]] = []  # new words and changed ones, written by one upsert
    deletes: list[str] = []
    for word in words:
        d = deltas[word]
        row = existing.get(word)
        if row is None:
            if d.count <= 0:  # cannot happen unless the tables were edited by hand
                continue
            count, sum_share, sum_signed, labels = d.count, d.sum_share, d.sum_signed, d.label_counts
        else:
            count = row.count + d.count
            if count <= 0:
                # Drop the row rather than keep float residue (as TaskAggregate does).
                deletes.append(word)
                continue
            if d.count == 0 and d.sum_share == 0.0 and d.sum_signed == 0.0 and not any(d.label_counts):
                continue
            sum_share, sum_signed = row.sum_share + d.sum_share, row.sum_signed + d.sum_signed
            old = list(row.label_counts) + [0] * (num_labels - len(row.label_counts))
            labels = [a + b for a, b in zip(old, d.label_counts, strict=True)]
        importance = round(max(0.0, sum_share / count), SORT_DIGITS)
        bound = suspicion_bound(importance, labels, floor)
        rows.append((mv_id, method, word, project_id, count, sum_share, sum_signed, importance, bound, labels))
    for cond in bulk.in_values(db_session, WordAggregate.word, deletes):
        db_session.execute(
            delete(WordAggregate).where(WordAggregate.model_version_id == mv_id, WordAggregate.method == method, cond)
        )
    # Existing rows are rewritten with the values computed here under the state's lock (never incremented
    # in SQL: the rounding of the sort key must be Python's, as in the core).
    bulk.insert_rows(db_session, _WORDS, _WORD_ROW, rows, conflict=_WORD_KEY, update=_WORD_VALUES)
