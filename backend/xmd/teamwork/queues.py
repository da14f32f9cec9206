"""Work queues: assign examples with an overlap, walk each person's queue (Next), count progress.

A queue's examples come in its order (computed once by :mod:`xmd.teamwork.flows`); example ``j`` of
that order goes to ``overlap`` people, round robin over the annotators (balanced, each pair of people
shares examples when overlap ≥ 2). Every person walks the same global order, so two people reach a
shared example at about the same time. Next is the first item still ``left`` by rank: an index range
scan on (queue, user, status, rank), so it resumes where the person left off at any queue size. The
``disagreement`` order also looks, first, at the :data:`DISPUTED_SCAN` most disputed examples of the
project (bounded), then falls back to the rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, insert, select, text
from sqlalchemy.orm import Session

from xmd.core.types import DataError
from xmd.datasets.models import Example
from xmd.db.base import utcnow
from xmd.db.engine import dialect_insert, is_sqlite
from xmd.db.errors import NotFoundError
from xmd.feedback.models import ExampleDone
from xmd.teamwork.models import ExampleAgreement, ItemStatus, QueueEvent, QueueItem, QueueOrder, WorkQueue

MAX_QUEUE_EXAMPLES = 200_000
"""Examples one queue may hold (×overlap assignments); a larger set is split into several queues."""
MAX_ANNOTATORS = 100
DISPUTED_SCAN = 500
INSERT_CHUNK = 5_000

RULES = {
    QueueOrder.SUSPICIOUS: "examples containing the most suspicious words first (by the word's rank among the "
    "current version's top 200 by suspicion), then the others in dataset order",
    QueueOrder.UNCERTAIN: "the model's least confident predictions first (lowest top-class probability of the "
    "current version's stored explanation), unexplained examples last",
    QueueOrder.DISAGREEMENT: "examples where annotators already disagree first (most disputed words, among the "
    f"{DISPUTED_SCAN} most disputed examples of the project), then in a random order drawn with the seed",
    QueueOrder.RANDOM: "a random order drawn with the queue's seed",
}
"""Each order's rule, in words (the API and the Team screen show it)."""


def get_or_raise(db: Session, queue_id: int) -> WorkQueue:
    q = db.get(WorkQueue, queue_id)
    if q is None:
        raise NotFoundError(f"work queue {queue_id} not found")
    return q


def create(
    db: Session,
    *,
    project_id: int,
    name: str,
    ordering: QueueOrder,
    seed: int,
    overlap: int,
    source: dict[str, Any],
    example_ids: Sequence[int],
    user_ids: Sequence[int],
    created_by: int | None,
) -> WorkQueue:
    """The queue and its assignments (``example_ids`` already in the queue's order); the caller commits."""
    users = list(dict.fromkeys(user_ids))
    if not users or len(users) > MAX_ANNOTATORS:
        raise DataError(f"assign a queue to 1..{MAX_ANNOTATORS} annotators, got {len(users)}")
    if not 1 <= overlap <= len(users):
        raise DataError(f"overlap must be between 1 and the number of annotators ({len(users)}), got {overlap}")
    if not example_ids:
        raise DataError("the queue's selection holds no example")
    if len(example_ids) > MAX_QUEUE_EXAMPLES:
        raise DataError(f"{len(example_ids)} examples: a queue holds at most {MAX_QUEUE_EXAMPLES}; split it")
    if db.scalar(select(WorkQueue.id).where(WorkQueue.project_id == project_id, WorkQueue.name == name)):
        raise DataError(f"the project already has a queue named {name!r}")
    q = WorkQueue(
        project_id=project_id,
        name=name,
        ordering=ordering,
        seed=seed,
        overlap=overlap,
        source=source,
        n_examples=len(example_ids),
        created_by=created_by,
    )
    db.add(q)
    db.flush()
    n = len(users)
    cols: dict[str, list[Any]] = {"user_id": [], "example_id": [], "rank": []}
    for rank, eid in enumerate(example_ids):
        for j in range(overlap):
            cols["user_id"].append(users[(rank * overlap + j) % n])
            cols["example_id"].append(eid)
            cols["rank"].append(rank)
    _insert_items(db, q.id, cols)
    return q


