"""Explanations and task-level word rankings, kept in step in one transaction.

**Incremental aggregates.** :func:`upsert_explanations` writes a batch of explanations and, in the same
transaction, adds each new explanation's per-word contribution to ``word_aggregates`` and subtracts the
contribution of the explanation it replaces, so a ranking is never out of step with the explanations
and rescoring one example costs O(its words). The per-example contribution (shares, signed shares,
punctuation skipped, one entry per word key) is computed by :class:`xmd.core.aggregate.TaskAggregate`
itself, through its public ``add`` and ``to_dict``, so the store and the core cannot disagree.
Contributions are always computed from the float32 scores that are stored, so the contribution
subtracted on rescoring is exactly the one that was added. Writers to one (model version, method)
are serialised by locking its ``aggregate_states`` row; other versions and methods proceed in parallel.

**Ranking.** ``importance`` (mean share, rounded to the core's 9 digits) is stored and indexed together
with ``count``, so the importance and count orders are index range scans with OFFSET/LIMIT in SQL.

*Suspicion* = importance x skew, and skew depends on the label prior, which changes with every batch
of explanations; storing it would mean rewriting every word's row per batch, and computing it in SQL
for every word on each request measured slower than what follows (~115 ms for 30k words on both
databases). Each row instead stores a prior-independent upper bound: with n_l the word's count for
label l, n = sum n_l and prior p, skew_l = (n_l - p n) / ((n + alpha) (1 - p)), which decreases in p,
so skew <= max_l n_l / (n + alpha) and suspicion <= ``suspicion_bound`` = importance x that. A page is
a threshold scan: rows in ``suspicion_bound`` order (indexed), exact suspicion computed in Python
with the core's formula, stop as soon as the next bound is below the k-th best suspicion found
(k = offset + limit) — no later word can enter the page. The bound is tight for the rare,
one-label words that dominate the top (a word seen once in label l has skew 1/2 at p_l = 1/2 and a
bound of 1/2), so a top-100 page reads a few hundred rows. The result is exact: same numbers, order
and tie-breaks as :meth:`TaskAggregate.ranking`. When no word can be skewed (one label, or nothing
labelled) every suspicion is 0 and the order is a plain SQL sort.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.orm import Session

from xmd.core.aggregate import ALPHA, SORTS, TaskAggregate, WordStats, label_skew
from xmd.core.types import DataError
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words, word_key
from xmd.datasets.models import Example
from xmd.db.base import utcnow
from xmd.db.engine import analyze, dialect_insert, grew_past_threshold, lock_row, write_scope
from xmd.db.errors import NotFoundError
from xmd.explanations.models import AggregateState, Explanation, WordAggregate, WordOccurrence
from xmd.models.models import ModelVersion
from xmd.projects.models import Project

INCLUDE_PUNCTUATION = False
"""As in the core's default: punctuation takes part in the shares but gets no row in the ranking."""
SORT_DIGITS = 9
"""The core rounds sort keys to this many digits (float noise must not decide the order)."""
CHUNK = 500
"""Bound on the number of bind parameters per IN (...) list (SQLite allows 32766)."""
SCAN_BATCH = 512
MAX_PAGE = 1000

Contribution = list[tuple[str, float, float]]
_COLS = (
    WordAggregate.word,
    WordAggregate.count,
    WordAggregate.sum_share,
    WordAggregate.sum_signed,
    WordAggregate.importance,
    WordAggregate.label_counts,
)


# ---------------------------------------------------------------------------------- helpers


def _chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def encode_scores(scores: Sequence[float]) -> bytes:
    """Raw word scores as little-endian float32 bytes (the stored form)."""
    return np.asarray(scores, dtype="<f4").tobytes()


def decode_scores(data: bytes) -> list[float]:
    """Inverse of :func:`encode_scores`."""
    return np.frombuffer(data, dtype="<f4").astype(np.float64).tolist()


