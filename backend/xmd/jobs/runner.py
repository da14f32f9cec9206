"""Running a job body as a job: a database session per process, the job life cycle, a heartbeat thread.
Celery-agnostic: ``workers.tasks`` hands it a job id and the body of the job's domain.

A task is a function of a job id. :func:`run_job` moves the row queued → running (a job cancelled
while queued never runs), keeps its heartbeat fresh from a background thread while the body works
(so the stale-job sweeper can tell a slow job from a dead worker), and ends it succeeded, cancelled
or failed with a message a person can act on. The body only loads, calls the core and writes.

A message for a job that is already running is a redelivery: Celery gives the message back when the
process running it died (``task_reject_on_worker_lost``), and Redis redelivers messages older than
the visibility timeout. If the job's worker is gone, the job is failed here at once (the retrain may
have been what killed it, so it is not run again behind the user's back); if it is still alive, the
duplicate is dropped.
"""

from __future__ import annotations

import logging
import os
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from xmd.config import Settings
from xmd.core.types import Cancelled, XMDError
from xmd.db.base import utcnow
from xmd.db.engine import make_engine, make_session_factory
from xmd.db.migrate import check_migrated
from xmd.jobs import flows as job_flows
from xmd.jobs import kinds
from xmd.jobs import secrets as job_secrets
from xmd.jobs import service as jobs
from xmd.jobs.context import Body, JobCancelled, JobContext, process_alive, worker_id
from xmd.jobs.models import Job, JobStatus

log = logging.getLogger("xmd.workers")

_FACTORIES: dict[tuple[int, str | None, str], sessionmaker[Session]] = {}
_LOCK = threading.Lock()


def settings() -> Settings:
    """Settings of this worker process (read from the environment each time: tests change it)."""
    return Settings.from_env()


def session_factory(cfg: Settings) -> sessionmaker[Session]:
    """One engine per process and database (a forked pool child must not reuse its parent's sockets);
    the schema is checked once, so an un-migrated database fails with the command that fixes it."""
    key = (os.getpid(), cfg.database_url, str(cfg.data_dir))
    with _LOCK:
        factory = _FACTORIES.get(key)
        if factory is None:
            engine = make_engine(cfg.database_url, data_dir_path=cfg.data_dir)
            check_migrated(engine)
            factory = _FACTORIES[key] = make_session_factory(engine)
    return factory


# ------------------------------------------------------------------------------ heartbeat


class Heartbeat:
    """Background thread that refreshes a running job's ``heartbeat_at`` every ``interval`` seconds
    and remembers whether cancellation was requested (read by long non-training phases)."""

    def __init__(self, factory: sessionmaker[Session], job_id: str, interval: float) -> None:
        self.factory, self.job_id, self.interval = factory, job_id, interval
        self.cancel_requested = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{job_id[:8]}", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                with self.factory() as db:
                    self.cancel_requested = jobs.heartbeat(db_session=db, job_id=self.job_id)
            except Exception:  # a missed beat is not fatal; the next one may get through
                log.warning("heartbeat of job %s failed", self.job_id, exc_info=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=max(5.0, self.interval * 2))


# ------------------------------------------------------------------------------ the job runner


def _lost_error(job: Job) -> str:
    return (
        f"the worker running this job ({job.worker_host or 'unknown'}) was lost (killed or crashed) before it "
        f"finished; the job was not retried. Nothing it started was kept: the model version it began from, the "
        f"feedback and any earlier results are unchanged. Start the job again to retry."
    )


def handle_redelivery(db: Session, cfg: Settings, job: Job) -> str:
    """A message for a job already running: fail it if its worker is gone, else drop the duplicate."""
    alive = process_alive(job.worker_host)
    last = job.heartbeat_at or job.started_at or job.created_at
    stale = last is not None and utcnow() - last > timedelta(seconds=cfg.stale_after_s)
    if alive is False or (alive is None and stale):
        kinds.clean_up(db, job.id)
        jobs.fail(db_session=db, job_id=job.id, error=_lost_error(job))
        log.warning("job %s: its worker %s was lost; marked failed", job.id, job.worker_host)
        return "failed"
    log.info("job %s: duplicate delivery while %s still runs it; ignored", job.id, job.worker_host)
    return "ignored"


