"""``xmd serve`` as a newcomer runs it: one process that migrates, prints a working admin token, starts
an embedded worker and serves the API (and the UI when it is built); and the demo project set-up."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_prints_a_working_token_and_serves_the_api(tmp_path: Path):
    port = _free_port()
    env = {**os.environ, "XMD_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1"}
    env.pop("XMD_DATABASE_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "xmd.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        token = None
        deadline = time.time() + 120
        lines = []
        while token is None and time.time() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
            lines.append(line)
            m = re.search(r"admin token \(shown once\): (xmd_\S+)", line)
            if m:
                token = m.group(1)
        assert token, "".join(lines)
        base = f"http://127.0.0.1:{port}"
        while time.time() < deadline:
            try:
                if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        me = httpx.get(f"{base}/api/me", headers={"Authorization": f"Bearer {token}"}).json()
        assert me == {"id": 1, "name": "admin", "role": "admin"}
        assert (tmp_path / "data" / "xmd.db").exists()
        ui = httpx.get(f"{base}/")
        dist = Path(__file__).resolve().parents[2] / "frontend" / "dist" / "index.html"
        if dist.exists():
            assert ui.status_code == 200 and "<div id=" in ui.text
        else:
            assert ui.status_code == 404
        log_file = tmp_path / "data" / "logs" / "worker.log"
        started = lambda: log_file.exists() and "ready" in log_file.read_text(errors="replace")  # noqa: E731
        while time.time() < deadline + 60 and not started():
            time.sleep(0.5)  # the worker has started (and had its chance to print its banner) before we look
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    # the terminal keeps what a person needs: no Celery banner or root warning, no access-log line per request
    terminal = "".join(lines) + proc.stdout.read()
    assert "xmd is running: open" in terminal
    assert "[tasks]" not in terminal and "celery@" not in terminal and "superuser" not in terminal
    assert "GET /api/health" not in terminal and '"GET /' not in terminal
    worker_log = (tmp_path / "data" / "logs" / "worker.log").read_text(errors="replace")
    assert "worker log:" in terminal and "ready" in worker_log  # the worker's output went to its log
    # no worker process is left behind
    out = subprocess.run(["pgrep", "-f", f"XMD_DATA_DIR={tmp_path}"], capture_output=True, text=True)
    assert out.stdout.strip() == ""


@pytest.mark.slow
def test_prepare_demo_builds_the_project_and_queues_its_explanation(tmp_path: Path):
    """The demo set-up with the real, bundled MiniLM (64 examples: 4 steps): the fast real-model check of
    the path ``xmd serve --demo`` takes (``prepare_baseline`` and ``install_demo``); the serve-demo tests
    fine-tune a small stand-in through ``--demo-model`` instead."""
    from xmd.config import Settings
    from xmd.db.engine import database_url, make_engine, make_session_factory
    from xmd.db.migrate import upgrade
    from xmd.jobs import service as jobs
    from xmd.serve import DEMO_PROJECT, prepare_demo

    settings = Settings(data_dir=tmp_path / "data")
    upgrade(database_url(None, data_dir_path=settings.data_dir))
    factory = make_session_factory(make_engine(None, data_dir_path=settings.data_dir))
    with factory() as db:
        pid, job_id = prepare_demo(db, settings, tmp_path / "work", n_train=64)
        job = jobs.get_or_raise(db_session=db, job_id=job_id)
        assert job.status.value == "queued" and job.params["method"] == "grad_x_input"
        from xmd.datasets import service as datasets

        names = {d.name: d.role.value for d in datasets.list_datasets(db_session=db, project_id=pid)}
        assert names == {"train": "train", "test_clean": "eval", "test_anti": "eval"}
        # a second start reuses the project
        assert prepare_demo(db, settings, tmp_path / "work", n_train=64) == (pid, None)
        from xmd.projects import service as projects

        assert projects.get_or_raise(db_session=db, project_id=pid).name == DEMO_PROJECT
