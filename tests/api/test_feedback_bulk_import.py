"""A 100,000-entry feedback import in one request on PostgreSQL (issue 13, item 5).

On PostgreSQL one advisory lock per key held for the transaction filled the server-wide lock table
at about 20,000 keys ("out of shared memory"); the import now takes one lock for the project.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from apihelpers import Api, make_settings
from sqlalchemy import func, select, text
from xmd.config import Settings
from xmd.feedback.models import Feedback, FeedbackEvent

N = 100_000
DISTINCT = N - 10


@pytest.fixture()
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path, max_upload_mb=32)  # the 100k-entry file is about 6 MB


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)  # the lock table is PostgreSQL's; SQLite
def test_import_of_100k_task_entries_in_one_request(api: Api, project: dict[str, Any], db, dialect: str):
    """(SQLite runs the same bulk path in tests/store/test_feedback.py and tests/api/test_explain_feedback.py.)"""
    task = [{"word": f"w{i}", "action": "add", "label": None, "scope": "all"} for i in range(DISTINCT)]
    task += [{"word": f"w{i}", "action": "remove", "label": None, "scope": "all"} for i in range(5)]  # later wins
    task += [{"word": f"w{i}", "action": "reset", "label": None, "scope": "all"} for i in range(5, 10)]
    assert len(task) == N
    body = json.dumps({"dataset_id": project["train"]["id"], "feedback": {"instance": [], "task": task}})
    start = time.perf_counter()
    r = api.client.post(
        f"/api/projects/{project['id']}/feedback/import",
        content=body,
        headers={**api.h("annotator"), "Content-Type": "application/json"},
    )
    seconds = time.perf_counter() - start
    assert r.status_code == 200, r.text[:2000]
    assert r.json()["imported"] == N and r.json()["preview"] is False
    print(f"\n{dialect}: imported {N} entries in {seconds:.1f} s")
    pid = project["id"]
    assert db.scalar(select(func.count()).select_from(FeedbackEvent).where(FeedbackEvent.project_id == pid)) == N
    rows = dict(db.execute(select(Feedback.word, Feedback.action).where(Feedback.project_id == pid)).all())
    assert len(rows) == DISTINCT - 5
    assert {rows[f"w{i}"].value for i in range(5)} == {"remove"}
    assert not any(f"w{i}" in rows for i in range(5, 10))
    assert rows[f"w{DISTINCT - 1}"].value == "add"
    # each current row remembers the last event of its key, and rows are in the order given
    last = db.execute(
        select(Feedback.word, Feedback.last_event_id).where(Feedback.project_id == pid).order_by(Feedback.last_event_id)
    ).all()
    assert [w for w, _ in last[-5:]] == [f"w{i}" for i in range(5)]
    # a click after the import works and wins over the imported state
    r = api.put(f"/api/projects/{pid}/task-feedback", role="annotator", json={"word": "w0", "action": "add"})
    assert r.status_code == 200, r.text
    db.expire_all()
    assert db.scalar(select(Feedback.action).where(Feedback.project_id == pid, Feedback.word == "w0")).value == "add"
    if dialect == "postgresql":  # nothing of the import is still holding advisory locks
        assert db.scalar(text("select count(*) from pg_locks where locktype = 'advisory'")) == 0
