"""A local worker stack: a migrated database, a broker and ``celery worker`` processes, jobs sent as the API sends them.

Used by the worker tests and by ``bench/worker_scaling``: everything is real (``workers.launch.start_worker``,
Redis or the embedded SQLite broker, SQLite or PostgreSQL); jobs are created and enqueued exactly as the API
does it (``jobs.service.create`` + ``xmd.jobs.queue.enqueue``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker
from xmd import job_kinds  # noqa: F401 - every job kind registers, as in the API process that submits jobs
from xmd.config import Settings
from xmd.db import make_engine, make_session_factory, upgrade
from xmd.jobs import secrets as job_secrets
from xmd.jobs import service as jobs
from xmd.jobs.models import Job, JobStatus
from xmd.jobs.queue import enqueue

REDIS_URL = os.environ.get("XMD_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
"""The broker of local stacks (a database number of its own, so a stack never reads another's queue)."""


@dataclass
class Stack:
    """Settings, database and worker processes of one local stack (a test module, a benchmark run)."""

    settings: Settings
    database_url: str
    factory: sessionmaker[Session]
    log_dir: Path
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @classmethod
    def create(cls, tmp: Path, *, database_url: str | None, broker_url: str | None, **extra: Any) -> Stack:
        run = uuid.uuid4().hex[:8]
        values: dict[str, Any] = {
            "data_dir": tmp / "data",
            "database_url": database_url,
            "broker_url": broker_url,
            "result_backend": broker_url,
            "device": "cpu",
            # Queue names unique to this run: tests share one Redis with other test runs.
            "default_queue": f"xmdtest-{run}",
            "retrain_queue": f"xmdtest-{run}-gpu",
            "heartbeat_s": 0.5,
            "stale_after_s": 4.0,
            "allow_local_model_paths": True,  # projects are made from the tiny model's folder
            **extra,
        }
        settings = Settings(**values)
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        url = database_url or f"sqlite:///{settings.data_dir / 'xmd.db'}"
        upgrade(url)
        engine = make_engine(url)
        log_dir = tmp / "logs"
        log_dir.mkdir(exist_ok=True)
        return cls(settings=settings, database_url=url, factory=make_session_factory(engine), log_dir=log_dir)

    # ------------------------------------------------------------------ workers

    def start_worker(self, name: str, *, queues: list[str] | None = None, env: dict[str, str] | None = None):
        """A ``celery worker`` process on this stack (concurrency 1, prefork), ready to consume."""
        return self.start_workers([name], queues=queues, env=env)[0]

    def start_workers(
        self, names: list[str], *, queues: list[str] | None = None, env: dict[str, str] | None = None
    ) -> list[subprocess.Popen[bytes]]:
        """Start one worker per name at once, then wait until every one consumes."""
        from workers.launch import start_worker, wait_ready

        started = []
        for name in names:
            ready = self.log_dir / f"{name}.ready"
            ready.unlink(missing_ok=True)
            with open(self.log_dir / f"{name}.log", "ab") as log:
                proc = start_worker(
                    self.settings,
                    queues=queues,
                    ready_file=ready,
                    stdout=log,
                    hostname=f"{name}-{uuid.uuid4().hex[:6]}@%h",
                    env={"XMD_DATABASE_URL": self.database_url, "HF_HUB_OFFLINE": "1", **(env or {})},
                )
            self.workers.append(proc)
            started.append((name, proc, ready))
        for name, proc, ready in started:
            try:
                wait_ready(proc, ready, timeout=90)
            except RuntimeError as exc:
                raise RuntimeError(f"{exc}\n{self.logs(name)}") from None
        return [proc for _, proc, _ in started]

    def logs(self, name: str) -> str:
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace")[-6000:] if path.exists() else ""

    def all_logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in self.log_dir.glob("*.log"))

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL the worker's whole process group (main process and pool children): a crash."""
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def stop_all(self, grace: float = 3.0) -> None:
        """SIGTERM every worker at once (warm shutdown), SIGKILL what is left after ``grace`` seconds."""
        live = [p for p in self.workers if p.poll() is None]
        for proc in live:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGTERM)  # the main process only: it stops its pool
        deadline = time.monotonic() + grace
        for proc in live:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        self.workers.clear()

    # ------------------------------------------------------------------ jobs

    def submit(self, kind: str, project_id: int, params: dict[str, Any], secrets: dict[str, str] | None = None) -> str:
        """Create the job row and send it, as the API does."""
        with self.factory() as db:
            job = jobs.create(db_session=db, kind=kind, project_id=project_id, params=params)
            enqueue(self.settings, job, secrets=job_secrets.seal(db, job.id, secrets))
            return job.id

    def job(self, job_id: str) -> Job:
        with self.factory() as db:
            return jobs.get_or_raise(db_session=db, job_id=job_id)

    def wait(self, job_id: str, until: Any, timeout: float = 90.0) -> Job:
        """Poll the job row until ``until(job)`` holds; AssertionError with the worker logs if not."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            job = self.job(job_id)
            if until(job):
                return job
            time.sleep(0.1)
        job = self.job(job_id)
        raise AssertionError(
            f"job {job_id} is {job.status.value} ({job.progress}%, error={job.error!r}) after {timeout} s\n"
            f"{self.all_logs()}"
        )

    def wait_finished(self, job_id: str, timeout: float = 90.0) -> Job:
        return self.wait(job_id, lambda j: j.status.finished, timeout)

    def wait_status(self, job_id: str, status: JobStatus, timeout: float = 90.0) -> Job:
        if status.finished:
            job = self.wait_finished(job_id, timeout)
        else:
            job = self.wait(job_id, lambda j: j.status is status, timeout)
        assert job.status is status, f"job is {job.status.value}, error={job.error!r}\n{self.all_logs()}"
        return job