def _stored_form(example: Example, exp: CoreExplanation) -> CoreExplanation:
    """The explanation as it will read back from the store: words from the text, float32 scores."""
    words, spans = split_words(example.text)
    if list(exp.words) != words or len(exp.scores) != len(words):
        raise DataError(
            f"explanation for example {example.ext_id!r} has {len(exp.words)} words / {len(exp.scores)} scores, "
            f"but its text splits into {len(words)} words; it was computed on a different text"
        )
    return CoreExplanation(
        words=words,
        spans=spans,
        scores=decode_scores(encode_scores(exp.scores)),
        target=exp.target,
        probs=[float(p) for p in exp.probs],
        method=exp.method,
        n_seen=exp.n_seen,
        delta=exp.delta,
        example_id=example.ext_id,
    )


def _contributions(num_labels: int, explanations: dict[int, CoreExplanation]) -> dict[int, Contribution]:
    """Per example id, its (word key, share, signed share) entries, computed by the core's TaskAggregate."""
    if not explanations:
        return {}
    agg = TaskAggregate(max(1, num_labels), include_punctuation=INCLUDE_PUNCTUATION)
    for eid, exp in explanations.items():
        agg.add(str(eid), None, exp)
    return {
        int(eid): [(str(k), float(s), float(g)) for k, s, g in contrib] for eid, _, contrib in agg.to_dict()["examples"]
    }


def _project_of(db_session: Session, model_version_id: int) -> Project:
    project = db_session.scalar(
        select(Project)
        .join(ModelVersion, ModelVersion.project_id == Project.id)
        .where(ModelVersion.id == model_version_id)
    )
    if project is None:
        raise NotFoundError(f"model version {model_version_id} not found")
    return project


def _lock_state(db_session: Session, model_version: ModelVersion, method: str, num_labels: int) -> AggregateState:
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
_OCCURRENCES = WordOccurrence.__table__
_EXPLANATION_COLS = (
    Explanation.id,
    Explanation.example_id,
    Explanation.method,
    Explanation.target,
    Explanation.probs,
    Explanation.scores,
    Explanation.n_seen,
    Explanation.delta,
)
_EXPLANATIONS = Explanation.__table__
_UPDATE_EXPLANATION = (
    _EXPLANATIONS.update()
    .where(_EXPLANATIONS.c.id == bindparam("k_id"))
    .values({c: bindparam(c) for c in ("target", "probs", "scores", "n_seen", "delta", "created_at")})
)


def suspicion_bound(importance: float, label_counts: Sequence[int]) -> float:
    """Upper bound of a word's suspicion over every label prior: importance x max n_l / (n + alpha)."""
    n = sum(label_counts)
    return importance * max(label_counts) / (n + ALPHA) if n > 0 else 0.0


BOUND_MARGIN = 1e-9
"""Stop the scan only when a bound is this far below the k-th suspicion: a word whose float suspicion is
within rounding of the bound could still round (9 digits) up to a tie with the k-th."""


class _Delta:
    __slots__ = ("count", "label_counts", "sum_share", "sum_signed")

    def __init__(self, num_labels: int) -> None:
        self.count = 0
        self.sum_share = 0.0
        self.sum_signed = 0.0
        self.label_counts = [0] * num_labels


