"""Explanations and task-level word rankings, kept in step in one transaction.

**Incremental aggregates.** :func:`upsert_explanations` writes a batch of explanations and, in the same
transaction, adds each new explanation's per-word contribution to ``word_aggregates`` and subtracts the
contribution of the explanation it replaces, so a ranking is never out of step with the explanations
and rescoring one example costs O(its words). The per-example contribution (shares, signed shares,
punctuation skipped, one entry per word key) is computed by :class:`xmd.core.aggregate.TaskAggregate`
itself, through its public ``add`` and ``to_dict``, so the store and the core cannot disagree.
Contributions are always computed from the float32 scores that are stored, so the contribution
subtracted on rescoring is exactly the one that was added. Writers to one (model version, method)
are serialised by locking its ``aggregate_states`` row, on PostgreSQL only for the aggregate update at the
end of their transaction (writers of the same examples wait for each other first: ``lock_examples``), so
workers sharing an explain job write their chunks' rows in parallel; other versions and methods never wait.

Read from these tables: the word rankings in :mod:`xmd.explanations.ranking`, predictions in :mod:`.predictions`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from xmd.core.types import DataError
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words
from xmd.datasets import service as datasets_service
from xmd.datasets.models import Example
from xmd.db import bulk
from xmd.db.base import utcnow
from xmd.db.engine import analyze, grew_past_threshold, is_sqlite, write_scope
from xmd.db.errors import NotFoundError
from xmd.explanations.aggregates import (
    Delta,
    accumulate,
    apply_word_deltas,
    contributions,
    lock_examples,
    lock_state,
    next_floor,
    refresh_bounds,
)
from xmd.explanations.models import AggregateState, Explanation, WordOccurrence
from xmd.explanations.predictions import stored_predictions as stored_predictions
from xmd.explanations.statecache import state_cache
from xmd.projects.models import Project
from xmd.versions.models import ModelVersion

MAX_PAGE = 1000


EXPLAIN = "explain"
"""The job kind that explains a dataset (its body and registration: :mod:`xmd.explanations.flows`)."""


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


def project_of(db_session: Session, model_version_id: int) -> Project:
    project = db_session.scalar(
        select(Project)
        .join(ModelVersion, ModelVersion.project_id == Project.id)
        .where(ModelVersion.id == model_version_id)
    )
    if project is None:
        raise NotFoundError(f"model version {model_version_id} not found")
    return project


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
_EXPLANATION_VALUES = ("target", "probs", "scores", "n_seen", "delta", "created_at")
_OCCURRENCE_ROW = ("model_version_id", "method", "word", "example_id")


# ---------------------------------------------------------------------------------- writes


def _delete_rows(db_session: Session, table: Any, model_version_id: int, method: str, example_ids: list[int]) -> None:
    """Delete the rows of ``table`` (explanations or word occurrences) of these examples under (version, method)."""
    for cond in bulk.in_values(db_session, table.example_id, example_ids):
        db_session.execute(
            delete(table).where(table.model_version_id == model_version_id, table.method == method, cond)
        )


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
    project = project_of(db_session, model_version.id)
    num_labels = len(project.labels)
    batch: dict[int, tuple[Example, CoreExplanation]] = {}
    for example, exp in items:
        if example.project_id != model_version.project_id:
            raise DataError(f"example {example.id} belongs to another project than model version {model_version.id}")
        if example.label is not None and not 0 <= example.label < num_labels:
            raise DataError(f"example {example.ext_id!r} has label {example.label}, outside 0..{num_labels - 1}")
        batch[example.id] = (example, _stored_form(example, exp))
    ids = sorted(batch)
    # Before any lock: the new contributions depend on nothing stored.
    new_contrib = contributions(num_labels, {eid: exp for eid, (_, exp) in batch.items()})

    # SQLite: the state lock first (its INSERT takes the database write lock; see lock_state). PostgreSQL:
    # writers of these examples wait for each other, and the state row, which every writer of the
    # (version, method) needs, is locked only for the aggregate update at the end (lock_examples).
    state = lock_state(db_session, model_version, method, num_labels) if is_sqlite(db_session) else None
    lock_examples(db_session, model_version.id, ids)
    # Rows as plain tuples, not ORM objects: they are rewritten below with Core statements, and ORM
    # copies in the session's identity map would go stale.
    old_rows: dict[int, Any] = {}
    for cond in bulk.in_values(db_session, Explanation.example_id, ids):
        stmt = select(*_EXPLANATION_COLS).where(
            Explanation.model_version_id == model_version.id, Explanation.method == method, cond
        )
        for row in db_session.execute(stmt):
            old_rows[row.example_id] = row

    old_contrib = contributions(num_labels, {eid: _from_row(row, batch[eid][0]) for eid, row in old_rows.items()})

    deltas: dict[str, Delta] = {}
    new_per_label = [0] * num_labels
    occurrences: list[tuple[int, str, str, int]] = []
    mv_id = model_version.id
    for eid in ids:
        label = batch[eid][0].label
        for sign, contrib in ((-1, old_contrib.get(eid)), (1, new_contrib[eid])):
            if contrib is None:
                continue
            accumulate(deltas, num_labels, contrib, label, sign)
        if eid not in old_rows and label is not None:
            new_per_label[label] += 1
        occurrences.extend((mv_id, method, key, eid) for key, _, _ in new_contrib[eid])

    # Occurrences: drop the replaced explanations' rows, insert the new ones.
    _delete_rows(db_session, WordOccurrence, model_version.id, method, sorted(old_rows))
    bulk.insert_rows(db_session, _OCCURRENCES, _OCCURRENCE_ROW, occurrences)

    now = utcnow()
    inserts, updates = [], []
    for eid in ids:
        exp = batch[eid][1]
        values = (
            int(exp.target),
            exp.probs,
            encode_scores(exp.scores),
            int(exp.n_seen),
            None if exp.delta is None else float(exp.delta),
            now,
        )
        if eid in old_rows:
            updates.append((old_rows[eid].id, *values))
        else:
            inserts.append((eid, mv_id, method, *values))
    bulk.update_rows(db_session, _EXPLANATIONS, ("id",), _EXPLANATION_VALUES, updates)
    bulk.insert_rows(
        db_session, _EXPLANATIONS, ("example_id", "model_version_id", "method", *_EXPLANATION_VALUES), inserts
    )

    if state is None:
        state = lock_state(db_session, model_version, method, num_labels)
    label_totals = list(state.label_totals) + [0] * (num_labels - len(state.label_totals))
    for label, n in enumerate(new_per_label):
        label_totals[label] += n
    apply_deltas(db_session, state, model_version, method, num_labels, deltas, label_totals)
    before = state.n_examples
    state.n_examples = before + len(ids) - len(old_rows)
    state.label_totals = label_totals
    state.updated_at = now
    if grew_past_threshold(before, state.n_examples):
        analyze(db_session, "explanations", "word_aggregates", "word_occurrences")
    return len(ids)


def apply_deltas(
    db_session: Session,
    state: AggregateState,
    model_version: ModelVersion,
    method: str,
    num_labels: int,
    deltas: dict[str, Delta],
    label_totals: list[int],
) -> None:
    """Apply the word deltas under the locked ``state``, keeping every row's suspicion bound valid for the
    new label prior (``label_totals``, which the caller then stores on the state)."""
    floor, refresh = next_floor(state.bound_floor, label_totals)
    apply_word_deltas(
        db_session, model_version=model_version, method=method, num_labels=num_labels, deltas=deltas, floor=floor
    )
    if refresh:
        refresh_bounds(db_session, model_version_id=model_version.id, method=method, floor=floor)
    state.bound_floor = floor


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
    project = project_of(db_session, model_version.id)
    num_labels = len(project.labels)
    # The lock order of _upsert: on SQLite the state first, on PostgreSQL the examples (or the version) first.
    state = lock_state(db_session, model_version, method, num_labels) if is_sqlite(db_session) else None
    lock_examples(db_session, model_version.id, ids)
    if state is None:
        state = lock_state(db_session, model_version, method, num_labels)
    rows: list[tuple[Any, Example]] = []
    for cond in bulk.in_values(db_session, Explanation.example_id, ids):
        stmt = (
            select(*_EXPLANATION_COLS, Example)
            .join(Example, Example.id == Explanation.example_id)
            .where(Explanation.model_version_id == model_version.id, Explanation.method == method, cond)
        )
        rows.extend((row, row.Example) for row in db_session.execute(stmt))
    if not rows:
        return 0
    contrib = contributions(num_labels, {ex.id: _from_row(row, ex) for row, ex in rows})
    labels = {ex.id: ex.label for _, ex in rows}
    deltas: dict[str, Delta] = {}
    label_totals = list(state.label_totals) + [0] * (num_labels - len(state.label_totals))
    for eid, entries in contrib.items():
        label = labels[eid]
        if label is not None:
            label_totals[label] -= 1
        accumulate(deltas, num_labels, entries, label, -1)
    apply_deltas(db_session, state, model_version, method, num_labels, deltas, label_totals)
    found = sorted(labels)
    _delete_rows(db_session, WordOccurrence, model_version.id, method, found)
    _delete_rows(db_session, Explanation, model_version.id, method, found)
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
            n += remove_explanations(
                db_session=db_session, model_version=mv, method=method, example_ids=ids, commit=False
            )
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


def get_state(*, db_session: Session, model_version_id: int, method: str) -> AggregateState | None:
    """Examples aggregated and label totals for (version, method), or None if nothing was explained."""
    return db_session.get(AggregateState, (model_version_id, method))


def explained_counts(
    *,
    db_session: Session,
    project_id: int,
    dataset_id: int | None = None,
    model_version_id: int | None = None,
    method: str | None = None,
) -> list[tuple[int, int, int, str, int]]:
    """Examples explained per (dataset, version, method) of a project, as rows ``(dataset id, version id,
    version number, method, n)`` ordered by dataset, version and method: what a ranking under a version
    and method is built from, and what the Data tab lists as explained."""
    stmt = (
        select(Example.dataset_id, Explanation.model_version_id, ModelVersion.version, Explanation.method, func.count())
        .join(Example, Example.id == Explanation.example_id)
        .join(ModelVersion, ModelVersion.id == Explanation.model_version_id)
        .where(Example.project_id == project_id)
        .group_by(Example.dataset_id, Explanation.model_version_id, ModelVersion.version, Explanation.method)
        .order_by(Example.dataset_id, ModelVersion.version, Explanation.method)
    )
    if dataset_id is not None:
        stmt = stmt.where(Example.dataset_id == dataset_id)
    if model_version_id is not None:
        stmt = stmt.where(Explanation.model_version_id == model_version_id)
    if method is not None:
        stmt = stmt.where(Explanation.method == method)
    return [(int(d), int(v), int(n_v), str(m), int(n)) for d, v, n_v, m, n in db_session.execute(stmt)]


UNREAD: Any = object()
"""``state`` not given: :func:`coverage` reads it."""


def explained_by_dataset(
    *, db_session: Session, project: Project, mv: ModelVersion, method: str, state: AggregateState | None
) -> dict[int, int]:
    """Examples explained under (``mv``, ``method``) per dataset, kept until the aggregate ``state`` changes:
    counting them joins every explanation of the version, which at a million examples cost more than the
    task view's own query, on every page."""

    def count() -> dict[int, int]:
        rows = explained_counts(db_session=db_session, project_id=project.id, model_version_id=mv.id, method=method)
        return {d: n for d, _, _, _, n in rows}

    return state_cache.get(db_session, state, ("explained_by_dataset", project.id), count)


