"""``xmd serve``: the service in one command — migrate, make sure there is an admin, start an embedded
worker, serve the API and the web UI. ``--demo`` also prepares the demo project (a MiniLM classifier
fine-tuned on reviews where the director "spielberg" is a planted shortcut for *positive*), so a
newcomer lands in the UI with something to debug.

The admin token is printed once per start (a fresh token each time; only hashes are stored).
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

from sqlalchemy.orm import Session

from xmd.config import Settings
from xmd.db.engine import database_url, make_engine, make_session_factory
from xmd.db.migrate import upgrade
from xmd.projects.flows import DEMO_PROJECT, prepare_demo

__all__ = ["DEMO_PROJECT", "ensure_admin", "prepare_demo", "serve"]

log = logging.getLogger(__name__)
ADMIN = "admin"


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

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(database_url(settings.database_url, data_dir_path=settings.data_dir))
    engine = make_engine(settings.database_url, data_dir_path=settings.data_dir)
    with make_session_factory(engine)() as db:
        token = ensure_admin(db)
        project_id = None
        if demo:
            print("preparing the demo project (first start fine-tunes MiniLM on the demo data: a few minutes)")
            project_id, _ = prepare_demo(db, settings, demo_workdir or settings.data_dir / "demo")
    engine.dispose()

    proc = None
    if worker:
        from workers.launch import start_worker

        proc = start_worker(settings, concurrency=1)
    url = f"http://{host}:{port}/"
    fragment = f"#token={token}" + (f"&project={project_id}" if project_id else "")
    print(
        f"\nxmd is running: open {url}{fragment}\nadmin token (shown once): {token}\nAPI docs: {url}docs\n", flush=True
    )
    try:
        uvicorn.run(create_app(settings), host=host, port=port, log_level=os.environ.get("XMD_LOG_LEVEL", "info"))
    finally:
        if proc is not None:
            from workers.launch import stop_worker

            with contextlib.suppress(Exception):
                stop_worker(proc)