def _insert_items(db: Session, queue_id: int, cols: dict[str, list[Any]]) -> None:
    """Assignments in bulk: on PostgreSQL one ``INSERT … SELECT unnest(arrays)`` per chunk (about 20x
    faster than a multi-row insert at a million rows), elsewhere an executemany."""
    n = len(cols["rank"])
    for i in range(0, n, INSERT_CHUNK * 10):
        part = {k: v[i : i + INSERT_CHUNK * 10] for k, v in cols.items()}
        if is_sqlite(db):
            rows = [
                {"queue_id": queue_id, "user_id": u, "example_id": e, "rank": r, "status": ItemStatus.LEFT}
                for u, e, r in zip(part["user_id"], part["example_id"], part["rank"], strict=True)
            ]
            db.execute(insert(QueueItem), rows)
        else:
            db.execute(
                text(
                    "INSERT INTO queue_items (queue_id, user_id, example_id, rank, status) "
                    "SELECT :q, u, e, r, 'left' FROM unnest(CAST(:u AS integer[]), CAST(:e AS integer[]), "
                    "CAST(:r AS integer[])) AS t(u, e, r)"
                ),
                {"q": queue_id, "u": part["user_id"], "e": part["example_id"], "r": part["rank"]},
            )


def next_item(db: Session, queue: WorkQueue, user_id: int) -> tuple[QueueItem, Example] | None:
    """The person's next item and its example, in one query: the first ``left`` by rank (the
    disagreement order: a disputed one first)."""
    base = (
        select(QueueItem, Example)
        .join(Example, Example.id == QueueItem.example_id)
        .where(QueueItem.queue_id == queue.id, QueueItem.user_id == user_id, QueueItem.status == ItemStatus.LEFT)
    )
    if queue.ordering is QueueOrder.DISAGREEMENT:
        disputed = (
            select(ExampleAgreement.example_id, ExampleAgreement.disputed)
            .where(ExampleAgreement.project_id == queue.project_id, ExampleAgreement.disputed > 0)
            .order_by(ExampleAgreement.disputed.desc())
            .limit(DISPUTED_SCAN)
            .subquery()
        )
        stmt = (
            base.join(disputed, disputed.c.example_id == QueueItem.example_id)
            .order_by(disputed.c.disputed.desc(), QueueItem.rank)
            .limit(1)
        )
        row = db.execute(stmt).first()
        if row is not None:
            return row[0], row[1]
    row = db.execute(base.order_by(QueueItem.rank).limit(1)).first()
    return (row[0], row[1]) if row is not None else None


def set_status(db: Session, queue: WorkQueue, item: QueueItem, status: ItemStatus) -> QueueItem:
    """Record a status change (and its event); the caller commits."""
    if item.status is not status:
        item.status = status
        item.updated_at = utcnow()
        if status is ItemStatus.DONE:  # done in a queue is done with the example (blind mode's reveal, "saw it")
            row = {"project_id": queue.project_id, "example_id": item.example_id, "user_id": item.user_id}
            ins = dialect_insert(db, ExampleDone.__table__).values(**row, created_at=utcnow())
            db.execute(ins.on_conflict_do_nothing())
        db.add(
            QueueEvent(
                project_id=queue.project_id,
                queue_id=queue.id,
                user_id=item.user_id,
                example_id=item.example_id,
                status=status,
            )
        )
        db.flush()
    return item


def item_of(db: Session, queue: WorkQueue, example_id: int, user_id: int) -> QueueItem:
    item = db.scalars(
        select(QueueItem).where(
            QueueItem.queue_id == queue.id, QueueItem.user_id == user_id, QueueItem.example_id == example_id
        )
    ).first()
    if item is None:
        raise NotFoundError(f"example {example_id} is not in this person's part of queue {queue.id}")
    return item


