"""``xmd serve``: the service in one command — migrate, make sure there is an admin, start an embedded
worker, serve the API and the web UI. ``--demo`` also prepares the demo project (a MiniLM classifier
fine-tuned on reviews where the director "spielberg" is a planted shortcut for *positive*), so a
newcomer lands in the UI with something to debug.

Two embedded workers run: one for retrains, one for everything else (explain, evaluate, push), so a
short job never waits behind a long retrain.

The admin token is printed once per start (a fresh token each time; only hashes are stored).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from xmd.config import Settings
from xmd.db.engine import database_url, make_engine, make_session_factory
from xmd.db.migrate import upgrade
from xmd.files import secure_data_dir
from xmd.projects.flows import DEMO_PROJECT, prepare_demo

__all__ = ["DEMO_PROJECT", "ensure_admin", "prepare_demo", "serve"]

log = logging.getLogger(__name__)
ADMIN = "admin"
RETRAIN_QUEUE_SUFFIX = "retrain"


def ensure_admin(db: Session) -> str:
    """A new token for the local admin (created on first start)."""
    from xmd.users import service as users
    from xmd.users.models import Role

    user = users.get_by_name(db_session=db, name=ADMIN) or users.create_user(db_session=db, name=ADMIN, role=Role.ADMIN)
    return users.create_token(db_session=db, user=user, name="xmd serve")[1]


def serve(
    settings: Settings,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    demo: bool = False,
    worker: bool = True,
    demo_workdir: Path | None = None,
) -> None:
    """Run until interrupted."""
    import uvicorn

    from xmd.app import create_app

    if worker and settings.retrain_queue == settings.default_queue:
        # retrains get a queue and a worker of their own: a one-second explain, evaluate or push never
        # waits behind another project's long retrain (the API and both workers read these settings)
        settings = replace(settings, retrain_queue=f"{settings.default_queue}-{RETRAIN_QUEUE_SUFFIX}")
    if demo and not settings.allow_local_model_paths:
        # the demo is one person on their own machine: let them create projects from their model folders
        settings = replace(settings, allow_local_model_paths=True)
    secure_data_dir(settings.data_dir)
    upgrade(database_url(settings.database_url, data_dir_path=settings.data_dir))
    engine = make_engine(settings.database_url, data_dir_path=settings.data_dir)
    with make_session_factory(engine)() as db:
        token = ensure_admin(db)
        project_id = None
        if demo:
            print("preparing the demo project (first start fine-tunes MiniLM on the demo data: a few minutes)")
            project_id, _ = prepare_demo(db, settings, demo_workdir or settings.data_dir / "demo")
    engine.dispose()

    procs = []
    worker_log = settings.data_dir / "logs" / "worker.log"
    if worker:
        from workers.launch import start_worker

        # The workers' banners, root warnings and per-task lines go to a file: the terminal keeps the URL,
        # progress and errors (job failures are shown in the UI, with the job's error). One worker per queue,
        # so short jobs never wait behind a retrain.
        worker_log.parent.mkdir(parents=True, exist_ok=True)
        with open(worker_log, "ab") as log:
            for queue in dict.fromkeys([settings.default_queue, settings.retrain_queue]):
                procs.append(start_worker(settings, queues=[queue], concurrency=1, stdout=log))
    url = f"http://{host}:{port}/"
    fragment = f"#token={token}" + (f"&project={project_id}" if project_id else "")
    print(
        f"\nxmd is running: open {url}{fragment}\nadmin token (shown once): {token}\nAPI docs: {url}docs\n"
        + (f"worker log: {worker_log}\n" if worker else ""),
        flush=True,
    )
    # No access log line per request (the UI polls every few seconds) unless asked: XMD_ACCESS_LOG=1.
    config = uvicorn.Config(
        create_app(settings),
        host=host,
        port=port,
        log_level=os.environ.get("XMD_LOG_LEVEL", "warning"),
        access_log=os.environ.get("XMD_ACCESS_LOG") == "1",
    )
    server = _server_class(uvicorn)(config)
    # uvicorn re-raises SIGTERM/SIGINT once it has stopped, which killed this process before the
    # worker was stopped (an orphaned worker kept consuming). Here the signal only stops the server;
    # the worker is stopped below, and then the process exits normally.
    previous = {sig: signal.signal(sig, server.handle_exit) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.run()
    finally:
        from workers.launch import stop_worker

        for proc in procs:
            with contextlib.suppress(Exception):
                stop_worker(proc)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _server_class(uvicorn: Any) -> type:
    """``uvicorn.Server`` that leaves SIGTERM/SIGINT to :func:`serve` (no re-raise after shutdown)."""

    class Server(uvicorn.Server):  # type: ignore[misc,name-defined]
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return Server
