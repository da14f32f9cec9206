"""One click's write, in as few round trips as each database allows, with statements built once.

A click is an event and the new current state of its owner's row of the key (one row per person;
``service._write`` holds the rules: the key's lock first, then the event numbers the click, then the
current row follows it). Built per click, the two INSERT statements cost about a tenth of the
request's CPU (SQLAlchemy coerces every value and computes a cache key each time), so they are built
here once per dialect with bound parameters.

On PostgreSQL the event and the current row are one statement: the event's INSERT is a CTE whose
``RETURNING id`` feeds the upsert (or the DELETE of a reset), one round trip instead of two. The key's
advisory lock stays a statement of its own before it: a statement's snapshot is taken when it starts,
so a DELETE in the same statement as the lock wait would not see a row that the writer it waited for
has just committed. SQLite has no data-modifying CTEs; there the two statements remain (it holds its
write lock from the event's INSERT to the commit anyway).
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import Table, bindparam, delete, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from xmd.feedback.models import Feedback, FeedbackEvent

EVENTS: Table = FeedbackEvent.__table__  # type: ignore[assignment]
CURRENT: Table = Feedback.__table__  # type: ignore[assignment]
SHARED = (
    "project_id",
    "key",
    "owner",
    "level",
    "example_id",
    "word_index",
    "word",
    "label",
    "scope",
    "action",
    "source",
)
"""Columns the event and the current row both take from the click."""
EVENT_ONLY = ("user_id", "created_at")
CURRENT_ONLY = ("updated_by", "updated_at")


def _binds(table: Table, names: tuple[str, ...]) -> dict[str, Any]:
    """A bound parameter per column, typed as the column (enums bind their values, datetimes as such)."""
    return {n: bindparam(n, type_=table.c[n].type) for n in names}


@functools.cache
def _event() -> Any:
    """``INSERT`` of the event, returning its id (both databases)."""
    return insert(EVENTS).values(_binds(EVENTS, SHARED + EVENT_ONLY)).returning(EVENTS.c.id)


def _upsert(dialect: str, event_id: Any) -> Any:
    """The key's current row from the click, replacing the key's row if there is one, returned as
    written; ``event_id``: what numbers it (a bound parameter, or the event CTE's id)."""
    ins = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = ins(CURRENT).values({**_binds(CURRENT, SHARED + CURRENT_ONLY), "last_event_id": event_id})
    replaced = [c for c in SHARED + CURRENT_ONLY if c not in ("project_id", "key", "owner")] + ["last_event_id"]
    stmt = stmt.on_conflict_do_update(
        index_elements=["project_id", "key", "owner"], set_={c: stmt.excluded[c] for c in replaced}
    )
    return select(Feedback).from_statement(stmt.returning(*CURRENT.c))


@functools.cache
def _write_pg() -> Any:
    """PostgreSQL: the event and the current row in one statement (see the module docs)."""
    ev = _event().cte("ev")
    return _upsert("postgresql", select(ev.c.id).scalar_subquery())


@functools.cache
def _reset_pg() -> Any:
    """PostgreSQL: the event of a reset and the DELETE of the key's row in one statement."""
    ev = _event().cte("ev")
    gone = _delete().cte("gone")  # a data-modifying CTE runs whether or not the statement reads it
    return select(ev.c.id).add_cte(gone)


@functools.cache
def _upsert_sqlite() -> Any:
    return _upsert("sqlite", bindparam("last_event_id", type_=CURRENT.c.last_event_id.type))


@functools.cache
def _delete() -> Any:
    return delete(CURRENT).where(
        CURRENT.c.project_id == bindparam("project_id"),
        CURRENT.c.key == bindparam("key"),
        CURRENT.c.owner == bindparam("owner"),  # a reset clears its owner's mark only
    )


def write(db_session: Session, params: dict[str, Any], *, reset: bool) -> tuple[int, Feedback | None]:
    """Write one click (``params``: the columns of :data:`SHARED`, :data:`EVENT_ONLY` and
    :data:`CURRENT_ONLY`); the event's id and the key's current row as written (None after a reset;
    a copy of it already in the session is refreshed). The caller holds the key's lock."""
    fresh = {"populate_existing": True}
    if db_session.get_bind().dialect.name == "postgresql":
        if reset:
            return db_session.execute(_reset_pg(), params).scalar_one(), None
        fb = db_session.scalars(_write_pg(), params, execution_options=fresh).one()
        return fb.last_event_id, fb
    event_id = db_session.execute(_event(), params).scalar_one()
    if reset:
        db_session.execute(_delete(), {k: params[k] for k in ("project_id", "key", "owner")})
        return event_id, None
    fb = db_session.scalars(_upsert_sqlite(), {**params, "last_event_id": event_id}, execution_options=fresh).one()
    return event_id, fb