def run_job(job_id: str, body: Body, *, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Drive one job from queued to finished around ``body``; returns its result (or None)."""
    cfg = settings()
    factory = session_factory(cfg)
    with factory() as db:
        job = jobs.get(db_session=db, job_id=job_id)
        if job is None:
            log.error("job %s: no such row; message dropped", job_id)
            return None
        if job.status is JobStatus.RUNNING:
            handle_redelivery(db, cfg, job)
            return None
        if not jobs.mark_running(db_session=db, job_id=job_id, worker_host=worker_id()):
            job_secrets.discard(db, job_id)
            log.info("job %s is %s; not run", job_id, job.status.value)  # e.g. cancelled while queued
            return None
        opened = job_secrets.unseal(db, job_id, secrets)  # read once: the stored half is gone now
        job = jobs.get_or_raise(db_session=db, job_id=job_id)
        with Heartbeat(factory, job_id, cfg.heartbeat_s) as hb:
            ctx = JobContext(job=job, db=db, settings=cfg, factory=factory, secrets=opened, heartbeat=hb)
            return execute(ctx, body)


def join_job(job_id: str, body: Body) -> dict[str, Any] | None:
    """Help with a job another worker started (explain chunks): only while it is running."""
    cfg = settings()
    factory = session_factory(cfg)
    with factory() as db:
        job = jobs.get(db_session=db, job_id=job_id)
        if job is None or job.status is not JobStatus.RUNNING:
            return None
        with Heartbeat(factory, job_id, cfg.heartbeat_s) as hb:
            return execute(JobContext(job=job, db=db, settings=cfg, factory=factory, heartbeat=hb), body)


def execute(ctx: JobContext, body: Body) -> dict[str, Any] | None:
    """Run ``body`` and record its outcome on the job row; errors never escape to Celery (the row
    is where people look, and a raised exception would store the traceback in the result backend)."""
    db, job_id = ctx.db, ctx.job.id
    secret_values = [v for v in ctx.secrets.values() if v]
    try:
        result = body(ctx)
    except (Cancelled, JobCancelled):  # Cancelled: a core loop stopped by the job's progress hook
        db.rollback()
        kinds.clean_up(db, job_id)
        jobs.mark_cancelled(db_session=db, job_id=job_id)
        log.info("job %s cancelled", job_id)
        return None
    except Exception as exc:
        db.rollback()
        message = str(exc) if isinstance(exc, XMDError) else f"{type(exc).__name__}: {exc}"
        for secret in secret_values:  # an error text must never carry the token it was given
            message = message.replace(secret, "***")
        if not isinstance(exc, XMDError):
            tb = "".join(traceback.format_exception(exc))
            for secret in secret_values:
                tb = tb.replace(secret, "***")
            log.error("job %s failed:\n%s", job_id, tb)
        kinds.clean_up(db, job_id)
        jobs.fail(db_session=db, job_id=job_id, error=message[:4000] or type(exc).__name__)
        return None
    if result is None:
        return None
    if not jobs.finish(db_session=db, job_id=job_id, result=result):
        log.info("job %s finished its work but was no longer running (failed or cancelled meanwhile)", job_id)
    return result


def sweep(cfg: Settings | None = None) -> dict[str, list]:
    """Fail running jobs whose heartbeat is older than ``stale_after_s`` (their worker died without a
    word) and clean up what they left half-made (:func:`xmd.jobs.flows.sweep`)."""
    cfg = cfg or settings()
    with session_factory(cfg)() as db:
        swept = job_flows.sweep(db, stale_after_s=cfg.stale_after_s)
    if any(swept.values()):
        log.warning("sweeper: failed stale jobs and cleaned up after them: %s", swept)
    return swept


@contextmanager
def session(cfg: Settings | None = None) -> Iterator[Session]:
    """A session on the configured database (for helpers and tests)."""
    with session_factory(cfg or settings())() as db:
        yield db
