"""What every task shares: a database session per process, the job life cycle, a heartbeat thread.

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
import socket
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker
from xmd.config import Settings
from xmd.core.training import TrainingCancelled
from xmd.core.types import XMDError
from xmd.db.base import utcnow
from xmd.db.engine import make_engine, make_session_factory
from xmd.db.migrate import check_migrated
from xmd.jobs import service as jobs
from xmd.jobs.models import Job, JobStatus
from xmd.models.models import ModelStatus, ModelVersion

log = logging.getLogger("xmd.workers")

_FACTORIES: dict[tuple[int, str | None, str], sessionmaker[Session]] = {}
_LOCK = threading.Lock()


class JobCancelled(XMDError):
    """Raised inside a task body when the user asked the job to stop."""


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


def worker_id() -> str:
    """``host:pid`` of this process, recorded on the job so a redelivery can tell if it is alive."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _process_alive(owner: str | None) -> bool | None:
    """True/False when ``owner`` ran on this host (checked by pid); None when it cannot be told here."""
    if not owner or ":" not in owner:
        return None
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return None
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a killed child stays a zombie until its parent reaps it: that is dead too
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (OSError, IndexError):
        return True


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


@dataclass
class JobContext:
    """What a task body gets: the job, its own session, settings, secrets and a progress reporter."""

    job: Job
    db: Session
    settings: Settings
    factory: sessionmaker[Session]
    secrets: dict[str, str] = field(default_factory=dict)
    heartbeat: Heartbeat | None = None

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.job.params or {})

    def progress(self, progress: float, **values: Any) -> bool:
        """Report progress (0–100, losses optional); returns True when the user asked to cancel."""
        return jobs.report_progress(db_session=self.db, job_id=self.job.id, progress=progress, **values)

    def check_cancel(self) -> None:
        """Raise :class:`JobCancelled` if cancellation was requested (between phases of a body)."""
        if jobs.is_cancel_requested(db_session=self.db, job_id=self.job.id):
            raise JobCancelled("cancelled on request")


Body = Callable[[JobContext], dict[str, Any] | None]
"""A task body: returns the job's result, or None when another participant finishes the job."""


def _lost_error(job: Job) -> str:
    return (
        f"the worker running this job ({job.worker_host or 'unknown'}) was lost (killed or crashed) before it "
        f"finished; the job was not retried. Nothing it started was kept: the model version it began from, the "
        f"feedback and any earlier results are unchanged. Start the job again to retry."
    )


def handle_redelivery(db: Session, cfg: Settings, job: Job) -> str:
    """A message for a job already running: fail it if its worker is gone, else drop the duplicate."""
    alive = _process_alive(job.worker_host)
    last = job.heartbeat_at or job.started_at or job.created_at
    stale = last is not None and utcnow() - last > timedelta(seconds=cfg.stale_after_s)
    if alive is False or (alive is None and stale):
        cleanup_failed_versions(db, job.id)
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
            log.info("job %s is %s; not run", job_id, job.status.value)  # e.g. cancelled while queued
            return None
        job = jobs.get_or_raise(db_session=db, job_id=job_id)
        with Heartbeat(factory, job_id, cfg.heartbeat_s) as hb:
            ctx = JobContext(job=job, db=db, settings=cfg, factory=factory, secrets=dict(secrets or {}), heartbeat=hb)
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
    except (TrainingCancelled, JobCancelled):
        db.rollback()
        cleanup_failed_versions(db, job_id)
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
        cleanup_failed_versions(db, job_id)
        jobs.fail(db_session=db, job_id=job_id, error=message[:4000] or type(exc).__name__)
        return None
    if result is None:
        return None
    if not jobs.finish(db_session=db, job_id=job_id, result=result):
        log.info("job %s finished its work but was no longer running (failed or cancelled meanwhile)", job_id)
    return result


# ------------------------------------------------------------------------------ cleanup


def partial_dirs(path: Path) -> list[Path]:
    """Hidden build folders the core's pipeline leaves next to ``path`` when its process dies."""
    if not path.parent.is_dir():
        return []
    return sorted(path.parent.glob(f".{path.name}.partial-*"))


def cleanup_failed_versions(db: Session, job_id: str | None = None) -> list[int]:
    """Mark model versions still ``training`` whose job is not running any more (or, with ``job_id``,
    that job's versions, whatever its state) as ``failed`` and delete their half-written build
    folders; returns their ids.

    A child version records the job that trains it in ``config["job_id"]``; only that job's worker
    sets it ready, and only while the job runs, so a training version of a finished job is debris.
    A worker that gives up on a job calls this with the job's id *before* it writes the job's final
    state, so whoever sees the job ended also sees its version failed.
    """
    rows = db.execute(
        select(ModelVersion.id, ModelVersion.path, ModelVersion.config).where(
            ModelVersion.status == ModelStatus.TRAINING
        )
    ).all()
    db.commit()
    failed: list[int] = []
    for mv_id, path, config in rows:
        owner = (config or {}).get("job_id")
        if not owner or (job_id is not None and owner != job_id):
            continue
        if job_id is None:
            status = db.scalar(select(Job.status).where(Job.id == owner))
            db.commit()
            if status in (JobStatus.RUNNING, JobStatus.QUEUED):
                continue
        res = db.execute(
            update(ModelVersion)
            .where(ModelVersion.id == mv_id, ModelVersion.status == ModelStatus.TRAINING)
            .values(status=ModelStatus.FAILED),
            execution_options={"synchronize_session": False},
        )
        db.commit()
        if res.rowcount:
            failed.append(mv_id)
            for partial in partial_dirs(Path(path)):
                _rmtree(partial)
    return failed


def _rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def sweep(cfg: Settings | None = None) -> dict[str, list]:
    """Fail running jobs whose heartbeat is older than ``stale_after_s`` (their worker died without a
    word) and clean up the model versions they left half-made."""
    cfg = cfg or settings()
    with session_factory(cfg)() as db:
        stale = jobs.mark_stale_as_failed(db_session=db, older_than=timedelta(seconds=cfg.stale_after_s))
        versions = cleanup_failed_versions(db)
    if stale or versions:
        log.warning("sweeper: failed stale jobs %s, failed half-made model versions %s", stale, versions)
    return {"jobs": stale, "versions": versions}


@contextmanager
def session(cfg: Settings | None = None) -> Iterator[Session]:
    """A session on the configured database (for helpers and tests)."""
    with session_factory(cfg or settings())() as db:
        yield db