def _apply_word_deltas(
    db_session: Session, *, model_version: ModelVersion, method: str, num_labels: int, deltas: dict[str, _Delta]
) -> None:
    """Add ``deltas`` to the word rows: update existing rows, insert new words, delete words at count 0."""
    mv_id = model_version.id
    existing: dict[str, Any] = {}
    words = sorted(deltas)
    for chunk in _chunks(words):
        stmt = select(*_COLS).where(
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
    for chunk in _chunks(deletes):
        db_session.execute(
            delete(WordAggregate).where(
                WordAggregate.model_version_id == mv_id, WordAggregate.method == method, WordAggregate.word.in_(chunk)
            )
        )
    if updates:
        db_session.execute(_UPDATE_WORD, updates)
    for chunk in _chunks(inserts, 5000):
        db_session.execute(_WORDS.insert(), list(chunk))


# ---------------------------------------------------------------------------------- writes


def upsert_explanations(
    *,
    db_session: Session,
    model_version: ModelVersion,
    method: str,
    items: Sequence[tuple[Example, CoreExplanation]],
    commit: bool = True,
) -> int:
    """Store explanations (new or replacing earlier ones) and update the word aggregates in the same
    transaction; returns the number of examples written. A later item for the same example wins."""
    if not items:
        return 0
    with write_scope(db_session, commit):
        return _upsert(db_session, model_version, method, items)


def _upsert(
    db_session: Session, model_version: ModelVersion, method: str, items: Sequence[tuple[Example, CoreExplanation]]
) -> int:
    project = _project_of(db_session, model_version.id)
    num_labels = len(project.labels)
    batch: dict[int, tuple[Example, CoreExplanation]] = {}
    for example, exp in items:
        if example.project_id != model_version.project_id:
            raise DataError(f"example {example.id} belongs to another project than model version {model_version.id}")
        if example.label is not None and not 0 <= example.label < num_labels:
            raise DataError(f"example {example.ext_id!r} has label {example.label}, outside 0..{num_labels - 1}")
        batch[example.id] = (example, _stored_form(example, exp))
    ids = sorted(batch)

    state = _lock_state(db_session, model_version, method, num_labels)
    # Rows as plain tuples, not ORM objects: they are rewritten below with Core statements, and ORM
    # copies in the session's identity map would go stale.
    old_rows: dict[int, Any] = {}
    for chunk in _chunks(ids):
        stmt = select(*_EXPLANATION_COLS).where(
            Explanation.model_version_id == model_version.id,
            Explanation.method == method,
            Explanation.example_id.in_(chunk),
        )
        for row in db_session.execute(stmt):
            old_rows[row.example_id] = row

    old_contrib = _contributions(num_labels, {eid: _from_row(row, batch[eid][0]) for eid, row in old_rows.items()})
    new_contrib = _contributions(num_labels, {eid: exp for eid, (_, exp) in batch.items()})

    deltas: dict[str, _Delta] = {}
    label_totals = list(state.label_totals) + [0] * (num_labels - len(state.label_totals))
    occurrences: list[dict[str, Any]] = []
    mv_id = model_version.id
    for eid in ids:
        label = batch[eid][0].label
        for sign, contrib in ((-1, old_contrib.get(eid)), (1, new_contrib[eid])):
            if contrib is None:
                continue
            for key, share, signed in contrib:
                d = deltas.get(key)
                if d is None:
                    d = deltas[key] = _Delta(num_labels)
                d.count += sign
                d.sum_share += sign * share
                d.sum_signed += sign * signed
                if label is not None:
                    d.label_counts[label] += sign
        if eid not in old_rows and label is not None:
            label_totals[label] += 1
        occurrences.extend(
            {"model_version_id": mv_id, "method": method, "word": key, "example_id": eid}
            for key, _, _ in new_contrib[eid]
        )

    _apply_word_deltas(db_session, model_version=model_version, method=method, num_labels=num_labels, deltas=deltas)

    # Occurrences: drop the replaced explanations' rows, insert the new ones.
    rescored = sorted(old_rows)
    for chunk in _chunks(rescored):
        db_session.execute(
            delete(WordOccurrence).where(
                WordOccurrence.model_version_id == model_version.id,
                WordOccurrence.method == method,
                WordOccurrence.example_id.in_(chunk),
            )
        )
    for chunk in _chunks(occurrences, 5000):
        db_session.execute(_OCCURRENCES.insert(), list(chunk))

    now = utcnow()
    inserts, updates = [], []
    for eid in ids:
        exp = batch[eid][1]
        values = {
            "target": int(exp.target),
            "probs": exp.probs,
            "scores": encode_scores(exp.scores),
            "n_seen": int(exp.n_seen),
            "delta": None if exp.delta is None else float(exp.delta),
            "created_at": now,
        }
        if eid in old_rows:
            updates.append({"k_id": old_rows[eid].id, **values})
        else:
            inserts.append({"example_id": eid, "model_version_id": mv_id, "method": method, **values})
    if updates:
        db_session.execute(_UPDATE_EXPLANATION, updates)
    for chunk in _chunks(inserts, 5000):
        db_session.execute(_EXPLANATIONS.insert(), list(chunk))

    before = state.n_examples
    state.n_examples = before + len(ids) - len(old_rows)
    state.label_totals = label_totals
    state.updated_at = now
    if grew_past_threshold(before, state.n_examples):
        analyze(db_session, "explanations", "word_aggregates", "word_occurrences")
    return len(ids)


def remove_explanations(
    *, db_session: Session, model_version: ModelVersion, method: str, example_ids: Iterable[int], commit: bool = True
) -> int:
    """Delete explanations and take their contributions out of the aggregates; returns how many."""
    ids = sorted(set(example_ids))
    if not ids:
        return 0
    with write_scope(db_session, commit):
        return _remove(db_session, model_version, method, ids)


def _remove(db_session: Session, model_version: ModelVersion, method: str, ids: list[int]) -> int:
    project = _project_of(db_session, model_version.id)
    num_labels = len(project.labels)
    state = _lock_state(db_session, model_version, method, num_labels)
    rows: list[tuple[Any, Example]] = []
    for chunk in _chunks(ids):
        stmt = (
            select(*_EXPLANATION_COLS, Example)
            .join(Example, Example.id == Explanation.example_id)
            .where(
                Explanation.model_version_id == model_version.id,
                Explanation.method == method,
                Explanation.example_id.in_(chunk),
            )
        )
        rows.extend((row, row.Example) for row in db_session.execute(stmt))
    if not rows:
        return 0
    contrib = _contributions(num_labels, {ex.id: _from_row(row, ex) for row, ex in rows})
    labels = {ex.id: ex.label for _, ex in rows}
    deltas: dict[str, _Delta] = {}
    label_totals = list(state.label_totals) + [0] * (num_labels - len(state.label_totals))
    for eid, entries in contrib.items():
        label = labels[eid]
        if label is not None:
            label_totals[label] -= 1
        for key, share, signed in entries:
            d = deltas.get(key)
            if d is None:
                d = deltas[key] = _Delta(num_labels)
            d.count -= 1
            d.sum_share -= share
            d.sum_signed -= signed
            if label is not None:
                d.label_counts[label] -= 1
    _apply_word_deltas(db_session, model_version=model_version, method=method, num_labels=num_labels, deltas=deltas)
    found = sorted(labels)
    for chunk in _chunks(found):
        db_session.execute(
            delete(WordOccurrence).where(
                WordOccurrence.model_version_id == model_version.id,
                WordOccurrence.method == method,
                WordOccurrence.example_id.in_(chunk),
            )
        )
        db_session.execute(
            delete(Explanation).where(
                Explanation.model_version_id == model_version.id,
                Explanation.method == method,
                Explanation.example_id.in_(chunk),
            )
        )
    state.n_examples -= len(found)
    state.label_totals = label_totals
    state.updated_at = utcnow()
    return len(found)


def remove_explanations_of_dataset(*, db_session: Session, dataset_id: int, commit: bool = True) -> int:
    """Take every explanation of a dataset's examples out of the aggregates (before deleting it)."""
    pairs = db_session.execute(
        select(Explanation.model_version_id, Explanation.method)
        .join(Example, Example.id == Explanation.example_id)
        .where(Example.dataset_id == dataset_id)
        .distinct()
    ).all()
    n = 0
    with write_scope(db_session, commit):
        for mv_id, method in pairs:
            mv = db_session.get(ModelVersion, mv_id)
            assert mv is not None
            ids = db_session.scalars(
                select(Explanation.example_id)
                .join(Example, Example.id == Explanation.example_id)
                .where(Example.dataset_id == dataset_id)
                .where(Explanation.model_version_id == mv_id, Explanation.method == method)
            ).all()
            n += _remove(db_session, mv, method, sorted(set(ids)))
    return n


# ---------------------------------------------------------------------------------- reads


def _from_row(row: Any, example: Example) -> CoreExplanation:
    """Core explanation from an explanation row (ORM object or tuple with the same names) and its example."""
    words, spans = split_words(example.text)
    return CoreExplanation(
        words=words,
        spans=spans,
        scores=decode_scores(row.scores),
        target=row.target,
        probs=list(row.probs),
        method=row.method,
        n_seen=row.n_seen,
        delta=row.delta,
        example_id=example.ext_id,
    )


def get_explanation(
    *, db_session: Session, example_id: int, model_version_id: int, method: str
) -> CoreExplanation | None:
    """The stored explanation as a core :class:`~xmd.core.types.Explanation` (words from the text), or None."""
    found = db_session.execute(
        select(*_EXPLANATION_COLS, Example)
        .join(Example, Example.id == Explanation.example_id)
        .where(
            Explanation.example_id == example_id,
            Explanation.model_version_id == model_version_id,
            Explanation.method == method,
        )
    ).first()
    return None if found is None else _from_row(found, found.Example)


def get_explanations(
    *, db_session: Session, example_ids: Sequence[int], model_version_id: int, method: str
) -> dict[int, CoreExplanation]:
    """Stored explanations of several examples, by example id (missing ones are left out)."""
    out: dict[int, CoreExplanation] = {}
    for chunk in _chunks(sorted(set(example_ids))):
        stmt = (
            select(*_EXPLANATION_COLS, Example)
            .join(Example, Example.id == Explanation.example_id)
            .where(
                Explanation.example_id.in_(chunk),
                Explanation.model_version_id == model_version_id,
                Explanation.method == method,
            )
        )
        for row in db_session.execute(stmt):
            out[row.Example.id] = _from_row(row, row.Example)
    return out


def get_state(*, db_session: Session, model_version_id: int, method: str) -> AggregateState | None:
    """Examples aggregated and label totals for (version, method), or None if nothing was explained."""
    return db_session.get(AggregateState, (model_version_id, method))


def explained_methods(*, db_session: Session, model_version_id: int) -> list[str]:
    """Methods with at least one stored explanation for this version."""
    stmt = (
        select(AggregateState.method)
        .where(AggregateState.model_version_id == model_version_id, AggregateState.n_examples > 0)
        .order_by(AggregateState.method)
    )
    return list(db_session.scalars(stmt))


def _prior(state: AggregateState | None, num_labels: int) -> list[float]:
    totals = list(state.label_totals) if state is not None else []
    totals += [0] * (num_labels - len(totals))
    n = sum(totals)
    return [t / n if n else 0.0 for t in totals]


def _stats(row: Any, prior: Sequence[float], labels: Sequence[str], num_labels: int) -> WordStats:
    word, count, sum_share, sum_signed, _, label_counts = row[:6]
    lc = list(label_counts) + [0] * (num_labels - len(label_counts))
    mean_importance = max(0.0, sum_share / count)
    skew, skew_label = label_skew(lc, prior)
    return WordStats(
        word=word,
        count=count,
        mean_importance=mean_importance,
        mean_signed=sum_signed / count,
        label_counts=lc,
        skew=skew,
        skew_label=skew_label,
        suspicion=mean_importance * skew,
        skew_label_name=labels[skew_label] if skew_label is not None and skew_label < len(labels) else None,
    )


def _where(model_version_id: int, method: str, label: int | None, min_count: int, search: str | None) -> list[Any]:
    where: list[Any] = [WordAggregate.model_version_id == model_version_id, WordAggregate.method == method]
    if min_count > 1:
        where.append(WordAggregate.count >= min_count)
    if label is not None:
        where.append(WordAggregate.label_counts[label].as_integer() > 0)
    needle = word_key(search.strip()) if search else ""
    if needle:
        where.append(WordAggregate.word.contains(needle, autoescape=True))
    return where


def ranking(
    *,
    db_session: Session,
    model_version_id: int,
    method: str,
    sort: str = "importance",
    label: int | None = None,
    search: str | None = None,
    min_count: int = 1,
    offset: int = 0,
    limit: int = 100,
) -> list[WordStats]:
    """One page of the task-level word ranking, with the same numbers, order and tie-breaks as
    :meth:`xmd.core.aggregate.TaskAggregate.ranking` (``label`` filters, ``search`` is a substring of
    the word key). How each sort is computed is in the module docs."""
    if sort not in SORTS:
        raise ValueError(f"unknown sort {sort!r}; allowed: {', '.join(SORTS)}")
    if offset < 0 or not 0 <= limit <= MAX_PAGE:
        raise ValueError(f"offset must be >= 0 and limit in 0..{MAX_PAGE}")
    project = _project_of(db_session, model_version_id)
    num_labels = len(project.labels)
    if label is not None and not 0 <= label < num_labels:
        raise ValueError(f"label {label} is outside 0..{num_labels - 1}")
    prior = _prior(get_state(db_session=db_session, model_version_id=model_version_id, method=method), num_labels)
    where = _where(model_version_id, method, label, min_count, search)
    stmt = select(*_COLS).where(*where)
    if limit == 0:
        return []

    def page(order: Sequence[Any]) -> list[WordStats]:
        rows = db_session.execute(stmt.order_by(*order).offset(offset).limit(limit)).all()
        return [_stats(r, prior, project.labels, num_labels) for r in rows]

    importance_order = (WordAggregate.importance.desc(), WordAggregate.count.desc(), WordAggregate.word)
    if sort == "importance":
        return page(importance_order)
    if sort == "count":
        return page((WordAggregate.count.desc(), WordAggregate.importance.desc(), WordAggregate.word))
    if sum(prior) == 0 or max(prior) >= 1.0:
        # No word can be skewed: every suspicion is 0, so the core's key (-0, -importance, word) applies.
        return page((WordAggregate.importance.desc(), WordAggregate.word))

    # Threshold scan (module docs): words in importance order; stop once importance < k-th suspicion.
    # ``heap`` is a min-heap of the k best entries so far, "better" meaning a larger tuple
    # (suspicion, importance, reversed word), i.e. earlier in the core's order; heap[0] is the k-th best.
    k = offset + limit
    heap: list[tuple[float, float, _Neg, Any]] = []
    scan = stmt.add_columns(WordAggregate.suspicion_bound).order_by(WordAggregate.suspicion_bound.desc())
    result = db_session.execute(scan.execution_options(yield_per=SCAN_BATCH))
    try:
        for row in result:
            imp = row[4]
            if len(heap) == k and row[6] < heap[0][0] - BOUND_MARGIN:
                break  # suspicion <= bound: neither this word nor any later one can enter the page
            skew = label_skew(list(row[5]) + [0] * (num_labels - len(row[5])), prior)[0]
            entry = (round(imp * skew, SORT_DIGITS), imp, _Neg(row[0]), row)
            if len(heap) < k:
                heapq.heappush(heap, entry)
            elif entry > heap[0]:
                heapq.heapreplace(heap, entry)
    finally:
        result.close()
    best = sorted(heap, reverse=True)[offset:]
    return [_stats(e[3], prior, project.labels, num_labels) for e in best]


@functools.total_ordering
class _Neg:
    """A word with reversed order: among equal (suspicion, importance), the larger tuple is then the
    word that sorts first, as in the core's tie-break."""

    __slots__ = ("s",)

    def __init__(self, s: str) -> None:
        self.s = s

    def __lt__(self, other: _Neg) -> bool:
        return self.s > other.s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Neg) and self.s == other.s

    def __hash__(self) -> int:
        return hash(self.s)