def coverage(
    *, db_session: Session, project: Project, mv: ModelVersion, method: str, state: AggregateState | None = UNREAD
) -> dict[str, Any]:
    """What the training sets hold explained under (``mv``, ``method``), and the explain job filling them
    (the fields of ``schemas.Coverage``). ``state``: the (version, method)'s state row when the caller has
    read it already (None: nothing explained yet)."""
    from xmd.datasets.models import DatasetRole
    from xmd.jobs import service as jobs_service

    if state is UNREAD:
        state = get_state(db_session=db_session, model_version_id=mv.id, method=method)
    train = datasets_service.list_datasets(db_session=db_session, project_id=project.id, role=DatasetRole.TRAIN)
    counts = explained_by_dataset(db_session=db_session, project=project, mv=mv, method=method, state=state)
    sets = [
        {"dataset_id": ds.id, "name": ds.name, "explained": counts.get(ds.id, 0), "total": ds.n_examples}
        for ds in train
    ]
    job = next(
        (
            j
            for j in jobs_service.active_jobs(db_session=db_session, project_id=project.id)
            if j.kind == EXPLAIN and j.params.get("version_id") == mv.id and j.params.get("method") == method
        ),
        None,
    )
    explained, total = sum(s["explained"] for s in sets), sum(s["total"] for s in sets)
    return {
        "version_id": mv.id,
        "version": mv.version,
        "method": method,
        "explained": explained,
        "total": total,
        "complete": explained >= total,
        "job_id": None if job is None else job.id,
        "datasets": sets,
    }


datasets_service.BEFORE_DELETE["explanations"] = remove_explanations_of_dataset
datasets_service.FACTS["explained"] = lambda db, ds: explained_counts(
    db_session=db, project_id=ds.project_id, dataset_id=ds.id
)
