"""`/api/health`'s database check answers within its budget: ``slow`` when the database does not answer
in time, ``unavailable`` when it refuses, and the route then says ``degraded`` instead of hanging."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from apihelpers import make_settings
from fastapi.testclient import TestClient
from sqlalchemy import create_engine
from xmd.app import create_app
from xmd.db import upgrade
from xmd.db.engine import make_engine
from xmd.http.health import HealthProbe


def test_a_check_past_its_budget_is_slow_and_a_refused_one_unavailable(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'xmd.db'}"
    upgrade(url)
    probe = HealthProbe(make_engine(url), budget_s=0.3)
    try:
        assert asyncio.run(probe.database()) == "ok"
        release = threading.Event()
        probe._check = lambda: release.wait(10) and 0.0  # type: ignore[method-assign]  # a database that hangs
        start = time.perf_counter()
        assert asyncio.run(probe.database()) == "slow"
        assert asyncio.run(probe.database()) == "slow"  # the hung check is shared, not queued behind
        assert time.perf_counter() - start < 5.0  # half the hang: a loaded CI host needs the margin
        release.set()
    finally:
        probe.close()
    dead = HealthProbe(create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none"), budget_s=2.0)
    try:
        assert asyncio.run(dead.database()) == "unavailable"  # nothing listens on port 1
    finally:
        dead.close()


def test_the_route_says_degraded_when_the_database_is_slow(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'xmd.db'}"
    upgrade(url)
    engine = make_engine(url)
    app = create_app(make_settings(tmp_path), engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)
    with TestClient(app) as client:
        assert client.get("/api/health").json()["status"] == "ok"
        release = threading.Event()
        app.state.health._check = lambda: release.wait(10) and 0.0
        start = time.perf_counter()
        r = client.get("/api/health")
        release.set()
        assert r.status_code == 200 and r.json()["status"] == "degraded" and r.json()["database"] == "slow", r.json()
        assert time.perf_counter() - start < 5.0  # half the hang: a loaded CI host needs the margin
    engine.dispose()
