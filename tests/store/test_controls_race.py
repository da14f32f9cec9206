"""Two control jobs of one debugged version finishing at once (issue 30 §5): each marks its own run done in
the version's ``config["controls"]`` by read-modify-write. Under the version's row lock neither can drop the
other's run; the control (the lock taken away) shows the same pair losing one. SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from xmd.projects import service as projects
from xmd.retrain import followup
from xmd.versions import service as versions


def _version_with_two_runs(db) -> int:
    project = projects.create(db_session=db, name="p", labels=["neg", "pos"], model_source="hub/model")
    base = versions.create_base(db_session=db, project=project, path="/models/base")
    child = versions.create_child(db_session=db, parent=base, path="/models/p/v{version}")
    runs = [{"arm": arm, "seed": 0, "status": "running"} for arm in ("lambda0", "deletion")]
    followup._edit_controls(db, child.id, lambda c: c.update(controls={"runs": runs}))
    return child.id


def _finish_both_at_once(session_factory, version_id: int) -> list[str]:
    """Run 0 edits slowly while holding what it holds; run 1 starts its edit in the middle of that."""
    errors: list[BaseException] = []

    def mark(index: int, pause: float) -> None:
        def edit(config: dict[str, Any]) -> None:
            time.sleep(pause)  # the first writer is still between its read and its write
            config["controls"]["runs"][index]["status"] = "done"

        try:
            with session_factory() as db:
                followup._edit_controls(db, version_id, edit)
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    slow = threading.Thread(target=mark, args=(0, 0.8))
    slow.start()
    time.sleep(0.2)
    fast = threading.Thread(target=mark, args=(1, 0.0))
    fast.start()
    slow.join(20)
    fast.join(20)
    assert not errors, errors
    with session_factory() as db:
        mv = versions.get_or_raise(db_session=db, model_version_id=version_id)
        return [r["status"] for r in mv.config["controls"]["runs"]]


def test_two_controls_finishing_at_once_both_count(db, session_factory):
    version_id = _version_with_two_runs(db)
    assert _finish_both_at_once(session_factory, version_id) == ["done", "done"]


def test_without_the_row_lock_one_control_is_lost(db, session_factory, monkeypatch: pytest.MonkeyPatch):
    """The control: the same pair with the lock taken away loses a run (proof the test above can fail)."""
    version_id = _version_with_two_runs(db)
    monkeypatch.setattr(followup, "lock_row", lambda *a, **k: None)
    assert sorted(_finish_both_at_once(session_factory, version_id)) == ["done", "running"]
