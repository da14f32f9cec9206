"""The composition root: the FastAPI application factory and the list of every domain's router.

Nothing imports this module but the entry points (``xmd serve``, ``uvicorn --factory
xmd.app:create_app``, tests); it is the one place that knows every domain.

The app refuses to start on a database that is not at the migration head, with the command that
fixes it, instead of failing on the first request. It serves the built web UI (``frontend/dist``) at
``/`` when it exists, so the demo is one process and one URL.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated

from fastapi import Depends, FastAPI, Request, Response
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from xmd import __version__, job_kinds  # noqa: F401 - every kind registers before any view is imported
from xmd.config import Settings
from xmd.core.cache import ModelCache
from xmd.datasets.views import router as datasets_router
from xmd.datasets.views import slice_router
from xmd.db.engine import make_engine, make_session_factory
from xmd.db.migrate import check_migrated
from xmd.explanations.views import examples_router
from xmd.explanations.views import job_router as explain_jobs_router
from xmd.explanations.views import router as explanations_router
from xmd.feedback.views import router as feedback_router
from xmd.files import secure_data_dir
from xmd.http import cancel, docs, errors, hubcheck, limits
from xmd.http.deps import Viewer, current_user
from xmd.http.health import HealthOut, HealthProbe
from xmd.http.inputs import InputGuard
from xmd.http.redact import redact_url_secrets
from xmd.http.slots import SessionSlots
from xmd.http.strict import refuse_bool_numbers
from xmd.http.tempfiles import clean_stale_uploads
from xmd.http.uploads import BodyLimit, max_bytes
from xmd.jobs import flows as job_flows
from xmd.jobs.queue import Enqueue, queue_for, sender
from xmd.jobs.supervision import WorkerNotices
from xmd.jobs.views import router as jobs_router
from xmd.jobs.watch import JobWatch
from xmd.projects.views import job_router as project_jobs_router
from xmd.retrain.views import compare_router
from xmd.retrain.views import router as retrain_router
from xmd.teamwork.views import router as team_router
from xmd.users.models import User
from xmd.users.views import router as users_router
from xmd.versions import service as versions_service
from xmd.versions.views import files_router as version_files_router
from xmd.versions.views import job_router as version_jobs_router
from xmd.versions.views import router as versions_router
from xmd.workspace.views import router as projects_router

ROUTERS = (
    users_router,
    projects_router,
    datasets_router,
    examples_router,
    slice_router,
    explanations_router,
    feedback_router,
    team_router,
    explain_jobs_router,
    retrain_router,
    version_jobs_router,
    project_jobs_router,
    jobs_router,
    versions_router,
    compare_router,
    version_files_router,
)
"""Each domain's routes; the job routes in the order the API has always listed them (starting each kind,
a project's jobs, then ``/jobs``)."""


class RedactTokens(logging.Filter):
    """Access logs print URLs; the event-stream route takes ``?token=`` (EventSource cannot send
    headers), so the secret is replaced before any handler sees the record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact_url_secrets(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = redact_url_secrets(record.msg)
        return True


def install_log_redaction() -> None:
    for name in ("uvicorn.access", "uvicorn.error", "uvicorn"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


def frontend_dist() -> Path | None:
    """The built UI: ``XMD_FRONTEND_DIST`` or ``frontend/dist`` next to the package's source tree."""
    env = os.environ.get("XMD_FRONTEND_DIST")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2] / "frontend" / "dist")
    return next((c for c in candidates if (c / "index.html").is_file()), None)


log = logging.getLogger(__name__)


class StaleSweep(threading.Thread):
    """The API runs the stale-job sweep too (:func:`xmd.jobs.flows.sweep`), every heartbeat: with every
    worker dead, no worker sweeps, and a dead worker's job would stay "running" until one came back. A
    job whose worker process is known dead is failed at the next round; one on another host once its
    heartbeat is ``stale_after_s`` old."""

    def __init__(self, factory: sessionmaker[Session], settings: Settings) -> None:
        super().__init__(name="xmd-api-sweep", daemon=True)
        self.factory, self.settings = factory, settings
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.wait(self.settings.heartbeat_s):
            try:
                with self.factory() as db:
                    swept = job_flows.sweep(db, stale_after_s=self.settings.stale_after_s)
                if any(swept.values()):
                    log.warning("stale-job sweep: failed jobs and cleaned up after them: %s", swept)
            except Exception as exc:  # the database may be busy or down for a moment: the next round retries
                log.warning("stale-job sweep failed: %s", type(exc).__name__)

    def stop(self) -> None:
        self.halt.set()
        self.join(timeout=10)


