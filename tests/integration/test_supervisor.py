"""``workers.launch.Supervisor`` (what ``xmd serve`` keeps its embedded workers with), on stand-in
processes: a worker that exits is restarted after the first back-off step and said so; one that keeps
dying waits longer each time; ``stop`` ends them all and restarts nothing more."""

from __future__ import annotations

import importlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def test_a_dead_worker_is_restarted_with_a_growing_back_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XMD_DATA_DIR", str(tmp_path / "data"))
    launch = importlib.import_module("workers.launch")
    monkeypatch.setattr(launch, "BACKOFF_S", (0.2, 1.0, 3.0))
    started: list[subprocess.Popen[bytes]] = []
    lines: list[str] = []

    def start(_queue: str) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        started.append(proc)
        return proc

    sup = launch.Supervisor(start, ["default", "retrain"], say=lines.append)
    sup.start()
    try:
        first = sup.procs["retrain"]
        first.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 10
        while sup.procs["retrain"] is first and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sup.procs["retrain"] is not first and sup.procs["retrain"].poll() is None
        assert sup.restarts == {"default": 0, "retrain": 1}
        assert any("exited" in line and "restarting it in 0 s" in line for line in lines), lines
        assert any("was restarted" in line for line in lines), lines
        second = sup.procs["retrain"]
        second.send_signal(signal.SIGKILL)  # dies again at once: the next wait is the second step
        t = time.monotonic()
        while sup.procs["retrain"] is second and time.monotonic() - t < 10:
            time.sleep(0.05)
        assert time.monotonic() - t >= 0.9, "the second restart did not wait longer"
        assert sup.restarts["retrain"] == 2
    finally:
        sup.stop()
    assert all(p.poll() is not None for p in started), "stop() left a worker running"
    n = len(started)
    time.sleep(1.0)
    assert len(started) == n, "a worker was started after stop()"
