"""Bulk writes of feedback (imports): every entry's event in order, then each key's last state once.

Row-by-row ORM writes took over a minute for 100,000 entries, and one advisory lock per key filled
PostgreSQL's server-wide lock table. Here the whole import holds one project lock (see
``service._serialise_project``) and writes with a constant number of statements: on PostgreSQL
``INSERT … SELECT FROM unnest(arrays)`` (one round trip, no per-row parameter parsing); on SQLite,
which holds the database write lock for the transaction anyway, ``executemany`` with the event ids
numbered here in file order.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, text
from sqlalchemy.orm import Session

from xmd.core.types import Action
from xmd.db.engine import dialect_insert, is_sqlite, lock_row
from xmd.feedback.models import Feedback, FeedbackEvent, FeedbackLevel
from xmd.projects.models import Project

Entry = tuple[FeedbackLevel, str, dict[str, Any]]
FIELDS = ("example_id", "word_index", "word", "label", "scope", "action", "source")
CHUNK = 500
_ARRAYS = (
    "CAST(:keys AS text[]), CAST(:levels AS text[]), CAST(:example_ids AS int[]), CAST(:word_indexes AS int[]), "
    "CAST(:words AS text[]), CAST(:labels AS int[]), CAST(:scopes AS text[]), CAST(:actions AS text[]), "
    "CAST(:sources AS text[])"
)
_COLUMNS = "key, level, example_id, word_index, word, label, scope, action, source"


def _value(v: Any) -> Any:
    return v.value if hasattr(v, "value") else v


_ARRAY_OF = {
    "example_id": "example_ids",
    "word_index": "word_indexes",
    "word": "words",
    "label": "labels",
    "scope": "scopes",
    "action": "actions",
    "source": "sources",
}


def _arrays(entries: Sequence[Entry]) -> dict[str, list[Any]]:
    """One list per column (enum values as their strings), the parameters of the ``unnest`` above."""
    out: dict[str, list[Any]] = {"keys": [key for _, key, _ in entries], "levels": [lv.value for lv, _, _ in entries]}
    for name, param in _ARRAY_OF.items():
        out[param] = [_value(fields[name]) for _, _, fields in entries]
    return out


def write_events(
    db_session: Session,
    *,
    project_id: int,
    entries: Sequence[Entry],
    user_id: int | None,
    owner: str,
    now: datetime,
) -> list[int]:
    """Insert one event per entry, numbered in the order of ``entries``; their ids in that order."""
    if not is_sqlite(db_session):
        sql = text(
            f"INSERT INTO {FeedbackEvent.__tablename__} (project_id, user_id, owner, created_at, {_COLUMNS}) "
            f"SELECT :pid, :uid, :owner, :now, {_COLUMNS} FROM unnest({_ARRAYS}) WITH ORDINALITY "
            f"AS t({_COLUMNS}, ord) ORDER BY ord RETURNING id"
        )
        args = {"pid": project_id, "uid": user_id, "owner": owner, "now": now, **_arrays(entries)}
        ids = db_session.scalars(sql, args).all()
        return sorted(ids)  # the ids were drawn in ORDER BY ord, so ascending id = file order
    lock_row(db_session, Project, Project.id == project_id)  # the write lock first: no id can be taken meanwhile
    first = (db_session.scalar(select(func.max(FeedbackEvent.id))) or 0) + 1
    rows = [
        {
            "id": first + i,
            "project_id": project_id,
            "key": key,
            "level": level,
            "user_id": user_id,
            "owner": owner,
            "created_at": now,
            **fields,
        }
        for i, (level, key, fields) in enumerate(entries)
    ]
    db_session.execute(insert(FeedbackEvent.__table__), rows)
    return [first + i for i in range(len(entries))]


def write_current(
    db_session: Session,
    *,
    project_id: int,
    entries: Sequence[Entry],
    event_ids: Sequence[int],
    user_id: int | None,
    owner: str,
    now: datetime,
) -> None:
    """Make each key's current row of ``owner`` the state of its last entry (deleted when that entry is
    a reset; other owners' rows of the key are left alone)."""
    last: dict[str, int] = {}
    for i, (_level, key, _fields) in enumerate(entries):
        last[key] = i
    order = sorted(last.values())
    reset = [entries[i][1] for i in order if entries[i][2]["action"] is Action.RESET]
    kept = [i for i in order if entries[i][2]["action"] is not Action.RESET]
    if not is_sqlite(db_session):
        if reset:
            db_session.execute(
                text(
                    f"DELETE FROM {Feedback.__tablename__} WHERE project_id = :pid AND owner = :owner "
                    "AND key = ANY(CAST(:k AS text[]))"
                ),
                {"pid": project_id, "owner": owner, "k": reset},
            )
        if kept:
            changed = ", ".join(
                f"{c} = excluded.{c}" for c in ("level", *FIELDS, "last_event_id", "updated_by", "updated_at")
            )
            sql = text(
                f"INSERT INTO {Feedback.__tablename__} "
                f"(project_id, owner, updated_by, updated_at, last_event_id, {_COLUMNS}) "
                f"SELECT :pid, :owner, :uid, :now, ev, {_COLUMNS} FROM unnest({_ARRAYS}, CAST(:evs AS int[])) "
                f"AS t({_COLUMNS}, ev) ON CONFLICT (project_id, key, owner) DO UPDATE SET {changed}"
            )
            params = _arrays([entries[i] for i in kept])
            evs = [event_ids[i] for i in kept]
            db_session.execute(
                sql, {"pid": project_id, "owner": owner, "uid": user_id, "now": now, "evs": evs, **params}
            )
        return
    for start in range(0, len(reset), CHUNK):
        chunk = reset[start : start + CHUNK]
        mine = (Feedback.project_id == project_id, Feedback.owner == owner)
        db_session.execute(delete(Feedback).where(*mine, Feedback.key.in_(chunk)))
    if kept:
        rows = [
            {
                "project_id": project_id,
                "key": entries[i][1],
                "owner": owner,
                "level": entries[i][0],
                **entries[i][2],
                "last_event_id": event_ids[i],
                "updated_by": user_id,
                "updated_at": now,
            }
            for i in kept
        ]
        upsert = dialect_insert(db_session, Feedback.__table__)
        changed_cols = ("level", *FIELDS, "last_event_id", "updated_by", "updated_at")
        upsert = upsert.on_conflict_do_update(
            index_elements=["project_id", "key", "owner"], set_={c: upsert.excluded[c] for c in changed_cols}
        )
        db_session.execute(upsert, rows)
