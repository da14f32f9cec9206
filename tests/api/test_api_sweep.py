"""The API sweeps stale jobs itself (issue 31): with no worker alive, a running job whose worker
process died is failed at the API's next sweep round, and one whose heartbeat is older than
``stale_after_s`` (its worker on another host) too; on SQLite and PostgreSQL. Before, only a live
worker swept, so the job stayed "running" until one came back."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from apihelpers import Api, make_settings
from sqlalchemy import update
from xmd.config import Settings
from xmd.db.base import utcnow
from xmd.jobs import service as jobs_service
from xmd.jobs.models import Job


@pytest.fixture()
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path, heartbeat_s=0.2, stale_after_s=2.0)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _status(api: Api, job_id: str) -> dict:
    return api.get(f"/api/jobs/{job_id}").json()


def test_the_api_fails_the_jobs_of_dead_workers(api: Api, project, db):
    ids = []
    for _ in range(2):
        r = api.post(f"/api/projects/{project['id']}/jobs/explain", json={"dataset_id": project["train"]["id"]})
        assert r.status_code == 202, r.text
        ids.append(r.json()["id"])
    dead, remote = ids
    assert jobs_service.mark_running(db_session=db, job_id=dead, worker_host=f"{socket.gethostname()}:{_dead_pid()}")
    assert jobs_service.mark_running(db_session=db, job_id=remote, worker_host="another-host:12")
    old = utcnow() - timedelta(seconds=10)
    db.execute(update(Job).where(Job.id == remote).values(heartbeat_at=old, started_at=old))
    db.commit()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_status(api, j)["status"] == "running" for j in ids):
        time.sleep(0.1)
    lost, stale = _status(api, dead), _status(api, remote)
    assert lost["status"] == "failed" and "was lost" in lost["error"], lost
    assert stale["status"] == "failed" and "heartbeat" in stale["error"], stale


def test_a_live_job_is_left_running(api: Api, project, db):
    r = api.post(f"/api/projects/{project['id']}/jobs/explain", json={"dataset_id": project["train"]["id"]})
    job_id = r.json()["id"]
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as alive:
        try:
            host = f"{socket.gethostname()}:{alive.pid}"
            assert jobs_service.mark_running(db_session=db, job_id=job_id, worker_host=host)
            time.sleep(1.0)  # five sweep rounds
            assert _status(api, job_id)["status"] == "running"
        finally:
            alive.kill()
