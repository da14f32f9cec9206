"""Migration 0011 (issue 32) on data: the shared feedback rows become their writers' own, the reviewer
role is admitted, and a downgrade keeps each key's latest row; on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy import text
from xmd.db import downgrade, make_engine, upgrade

NOW = "CURRENT_TIMESTAMP"


def _seed(conn) -> None:
    conn.execute(text(f"INSERT INTO users (id, name, role, created_at) VALUES (1, 'ann', 'annotator', {NOW})"))
    conn.execute(
        text(
            "INSERT INTO projects (id, name, description, labels, model_source, created_at, settings) "
            f"VALUES (1, 'p', '', '[]', 'm', {NOW}, '{{}}')"
        )
    )
    for i, (key, uid, source) in enumerate((("t:a::all", 1, None), ("t:b::all", None, "simulated:words:x")), 1):
        conn.execute(
            text(
                "INSERT INTO feedback_events (id, project_id, key, level, word, action, user_id, source, created_at) "
                f"VALUES (:i, 1, :k, 'task', 'a', 'remove', :u, :s, {NOW})"
            ),
            {"i": i, "k": key, "u": uid, "s": source},
        )
        conn.execute(
            text(
                "INSERT INTO feedback (project_id, level, key, word, action, last_event_id, source, updated_by, "
                f"updated_at, scope) VALUES (1, 'task', :k, 'a', 'remove', :i, :s, :u, {NOW}, 'all')"
            ),
            {"i": i, "k": key, "u": uid, "s": source},
        )


def test_existing_feedback_belongs_to_who_wrote_it(db_url):
    engine = make_engine(db_url)
    try:
        downgrade(db_url, "base")
        upgrade(db_url, "0010")
        with engine.begin() as conn:
            _seed(conn)
        upgrade(db_url, "0011")
        with engine.begin() as conn:
            owners = dict(conn.execute(text("SELECT key, owner FROM feedback")).all())
            assert owners == {"t:a::all": "u:1", "t:b::all": "simulated:words:x"}
            events = dict(conn.execute(text("SELECT key, owner FROM feedback_events")).all())
            assert events == owners
            # a second person's row on the same key is now allowed; the same person's twice is not
            conn.execute(
                text(
                    "INSERT INTO feedback (project_id, level, key, owner, word, action, last_event_id, updated_at) "
                    f"VALUES (1, 'task', 't:a::all', 'u:2', 'a', 'add', 2, {NOW})"
                )
            )
            conn.execute(text(f"INSERT INTO users (id, name, role, created_at) VALUES (3, 'rev', 'reviewer', {NOW})"))
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO feedback (project_id, level, key, owner, word, action, last_event_id, updated_at) "
                    f"VALUES (1, 'task', 't:a::all', 'u:1', 'a', 'add', 2, {NOW})"
                )
            )
        downgrade(db_url, "0010")
        with engine.begin() as conn:  # one row per key again: the latest one; the reviewer is an annotator
            rows = sorted(conn.execute(text("SELECT key, action FROM feedback")).all())
            assert rows == [("t:a::all", "remove"), ("t:b::all", "remove")] or rows == [
                ("t:a::all", "add"),
                ("t:b::all", "remove"),
            ]
            assert conn.execute(text("SELECT role FROM users WHERE id = 3")).scalar_one() == "annotator"
    finally:
        downgrade(db_url, "base")
        engine.dispose()