def count_words(
    *,
    db_session: Session,
    model_version_id: int,
    method: str,
    label: int | None = None,
    search: str | None = None,
    min_count: int = 1,
) -> int:
    """How many words :func:`ranking` pages through with these filters (for pagers)."""
    where = _where(model_version_id, method, label, min_count, search)
    return int(db_session.scalar(select(func.count()).select_from(WordAggregate).where(*where)) or 0)


def word_stats(*, db_session: Session, model_version_id: int, method: str, word: str) -> WordStats | None:
    """Statistics of one word (any spelling; it is normalised with ``word_key``), or None if unseen."""
    project = _project_of(db_session, model_version_id)
    num_labels = len(project.labels)
    row = db_session.execute(
        select(*_COLS).where(
            WordAggregate.model_version_id == model_version_id,
            WordAggregate.method == method,
            WordAggregate.word == word_key(word.strip()),
        )
    ).first()
    if row is None:
        return None
    prior = _prior(get_state(db_session=db_session, model_version_id=model_version_id, method=method), num_labels)
    return _stats(row, prior, project.labels, num_labels)


def _word_examples_stmt(
    model_version_id: int, method: str, word: str, label: int | None, prediction: str | None
) -> Any:
    stmt = (
        select(Example)
        .join(WordOccurrence, WordOccurrence.example_id == Example.id)
        .where(
            WordOccurrence.model_version_id == model_version_id,
            WordOccurrence.method == method,
            WordOccurrence.word == word_key(word.strip()),
        )
    )
    if label is not None:
        stmt = stmt.where(Example.label == label)
    if prediction is not None:
        if prediction not in ("correct", "incorrect"):
            raise ValueError(f"prediction must be 'correct' or 'incorrect', got {prediction!r}")
        agree = Explanation.target == Example.label if prediction == "correct" else Explanation.target != Example.label
        stmt = stmt.join(
            Explanation,
            (Explanation.example_id == Example.id)
            & (Explanation.model_version_id == model_version_id)
            & (Explanation.method == method),
        ).where(Example.label.is_not(None), agree)
    return stmt