def progress(db: Session, queue_ids: Sequence[int]) -> dict[int, dict[int, dict[str, int]]]:
    """queue id → user id → {done, skipped, left} (one grouped index scan per call)."""
    out: dict[int, dict[int, dict[str, int]]] = {}
    if not queue_ids:
        return out
    stmt = (
        select(QueueItem.queue_id, QueueItem.user_id, QueueItem.status, func.count())
        .where(QueueItem.queue_id.in_(list(queue_ids)))
        .group_by(QueueItem.queue_id, QueueItem.user_id, QueueItem.status)
    )
    for qid, uid, status, n in db.execute(stmt):
        row = out.setdefault(qid, {}).setdefault(uid, {s.value: 0 for s in ItemStatus})
        row[ItemStatus(status).value] = int(n)
    return out


def items(
    db: Session, queue: WorkQueue, user_id: int | None, status: ItemStatus | None, offset: int, limit: int
) -> tuple[list[QueueItem], int]:
    """One page of a queue's items by rank (one person's, or everyone's), with the total."""
    where = [QueueItem.queue_id == queue.id]
    if user_id is not None:
        where.append(QueueItem.user_id == user_id)
    if status is not None:
        where.append(QueueItem.status == status)
    rows = db.scalars(
        select(QueueItem).where(*where).order_by(QueueItem.rank, QueueItem.user_id).offset(offset).limit(limit)
    ).all()
    total = int(db.scalar(select(func.count()).select_from(QueueItem).where(*where)) or 0)
    return list(rows), total


def list_queues(db: Session, project_id: int, offset: int, limit: int) -> tuple[list[WorkQueue], int]:
    stmt = select(WorkQueue).where(WorkQueue.project_id == project_id)
    rows = db.scalars(stmt.order_by(WorkQueue.id).offset(offset).limit(limit)).all()
    total = int(db.scalar(select(func.count()).select_from(stmt.subquery())) or 0)
    return list(rows), total


def progress_of(db: Session, queue_id: int, user_id: int) -> dict[str, int]:
    """One person's {done, skipped, left} in one queue (index-only counts)."""
    out = {s.value: 0 for s in ItemStatus}
    stmt = (
        select(QueueItem.status, func.count())
        .where(QueueItem.queue_id == queue_id, QueueItem.user_id == user_id)
        .group_by(QueueItem.status)
    )
    for status, n in db.execute(stmt):
        out[ItemStatus(status).value] = int(n)
    return out


def add_done(db: Session, *, project_id: int, name: str, pairs: Sequence[tuple[int, int]]) -> WorkQueue:
    """A queue of finished items (user id, example id): who saw what, as an import records it."""
    pairs = list(dict.fromkeys(pairs))
    if len(pairs) > MAX_QUEUE_EXAMPLES * 10:
        raise DataError(f"{len(pairs)} finished items: more than one import may record")
    q = WorkQueue(
        project_id=project_id,
        name=name,
        ordering=QueueOrder.RANDOM,
        seed=0,
        overlap=1,
        source={"import": name},
        n_examples=len({e for _, e in pairs}),
    )
    db.add(q)
    db.flush()
    now = utcnow()
    for i in range(0, len(pairs), INSERT_CHUNK):
        chunk = pairs[i : i + INSERT_CHUNK]
        db.execute(
            insert(QueueItem),
            [
                {
                    "queue_id": q.id,
                    "user_id": u,
                    "example_id": e,
                    "rank": i + j,
                    "status": ItemStatus.DONE,
                    "updated_at": now,
                }
                for j, (u, e) in enumerate(chunk)
            ],
        )
        done = [{"project_id": project_id, "example_id": e, "user_id": u, "created_at": now} for u, e in chunk]
        db.execute(dialect_insert(db, ExampleDone.__table__).values(done).on_conflict_do_nothing())
        db.execute(
            insert(QueueEvent),
            [
                {
                    "project_id": project_id,
                    "queue_id": q.id,
                    "user_id": u,
                    "example_id": e,
                    "status": ItemStatus.DONE,
                    "created_at": now,
                }
                for u, e in chunk
            ],
        )
    return q
