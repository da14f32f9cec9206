"""Helpers for API tests: a client wrapper that sends a role's token, and demo data as upload bytes."""

from __future__ import annotations

import csv
import io
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from xmd.config import Settings
from xmd.core.demo import make_demo_dataset
from xmd.jobs.models import Job

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    db_url: str, data_dir: Path, log: Path, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """A real uvicorn process serving the app on ``db_url`` (for tests that need real concurrency);
    returns the process (stop it with ``os.killpg``) and its base URL once ``/api/health`` answers."""
    port = free_port()
    child_env = {**os.environ, "XMD_DATABASE_URL": db_url, "XMD_DATA_DIR": str(data_dir)}
    child_env.update({"XMD_ALLOW_LOCAL_MODEL_PATHS": "1", **(env or {})})
    child_env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "backend"), str(ROOT), child_env.get("PYTHONPATH", "")])
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--factory", "xmd.app:create_app", "--port", str(port)],
            cwd=ROOT,
            env=child_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        assert proc.poll() is None, log.read_text()[-3000:]
        try:
            if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        assert time.time() < deadline, "the server did not start"
        time.sleep(0.2)


@dataclass
class Api:
    client: TestClient
    tokens: dict[str, str]
    sent: list[tuple[Job, dict[str, str] | None]] = field(default_factory=list)
    settings: Settings | None = None

    def h(self, role: str = "admin") -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[role]}"}

    def get(self, url: str, role: str = "admin", **kw: Any) -> Any:
        return self.client.get(url, headers=self.h(role), **kw)

    def post(self, url: str, role: str = "admin", **kw: Any) -> Any:
        return self.client.post(url, headers=self.h(role), **kw)

    def put(self, url: str, role: str = "admin", **kw: Any) -> Any:
        return self.client.put(url, headers=self.h(role), **kw)

    def delete(self, url: str, role: str = "admin", **kw: Any) -> Any:
        return self.client.delete(url, headers=self.h(role), **kw)

    def patch(self, url: str, role: str = "admin", **kw: Any) -> Any:
        return self.client.patch(url, headers=self.h(role), **kw)


def make_settings(tmp_path: Path, **kw: Any) -> Settings:
    """Settings in ``tmp_path``; local model paths allowed (the tests' models are folders; the rule
    itself is tested in tests/api/test_model_paths.py)."""
    kw.setdefault("allow_local_model_paths", True)
    return Settings(data_dir=tmp_path / "data", **kw)


def demo_csv(n: int = 40, seed: int = 0, split: str = "train") -> bytes:
    """Demo shortcut data (labels as names) as CSV bytes."""
    examples = make_demo_dataset(n_train=n, n_clean=n, n_anti=n, seed=seed)[split]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "text", "label"])
    for ex in examples:
        w.writerow([ex.id, ex.text, ["negative", "positive"][ex.label]])
    return buf.getvalue().encode()


@contextmanager
def serve_in_thread(app: Any) -> Iterator[str]:
    """``app`` served by a real uvicorn on loopback from a thread of this process (real sockets, so a
    client can really disconnect; the test can add routes and share the app's engine); yields its URL."""
    import threading

    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        assert thread.is_alive() and time.time() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