def create_app(
    settings: Settings | None = None,
    *,
    engine: Engine | None = None,
    enqueue: Enqueue | None = None,
    serve_ui: bool = True,
    worker_notices: WorkerNotices | None = None,
) -> FastAPI:
    """Build the app; ``engine`` lets tests share one database with their fixtures, ``enqueue`` lets
    them observe what would be sent to the workers; ``worker_notices``: what ``xmd serve``'s supervisor
    records about its embedded workers, shown on the jobs lists."""
    settings = settings or Settings.from_env()
    install_log_redaction()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        secure_data_dir(settings.data_dir)  # before the engine creates the SQLite file
        eng = engine or make_engine(settings.database_url, data_dir_path=settings.data_dir)
        check_migrated(eng)
        limits.bound_statements(eng, settings.statement_timeout_ms)
        cancel.watch(eng)  # a read whose client leaves stops its statement
        clean_stale_uploads(settings.uploads_dir)
        app.state.engine = eng
        app.state.session_factory = make_session_factory(eng)
        app.state.db_slots = SessionSlots.for_engine(eng)
        app.state.settings = settings
        app.state.models = ModelCache(size=2, device="cpu", locate=versions_service.locator(settings))
        app.state.enqueue = enqueue or sender(settings)
        app.state.health = HealthProbe(eng)
        app.state.health.start()
        app.state.job_watch = JobWatch(
            app.state.session_factory,
            per_user=settings.event_streams_per_user,
            queue_of=lambda kind: queue_for(settings, kind),
        )
        sweeper = StaleSweep(app.state.session_factory, settings)
        sweeper.start()
        yield
        sweeper.stop()
        app.state.health.close()
        if engine is None:
            eng.dispose()

    app = FastAPI(
        title="xmd",
        version=__version__,
        description="Explanation-based debugging of NLP classifiers with people in the loop.",
        lifespan=lifespan,
        dependencies=[Depends(refuse_bool_numbers)],  # booleans are not numbers, in every request body
        docs_url=None,  # served from local files below: the default page loads Swagger UI from a CDN
        redoc_url=None,
    )
    app.state.worker_notices = worker_notices
    app.add_middleware(InputGuard, max_bytes=lambda: max_bytes(settings) + (1 << 20))
    errors.install(app)  # added after the guard: its X-Request-ID reaches the guard's answers too
    docs.install(app)
    limits.install(app)

    app.add_middleware(BodyLimit, settings=settings)
    app.add_middleware(cancel.CancelOnDisconnect)  # outermost: it sees the client leave first

    @app.get("/api/health", tags=["meta"], response_model=HealthOut)
    async def health(request: Request) -> HealthOut:
        """Liveness, without authentication, within about half a second even when every worker thread and
        pooled connection is busy (``xmd.http.health``): ``degraded`` when the database is slow or down."""
        probe = request.app.state.health
        database = await probe.database()
        lag = probe.loop_lag()
        loop, threads = ("slow" if lag > probe.budget_s else "ok"), ("busy" if probe.threads_busy() else "ok")
        fine = database == "ok" and loop == "ok" and threads == "ok"
        return HealthOut(
            status="ok" if fine else "degraded",
            version=__version__,
            database=database,
            event_loop=loop,
            loop_lag_s=round(lag, 3),
            threads=threads,
        )

    @app.get("/api/health/hub", tags=["meta"])
    def hub_health(_: Viewer) -> dict[str, str]:
        """Whether the Hugging Face Hub can be reached (``reachable``, ``unreachable``, or ``offline``
        when HF_HUB_OFFLINE is set): projects from a Hub id and pushes need it. Cached for a minute.
        ``token``: whether this server has ``HF_TOKEN`` (``set`` / ``missing``), so the push form can say
        that a token must be entered; the token itself never leaves the server."""
        return {"hub": hubcheck.hub_state(settings.hf_endpoint), "token": hubcheck.server_token()}

    @app.get("/api/me", tags=["users"])
    def me(user: Annotated[User, Depends(current_user)]) -> dict[str, str | int]:
        """Who the token belongs to, and their role."""
        return {"id": user.id, "name": user.name, "role": user.role.value}

    for router in ROUTERS:
        app.include_router(router)

    dist = frontend_dist() if serve_ui else None
    if dist is not None:
        if (dist / "assets").is_dir():
            app.mount("/assets", StaticFiles(directory=dist / "assets"), name="assets")

        @app.get("/{path:path}", include_in_schema=False)
        def spa(path: str) -> Response:
            """Files of the built UI, and index.html for every client-side route."""
            if path.startswith("api/"):
                return JSONResponse({"detail": f"no API route /{path}"}, status_code=404)
            candidate = (dist / path).resolve()
            if path and candidate.is_file() and dist.resolve() in candidate.parents:
                return FileResponse(candidate)
            return FileResponse(dist / "index.html")

    return app
