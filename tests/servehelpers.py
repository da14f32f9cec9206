"""``xmd serve --demo`` run as a subprocess, for the integration and browser tests of its first start."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

DEADLINE_S = 900
"""A loaded two-core box fine-tunes slowly: waits are bounded generously, never tightly."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Serve:
    """One ``xmd serve --demo`` process; its terminal output is collected by a reader thread."""

    def __init__(self, data_dir: Path, port: int, n_train: int, model: Path | None = None) -> None:
        """``model``: the folder the demo fine-tunes (``--demo-model``; None: the bundled MiniLM)."""
        env = {**os.environ, "XMD_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1", "XMD_HEARTBEAT_S": "1"}
        env.pop("XMD_DATABASE_URL", None)
        self.base = f"http://127.0.0.1:{port}"
        self.lines: list[str] = []
        argv = [sys.executable, "-m", "xmd.cli", "serve", "--demo", "--port", str(port)]
        argv += ["--demo-examples", str(n_train)]
        if model is not None:
            argv += ["--demo-model", str(model)]
        self.proc = subprocess.Popen(
            argv,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def terminal(self) -> str:
        return "".join(self.lines)

    def url_line(self, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = re.search(r"xmd is running: open (\S+)", self.terminal)
            if m:
                return m.group(1)
            assert self.proc.poll() is None, self.terminal
            time.sleep(0.1)
        raise AssertionError(f"no URL within {timeout} s:\n{self.terminal}")

    def token(self) -> str:
        return re.search(r"#token=([^&\s]+)", self.url_line()).group(1)

    def get(self, path: str, **params: Any) -> Any:
        r = httpx.get(f"{self.base}{path}", params=params, headers={"Authorization": f"Bearer {self.token()}"})
        assert r.status_code == 200, r.text
        return r.json()

    def wait_health(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert self.proc.poll() is None, self.terminal
            time.sleep(0.2)
        raise AssertionError(f"/api/health did not answer in {timeout} s:\n{self.terminal}")

    def prep_jobs(self) -> list[dict[str, Any]]:
        return self.get("/api/jobs", kind="prepare_demo")["items"]

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


def until(check, what: str, serve: Serve, timeout: float = DEADLINE_S) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.3)
    raise AssertionError(f"{what}: not within {timeout} s\n{serve.terminal}")


def workers_of(data: Path) -> list[int]:
    """The pids of the embedded workers' main processes (group leaders) that serve ``data``."""
    pids = []
    found = subprocess.run(["pgrep", "-f", "celery -A workers.app"], capture_output=True, text=True).stdout.split()
    for pid in map(int, found):
        with contextlib.suppress(OSError):
            if f"XMD_DATA_DIR={data}".encode() in Path(f"/proc/{pid}/environ").read_bytes() and os.getpgid(pid) == pid:
                pids.append(pid)
    return pids


def kill_workers(data: Path) -> int:
    """SIGKILL every embedded worker of ``data`` (each is a process group: main and pool): a crash."""
    killed = 0
    for pid in workers_of(data):
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
            killed += 1
    return killed
