"""The jobs lists say when ``xmd serve``'s supervisor found an embedded worker dead and restarted it
(issue 31 §2): the ``workers`` notices of ``GET /api/jobs`` and ``GET /api/projects/{id}/jobs``. The real
supervisor and a killed worker: tests/integration/test_serve_signals.py."""

from __future__ import annotations

from datetime import timedelta

from apihelpers import Api
from xmd.db.base import utcnow
from xmd.jobs.supervision import SHOW_FOR_S, WorkerNotices


def test_no_supervisor_no_notice(api: Api):
    assert api.get("/api/jobs").json()["workers"] == []


def test_a_dead_then_restarted_worker_is_on_both_job_lists(api: Api, project):
    record = WorkerNotices({"q-retrain": "retrain", "q": "explain, evaluate and push"})
    api.client.app.state.worker_notices = record
    record.died("q-retrain", -9, 2.0)
    [notice] = api.get(f"/api/projects/{project['id']}/jobs").json()["workers"]
    assert notice["restarted_at"] is None and notice["exit_code"] == -9 and notice["restarts"] == 0
    assert notice["message"].startswith("the retrain worker died at ") and "restarting it in 2 s" in notice["message"]
    record.restarted("q-retrain")
    record.died("q", 1, 1.0)
    record.restarted("q")
    record.died("q-retrain", -9, 5.0)
    record.restarted("q-retrain")
    workers = api.get("/api/jobs").json()["workers"]
    assert [w["queue"] for w in workers] == ["q-retrain", "q"]  # the latest first
    assert workers[0]["restarts"] == 2 and workers[0]["restart_in_s"] == 5.0
    assert "after it died (exit -9); restart 2 since the server started" in workers[0]["message"]
    assert workers[1]["message"].startswith("the worker for explain, evaluate and push jobs was restarted at ")
    assert "(exit 1); restart 1" in workers[1]["message"]
    # a notice goes once its worker has run for SHOW_FOR_S without dying again
    later = utcnow() + timedelta(seconds=SHOW_FOR_S + 1)
    assert record.current(now=later) == []
