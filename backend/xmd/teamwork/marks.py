"""Each person's current marks, read from the append-only ``feedback_events`` log.

The one reader of "who marked what" for queues, agreement and the dataset export: the last event per
(key, person) wins and a reset clears that person's mark only. A person is a user id (the events'
``user_id``); events without a user and a reviewer's decisions (``source`` ``review:…``) are nobody's
marks. When the feedback rows carry their owner (issue 32 §1), this module is the one place to switch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from xmd.core.feedback import task_key
from xmd.core.types import Action, Scope
from xmd.feedback.models import ExampleDone, FeedbackEvent, FeedbackLevel
from xmd.teamwork.models import ItemStatus, QueueItem, WorkQueue

CHUNK = 500
MAX_TASK_EVENTS = 200_000
"""Task-level events read per summary (the task vocabulary is small; beyond this, refuse)."""

InstanceMarks = dict[int, dict[int, dict[int, Action]]]
"""example id → user id → word position → action (no resets)."""


def _chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for i in range(0, len(ids), CHUNK):
        yield ids[i : i + CHUNK]


def _is_person(user_id: int | None, source: str | None) -> bool:
    return user_id is not None and not (source or "").startswith("review:")


def instance_marks(db_session: Session, project_id: int, example_ids: Sequence[int]) -> InstanceMarks:
    """Every person's current instance marks on ``example_ids`` (index on ``feedback_events.example_id``)."""
    out: InstanceMarks = {}
    latest: dict[tuple[int, int, int], Action] = {}
    ids = sorted(set(example_ids))
    for chunk in _chunks(ids):
        stmt = (
            select(
                FeedbackEvent.example_id,
                FeedbackEvent.word_index,
                FeedbackEvent.user_id,
                FeedbackEvent.source,
                FeedbackEvent.action,
            )
            .where(
                FeedbackEvent.project_id == project_id,
                FeedbackEvent.example_id.in_(chunk),
                FeedbackEvent.level == FeedbackLevel.INSTANCE,
            )
            .order_by(FeedbackEvent.id)
        )
        for eid, i, uid, source, action in db_session.execute(stmt):
            if _is_person(uid, source) and i is not None:
                latest[(eid, uid, i)] = action
    for (eid, uid, i), action in latest.items():
        if action is not Action.RESET:
            out.setdefault(eid, {}).setdefault(uid, {})[i] = action
    return out


TaskMarks = dict[int, dict[tuple[str, int | None, Scope], tuple[str, Action]]]
"""user id → (word key, label, scope) → (the word as typed, action)."""


def task_marks(db_session: Session, project_id: int) -> TaskMarks:
    """Every person's current task-level words (key ``t:<word key>:<label>:<scope>``)."""
    stmt = (
        select(
            FeedbackEvent.key,
            FeedbackEvent.word,
            FeedbackEvent.label,
            FeedbackEvent.scope,
            FeedbackEvent.user_id,
            FeedbackEvent.source,
            FeedbackEvent.action,
        )
        .where(FeedbackEvent.project_id == project_id, FeedbackEvent.level == FeedbackLevel.TASK)
        .order_by(FeedbackEvent.id)
        .limit(MAX_TASK_EVENTS + 1)
    )
    rows = db_session.execute(stmt).all()
    if len(rows) > MAX_TASK_EVENTS:
        raise ValueError(f"more than {MAX_TASK_EVENTS} task-level events: too many to summarise in a request")
    latest: dict[tuple[int, str], tuple[str, int | None, Scope, str, Action]] = {}
    for key, word, label, scope, uid, source, action in rows:
        if _is_person(uid, source):
            wkey = task_key(word) if word else key
            latest[(uid, key)] = (wkey, label, scope or Scope.ALL, word or wkey, action)
    out: TaskMarks = {}
    for (uid, _), (wkey, label, scope, word, action) in latest.items():
        if action is not Action.RESET:
            out.setdefault(uid, {})[(wkey, label, scope)] = (word, action)
    return out


def seen_by(db_session: Session, project_id: int, example_ids: Sequence[int]) -> dict[int, set[int]]:
    """example id → the users who finished it (they saw it): done in a work queue of the project, or
    marked done on the example (``feedback_done``, blind mode's button)."""
    out: dict[int, set[int]] = {}
    for chunk in _chunks(sorted(set(example_ids))):
        stmt = (
            select(QueueItem.example_id, QueueItem.user_id)
            .join(WorkQueue, WorkQueue.id == QueueItem.queue_id)
            .where(
                WorkQueue.project_id == project_id, QueueItem.example_id.in_(chunk), QueueItem.status == ItemStatus.DONE
            )
        )
        for eid, uid in db_session.execute(stmt):
            out.setdefault(eid, set()).add(uid)
        done = select(ExampleDone.example_id, ExampleDone.user_id).where(
            ExampleDone.project_id == project_id, ExampleDone.example_id.in_(chunk)
        )
        for eid, uid in db_session.execute(done):
            out.setdefault(eid, set()).add(uid)
    return out


def done_examples(db_session: Session, project_id: int, limit: int) -> list[int]:
    """Examples someone finished in a work queue of the project (at most ``limit``)."""
    stmt = (
        select(QueueItem.example_id)
        .join(WorkQueue, WorkQueue.id == QueueItem.queue_id)
        .where(WorkQueue.project_id == project_id, QueueItem.status == ItemStatus.DONE)
        .distinct()
        .limit(limit)
    )
    return list(db_session.scalars(stmt))
