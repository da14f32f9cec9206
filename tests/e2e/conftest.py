"""End-to-end fixtures: the real API (uvicorn on a free loopback port) serving the built UI, a real
Celery worker on the embedded broker, a real SQLite database, the loopback Hub, and headless Debian
Chromium driven by Playwright.

Nothing is mocked: the browser talks HTTP to the API, the API enqueues, the worker trains the tiny BERT.
Screenshots of every screen go to ``test-output/e2e/`` (gitignored).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "frontend" / "dist"
CHROMIUM = os.environ.get("XMD_E2E_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).parent))

from e2ehelpers import HUB_TOKEN  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the API exited ({proc.returncode}) before answering:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the API did not answer {url} in {timeout:.0f} s:\n{log.read_text()[-4000:]}")


@dataclass
class Service:
    base_url: str
    token: str
    model_dir: Path
    data_dir: Path
    demo: dict[str, Path]
    hub: object
    logs: Path

    def log_tail(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in self.logs.glob("*.log"))


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make install-e2e` installs Debian's chromium")
    return CHROMIUM


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory, tiny_model_dir: Path) -> Iterator[Service]:
    """API + worker + database + loopback Hub, for the whole e2e session. The API finds the UI where
    `xmd serve` does (frontend/dist next to the package), so the demo path is the one tested."""
    if not (DIST / "index.html").is_file():
        pytest.fail(f"{DIST} has no built UI: run `make frontend` (npm ci && npm run build in frontend/)")
    from hubserver import HubServer
    from xmd.config import Settings
    from xmd.core.demo import write_demo_dataset
    from xmd.db import make_engine, make_session_factory, upgrade
    from xmd.users import service as users

    from workers.launch import start_worker, stop_worker, wait_ready

    tmp = tmp_path_factory.mktemp("e2e")
    logs = tmp / "logs"
    logs.mkdir()
    hub = HubServer(tokens={HUB_TOKEN: "tester"})
    hub.start()
    settings = Settings(
        data_dir=tmp / "data",
        device="cpu",
        hf_endpoint=hub.url,
        heartbeat_s=0.5,
        stale_after_s=30.0,
        allow_local_model_paths=True,  # the story creates its project from the tiny model's folder
    )
    settings.data_dir.mkdir(parents=True)
    db_url = f"sqlite:///{settings.data_dir / 'xmd.db'}"
    upgrade(db_url)
    engine = make_engine(db_url)
    with make_session_factory(engine)() as db:
        admin = users.create_user(db_session=db, name="e2e-admin", role="admin")
        token = users.create_token(db_session=db, user=admin)[1]
    engine.dispose()

    env = {
        **os.environ,
        **settings.to_env(),
        "XMD_DATABASE_URL": db_url,
        "HF_ENDPOINT": hub.url,
        # the worker pushes to the loopback Hub; models themselves are always local paths
        "HF_HUB_OFFLINE": "0",
        "TOKENIZERS_PARALLELISM": "false",
    }
    worker_log = open(logs / "worker.log", "ab")  # noqa: SIM115 - closed right after the start
    ready = tmp / "worker.ready"
    worker = start_worker(settings, env=env, ready_file=ready, stdout=worker_log, hostname="e2e@%h")
    worker_log.close()
    port = _free_port()
    api_log = open(logs / "api.log", "ab")  # noqa: SIM115
    api = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "xmd.app:create_app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=api_log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    api_log.close()
    try:
        wait_ready(worker, ready, timeout=120)
        base = f"http://127.0.0.1:{port}"
        _wait_http(f"{base}/api/health", api, logs / "api.log")
        demo = write_demo_dataset(tmp / "demo", n_train=120, n_clean=30, n_anti=30)
        yield Service(base, token, tiny_model_dir, settings.data_dir, demo, hub, logs)
    finally:
        api.terminate()
        try:
            api.wait(15)
        except subprocess.TimeoutExpired:
            api.kill()
        stop_worker(worker, timeout=20)
        hub.stop()


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[object]:
    """One Chromium per story module. Not per session: sync Playwright keeps an event loop running in the
    main thread while it is open, and a later test's ``asyncio.run`` in the same process then fails."""
    from playwright.sync_api import expect, sync_playwright

    # Two CPU cores shared with other work: loading a model can take seconds, not milliseconds.
    expect.set_options(timeout=30_000)

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def page(browser, service: Service) -> Iterator[object]:
    """One tab for a whole story module (the steps build on each other, as a person's session does)."""
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    context.set_default_timeout(30_000)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors  # type: ignore[attr-defined]
    try:
        yield pg
    finally:
        context.close()
