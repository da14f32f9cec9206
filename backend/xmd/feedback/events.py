"""The feedback event log read back: one key's history, the project's log paged by event id.

Every click, import and review decision is an event (never updated or deleted); a reader's ``where``
(e.g. :func:`xmd.feedback.team.events_visible_to`) narrows what they may see.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from xmd.feedback.models import FeedbackEvent

MAX_PAGE = 1000


def history(*, db_session: Session, project_id: int, key: str) -> list[FeedbackEvent]:
    """Every event of one key, oldest first (the audit trail, resets included)."""
    stmt = select(FeedbackEvent).where(FeedbackEvent.project_id == project_id, FeedbackEvent.key == key)
    return list(db_session.scalars(stmt.order_by(FeedbackEvent.id)))


def list_events(
    *,
    db_session: Session,
    project_id: int,
    key: str | None = None,
    after_id: int | None = None,
    before_id: int | None = None,
    newest_first: bool = False,
    limit: int = 100,
    where: ColumnElement[bool] | None = None,
) -> list[FeedbackEvent]:
    """The project's event log (or one key's) paged by event id: oldest first (``after_id``), or newest
    first (``before_id``) for an activity feed that shows the latest clicks."""
    stmt = select(FeedbackEvent).where(*_event_filters(project_id, key, after_id, before_id, where))
    order = FeedbackEvent.id.desc() if newest_first else FeedbackEvent.id
    return list(db_session.scalars(stmt.order_by(order).limit(min(limit, MAX_PAGE))))


def count_events(
    *,
    db_session: Session,
    project_id: int,
    key: str | None = None,
    after_id: int | None = None,
    before_id: int | None = None,
    where: ColumnElement[bool] | None = None,
) -> int:
    """How many events :func:`list_events` pages through with these filters."""
    conds = _event_filters(project_id, key, after_id, before_id, where)
    return int(db_session.scalar(select(func.count()).select_from(FeedbackEvent).where(*conds)) or 0)


def _event_filters(
    project_id: int, key: str | None, after_id: int | None, before_id: int | None, extra: ColumnElement[bool] | None
) -> list[Any]:
    where: list[Any] = [FeedbackEvent.project_id == project_id]
    if extra is not None:
        where.append(extra)
    if key is not None:
        where.append(FeedbackEvent.key == key)
    if after_id is not None:
        where.append(FeedbackEvent.id > after_id)
    if before_id is not None:
        where.append(FeedbackEvent.id < before_id)
    return where
