"""The incremental word aggregates behind the rankings: per-example contributions (computed by the
core's :class:`~xmd.core.aggregate.TaskAggregate`), deltas, and their bulk application to
``word_aggregates`` under the (version, method) state row's lock. :mod:`xmd.explanations.service`
calls this in the transaction that writes the explanations; :mod:`xmd.explanations.ranking` reads
the rows it keeps."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import bindparam, delete, select
from sqlalchemy.orm import Session

from xmd.core.aggregate import ALPHA, TaskAggregate
from xmd.core.types import Explanation as CoreExplanation
from xmd.db.base import utcnow
from xmd.db.engine import dialect_insert, lock_row
from xmd.explanations.models import AggregateState, WordAggregate
from xmd.versions.models import ModelVersion

INCLUDE_PUNCTUATION = False
"""As in the core's default: punctuation takes part in the shares but gets no row in the ranking."""
SORT_DIGITS = 9
"""The core rounds sort keys to this many digits (float noise must not decide the order)."""
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


def lock_state(db_session: Session, model_version: ModelVersion, method: str, num_labels: int) -> AggregateState:
    """Create the (version, method) state row if missing and lock it for the rest of the transaction."""
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


# Bulk writes go through Core statements (plain executemany): the ORM's bulk helpers cost more per row
# than the database does here, and these tables are written by the million.
_WORDS = WordAggregate.__table__
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


def suspicion_bound(importance: float, label_counts: Sequence[int]) -> float:
    """Upper bound of a word's suspicion over every label prior: importance x max n_l / (n + alpha)."""
    n = sum(label_counts)
    return importance * max(label_counts) / (n + ALPHA) if n > 0 else 0.0


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
    db_session: Session, *, model_version: ModelVersion, method: str, num_labels: int, deltas: dict[str, Delta]
) -> None:
    """Add ``deltas`` to the word rows: update existing rows, insert new words, delete words at count 0."""
    mv_id = model_version.id
    existing: dict[str, Any] = {}
    words = sorted(deltas)
    for chunk in chunks(words):
        stmt = select(*WORD_COLS).where(
            WordAggregate.model_version_id == mv_id, WordAggregate.method == method, WordAggregate.word.in_(chunk)
        )
        for row in db_session.execute(stmt):
            existing[row.word] = row
    updates: list[dict[str, Any]] = []
    inserts: list[dict[str, Any]] = []
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
        values = {
            "k_model_version_id": mv_id,
            "k_method": method,
            "k_word": word,
            "count": count,
            "sum_share": sum_share,
            "sum_signed": sum_signed,
            "importance": importance,
            "suspicion_bound": suspicion_bound(importance, labels),
            "label_counts": labels,
        }
        if row is None:
            inserts.append(
                {
                    **{k: v for k, v in values.items() if not k.startswith("k_")},
                    "model_version_id": mv_id,
                    "method": method,
                    "word": word,
                    "project_id": model_version.project_id,
                }
            )
        else:
            updates.append(values)
    for chunk in chunks(deletes):
        db_session.execute(
            delete(WordAggregate).where(
                WordAggregate.model_version_id == mv_id, WordAggregate.method == method, WordAggregate.word.in_(chunk)
            )
        )
    if updates:
        db_session.execute(_UPDATE_WORD, updates)
    for chunk in chunks(inserts, 5000):
        db_session.execute(_WORDS.insert(), list(chunk))