def examples_with_word(
    *,
    db_session: Session,
    model_version_id: int,
    method: str,
    word: str,
    label: int | None = None,
    prediction: str | None = None,
    after_id: int | None = None,
    offset: int = 0,
    limit: int = 50,
) -> list[Example]:
    """One page of the examples whose explanation counts ``word`` (among the words the model saw), by id;
    ``prediction`` = ``correct`` / ``incorrect`` keeps those the version predicts right / wrong."""
    if offset < 0 or not 0 <= limit <= MAX_PAGE:
        raise ValueError(f"offset must be >= 0 and limit in 0..{MAX_PAGE}")
    stmt = _word_examples_stmt(model_version_id, method, word, label, prediction)
    if after_id is not None:
        stmt = stmt.where(WordOccurrence.example_id > after_id)
    stmt = stmt.order_by(WordOccurrence.example_id).offset(offset).limit(limit)
    return list(db_session.scalars(stmt))


def count_examples_with_word(
    *,
    db_session: Session,
    model_version_id: int,
    method: str,
    word: str,
    label: int | None = None,
    prediction: str | None = None,
) -> int:
    """How many examples :func:`examples_with_word` pages through with these filters."""
    stmt = _word_examples_stmt(model_version_id, method, word, label, prediction)
    return int(db_session.scalar(select(func.count()).select_from(stmt.subquery())) or 0)
