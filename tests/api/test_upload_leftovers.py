"""Start-up removes what a killed upload left (issue 31: 48 MB stayed for the hour-old cleanup): a
temporary folder whose owner ran on this host and is gone goes at once, whatever its age; one whose
owner still runs, or ran elsewhere, or has no owner in its name, stays until it is an hour old."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from apihelpers import make_settings
from fastapi.testclient import TestClient
from xmd.app import create_app
from xmd.config import Settings
from xmd.db import upgrade
from xmd.db.engine import make_engine
from xmd.http import tempfiles
from xmd.http.tempfiles import owner_prefix


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _leftover(uploads: Path, name: str, age_s: float = 0.0) -> Path:
    path = uploads / name
    path.mkdir(parents=True)
    (path / "data.csv").write_bytes(b"x" * (1 << 20))
    if age_s:
        then = time.time() - age_s
        os.utime(path, (then, then))
    return path


def _start_app(tmp_path: Path, settings: Settings) -> None:
    """Start and stop the app once: its start-up is what cleans."""
    url = f"sqlite:///{tmp_path / 'xmd.db'}"
    upgrade(url)
    engine = make_engine(url)
    with TestClient(create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)):
        pass
    engine.dispose()


def test_start_up_removes_the_uploads_of_dead_processes(tmp_path: Path):
    settings = make_settings(tmp_path)
    host = socket.gethostname()
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as alive:
        try:
            uploads = settings.uploads_dir
            killed = _leftover(uploads, f"upload-{_dead_pid()}@{host}-abcd1234")
            archive = uploads / f"download-{_dead_pid()}@{host}-zz_9.tar.gz"
            archive.write_bytes(b"x")
            running = _leftover(uploads, f"upload-{alive.pid}@{host}-efgh5678")
            remote = _leftover(uploads, f"upload-{_dead_pid()}@another-host-ijkl9012")
            unnamed = _leftover(uploads, "upload-mnop3456")
            ancient = _leftover(uploads, f"upload-{alive.pid}@{host}-qrst7890", age_s=7200)
            _start_app(tmp_path, settings)
            assert not killed.exists() and not archive.exists() and not ancient.exists()
            assert running.exists() and remote.exists() and unnamed.exists()
        finally:
            alive.kill()


def test_start_up_removes_what_an_earlier_process_with_this_pid_left(tmp_path: Path):
    """In a container the API is PID 1 after every restart, under the same hostname: a name with this
    pid from before this process started is a leftover (it stayed for the hour before); one made since
    may be held by another app of this process and stays."""
    settings = make_settings(tmp_path)
    mine = f"upload-{os.getpid()}@{socket.gethostname()}"
    earlier = _leftover(settings.uploads_dir, f"{mine}-abcd1234", age_s=time.time() - tempfiles._LOADED_AT + 60)
    current = _leftover(settings.uploads_dir, f"{mine}-efgh5678")
    _start_app(tmp_path, settings)
    assert not earlier.exists() and current.exists()


def test_this_process_names_its_temporary_files():
    assert owner_prefix("upload") == f"upload-{os.getpid()}@{socket.gethostname()}-"
