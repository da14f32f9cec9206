"""``xmd serve``: the service in one command — migrate, make sure there is an admin, start an embedded
worker, serve the API and the web UI. ``--demo`` also prepares the demo project (a MiniLM classifier
fine-tuned on reviews where the director "spielberg" is a planted shortcut for *positive*), so a
newcomer lands in the UI with something to debug.

The UI answers at once: the demo's set-up (minutes of fine-tuning on a first start) runs as a
``prepare_demo`` job on the embedded worker, which the project list shows with its phase, steps and ETA,
and the terminal summarises in a line now and then. A server stopped half-way marks the job failed;
the next start resumes from what was finished (:func:`xmd.workspace.demo.start_demo`).

Two embedded workers run: one for retrains, one for everything else (explain, evaluate, push), so a
short job never waits behind a long retrain. They are supervised (one that dies is restarted with a
back-off, said on the terminal, in the log and on the jobs lists) and die with this process, SIGKILL included.

The admin token is printed once per start (a fresh token each time; only hashes are stored).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from xmd.config import Settings
from xmd.db.engine import database_url, make_engine, make_session_factory
from xmd.db.migrate import upgrade
from xmd.files import secure_data_dir
from xmd.jobs import flows as job_flows
from xmd.jobs import service as jobs
from xmd.jobs.models import Job, JobStatus
from xmd.jobs.queue import sender
from xmd.jobs.supervision import WorkerNotices
from xmd.workspace.demo import DEMO_PROJECT, prepare_demo, start_demo

__all__ = ["DEMO_PROJECT", "ensure_admin", "prepare_demo", "serve"]

log = logging.getLogger(__name__)
ADMIN = "admin"
RETRAIN_QUEUE_SUFFIX = "retrain"
DEMO_EXAMPLES = 2000
"""Training examples of the demo data (``--demo-examples``)."""
OTHER_JOBS = "explain, evaluate and push"
"""What the embedded worker that is not the retrain worker runs, as its notice on the jobs list says."""
REPORT_EVERY_S = 30.0
"""The terminal gets a line about the demo's preparation when its phase changes, else at most this often."""
STOPPED = (
    "the server was stopped before the demo project was ready; the next `xmd serve --demo` resumes "
    "from what was finished"
)


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
    demo_examples: int = DEMO_EXAMPLES,
    demo_model: Path | None = None,
) -> None:
    """Run until interrupted. ``demo_model``: a model folder the demo fine-tunes instead of MiniLM."""
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
    factory = make_session_factory(engine)
    with factory() as db:
        token = ensure_admin(db)

    supervisor = None
    worker_log = settings.data_dir / "logs" / "worker.log"
    if worker:
        from workers.launch import Supervisor, start_worker

        # The workers' banners, root warnings and per-task lines go to a file: the terminal keeps the URL,
        # progress and errors (job failures are shown in the UI, with the job's error). One worker per queue,
        # so short jobs never wait behind a retrain (or the demo's fine-tune). A worker that dies is
        # restarted with a back-off; the workers die with this process, however it ends.
        worker_log.parent.mkdir(parents=True, exist_ok=True)

        def start(queue: str) -> Any:
            with open(worker_log, "ab") as out:
                return start_worker(settings, queues=[queue], concurrency=1, stdout=out, die_with_parent=True)

        queues = list(dict.fromkeys([settings.default_queue, settings.retrain_queue]))
        notices = WorkerNotices({settings.retrain_queue: "retrain", settings.default_queue: OTHER_JOBS})
        supervisor = Supervisor(start, queues, say=lambda line: print(line, flush=True), notices=notices)
        supervisor.start()
    project_id = prep_id = None
    owned = False
    if demo:  # no waiting here: the set-up is a job the UI and the terminal follow
        workdir = demo_workdir or settings.data_dir / "demo"
        with factory() as db:
            project, prep = start_demo(
                db,
                settings,
                sender(settings),
                workdir,
                n_train=demo_examples,
                base_model=str(demo_model) if demo_model is not None else None,
            )
            project_id, prep_id = (project.id if project else None), (prep.id if prep else None)
            owned = prep is not None and prep.status is JobStatus.QUEUED  # not another server's running job
    url = f"http://{host}:{port}/"
    fragment = f"#token={token}" + (f"&project={project_id}" if project_id else "")
    print(
        f"\nxmd is running: open {url}{fragment}\nadmin token (shown once): {token}\nAPI docs: {url}docs\n"
        + (f"worker log: {worker_log}\n" if worker else ""),
        flush=True,
    )
    reporter = None
    if prep_id is not None:
        print(
            "preparing the demo project in the background (the first start fine-tunes MiniLM on the demo data);"
            " the UI shows its progress and lists the project once it is ready"
            + ("" if worker else "; it waits for a worker: run `xmd worker`"),
            flush=True,
        )
        reporter = DemoReporter(factory, prep_id)
        reporter.start()
    # No access log line per request (the UI polls every few seconds) unless asked: XMD_ACCESS_LOG=1.
    config = uvicorn.Config(
        create_app(settings, worker_notices=supervisor.notices if supervisor is not None else None),
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
        if reporter is not None:
            reporter.stop()
        if prep_id is not None and owned:  # stop the fine-tune at its next step, and say why on the job row
            with contextlib.suppress(Exception), factory() as db:
                job_flows.abandon(db, prep_id, error=STOPPED)
        engine.dispose()
        if supervisor is not None:
            supervisor.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def describe(job: Job) -> str:
    """One line about the demo's preparation for the terminal (the UI shows the same from the job row)."""
    if job.status is JobStatus.SUCCEEDED:
        name = (job.result or {}).get("project_name", DEMO_PROJECT)
        return f"the demo project is ready: {name!r} is in the project list (its training set is being explained)"
    if job.status.finished:
        return f"preparing the demo project {job.status.value}: {job.error or 'no reason given'}"
    if job.status is JobStatus.QUEUED:
        return "preparing the demo project: waiting for a worker"
    line = f"preparing the demo project: {job.phase or 'starting'}"
    if job.phase_total and job.phase_unit == "steps":
        line += f", step {job.phase_done or 0}/{job.phase_total}"
    if job.eta_s is not None and job.eta_s >= 1:
        line += f", about {_minutes(job.eta_s)} left"
    return line


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


class DemoReporter(threading.Thread):
    """Prints :func:`describe` of the preparation job when its phase changes (at most every
    :data:`REPORT_EVERY_S` seconds otherwise), and once more when it ends."""

    def __init__(self, factory: sessionmaker[Session], job_id: str, poll_s: float = 0.5) -> None:
        super().__init__(name="xmd-demo-reporter", daemon=True)
        self.factory, self.job_id, self.poll_s = factory, job_id, poll_s
        self._halt = threading.Event()

    def run(self) -> None:
        shown, phase, last = "", None, 0.0
        while not self._halt.is_set():
            try:
                with self.factory() as db:
                    job = jobs.get(db_session=db, job_id=self.job_id)
                    line = describe(job) if job is not None else "the demo preparation job is gone"
                    key, ended = (job.status, job.phase) if job else (None, None), job is None or job.status.finished
            except Exception:  # the database may be busy for a moment: try again at the next poll
                log.debug("demo reporter: could not read the job", exc_info=True)
            else:
                if line != shown and (key != phase or ended or time.monotonic() - last >= REPORT_EVERY_S):
                    print(line, flush=True)
                    shown, phase, last = line, key, time.monotonic()
                if ended:
                    return
            self._halt.wait(self.poll_s)

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=5)


def _server_class(uvicorn: Any) -> type:
    """``uvicorn.Server`` that leaves SIGTERM/SIGINT to :func:`serve` (no re-raise after shutdown)."""

    class Server(uvicorn.Server):  # type: ignore[misc,name-defined]
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return Server
