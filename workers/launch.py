"""Start a worker as a child process: for ``xmd serve`` / the demo (embedded broker, no servers) and
for tests. The worker gets its configuration through the same ``XMD_*`` variables it would read in
production (``Settings.to_env``), so there is one code path.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from xmd.config import Settings
from xmd.jobs.supervision import WorkerNotices

from workers.app import PARENT_PID_ENV, READY_FILE_ENV

log = logging.getLogger("xmd.workers")


def declare_queues(settings: Settings, queues: Sequence[str]) -> None:
    """Create the queues on the embedded (SQLite) broker before any worker starts: kombu's SQLAlchemy
    transport creates a queue's row on first use, and two workers starting at once race on it (one
    dies on the unique constraint). Redis needs no declaration."""
    url = settings.effective_broker_url
    if not url.startswith(("sqla+", "sqlalchemy+")):
        return
    from kombu import Connection
    from xmd.jobs.queue import celery_config

    options = celery_config(settings)["broker_transport_options"]
    with Connection(url, transport_options=options) as conn:
        channel = conn.default_channel
        for name in queues:
            channel.queue_declare(queue=name)


def worker_argv(
    settings: Settings,
    *,
    queues: Sequence[str] | None = None,
    concurrency: int = 1,
    pool: str = "prefork",
    loglevel: str = "info",
    hostname: str | None = None,
) -> list[str]:
    """``celery worker`` arguments: the default and retrain queues unless ``queues`` is given."""
    queues = list(queues or dict.fromkeys([settings.default_queue, settings.retrain_queue]))
    return [
        "-A",
        "workers.app",
        "worker",
        "-Q",
        ",".join(queues),
        "-c",
        str(concurrency),
        "-P",
        pool,
        "-l",
        loglevel,
        "-n",
        hostname or f"xmd-{uuid.uuid4().hex[:8]}@{socket.gethostname()}",
        # No broadcast chatter: the embedded broker has no fanout, and jobs are steered by the DB.
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]


def start_worker(
    settings: Settings | None = None,
    *,
    queues: Sequence[str] | None = None,
    concurrency: int = 1,
    pool: str = "prefork",
    loglevel: str = "info",
    env: dict[str, str] | None = None,
    ready_file: Path | None = None,
    stdout: IO[bytes] | int | None = None,
    hostname: str | None = None,
    die_with_parent: bool = False,
) -> subprocess.Popen[bytes]:
    """Start ``celery worker`` for ``settings`` in a new process group (so it can be stopped whole).

    ``ready_file`` is created by the worker once it consumes; see :func:`wait_ready`. ``die_with_parent``:
    the worker and its pool end when this process ends, however it ends (``xmd serve``'s workers).
    """
    settings = settings or Settings.from_env()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    declare_queues(settings, list(queues or dict.fromkeys([settings.default_queue, settings.retrain_queue])))
    child_env = {**os.environ, **settings.to_env(), **(env or {})}
    if ready_file is not None:
        child_env[READY_FILE_ENV] = str(ready_file)
    if die_with_parent:
        child_env[PARENT_PID_ENV] = str(os.getpid())
    argv = worker_argv(
        settings, queues=queues, concurrency=concurrency, pool=pool, loglevel=loglevel, hostname=hostname
    )
    return subprocess.Popen(
        [sys.executable, "-m", "celery", *argv],
        env=child_env,
        stdout=stdout,
        stderr=subprocess.STDOUT if stdout is not None else None,
        start_new_session=True,
    )


def wait_ready(proc: subprocess.Popen[bytes], ready_file: Path, timeout: float = 60.0) -> None:
    """Block until the worker consumes (its ready file exists); RuntimeError if it exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready_file.exists():
            return
        if proc.poll() is not None:
            raise RuntimeError(f"worker exited with status {proc.returncode} before it was ready")
        time.sleep(0.1)
    raise RuntimeError(f"worker not ready after {timeout:.0f} s")


def stop_worker(proc: subprocess.Popen[bytes], timeout: float = 20.0) -> int:
    """Warm shutdown (SIGTERM to the main process: finish the current task), then SIGKILL the whole
    process group if it is not down after ``timeout`` seconds."""
    import signal

    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)  # the main process only: it stops its pool
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    return proc.returncode


BACKOFF_S = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
"""Waits before restarting a worker that died, one step longer per death in a row."""
STEADY_S = 60.0
"""A worker up this long has recovered: its next death starts the back-off from the first step again."""


class Supervisor(threading.Thread):
    """Keeps one embedded worker per queue running (``xmd serve``): a worker that exits while the server
    runs is restarted after a back-off (:data:`BACKOFF_S`), and each death and restart is logged,
    reported through ``say`` (the terminal) and recorded in ``notices`` (the jobs lists show it). The
    jobs a dead worker was running are failed by the API's stale-job sweep, which sees their worker
    process is gone. :meth:`stop` stops the workers for good."""

    def __init__(
        self,
        start: Callable[[str], subprocess.Popen[bytes]],
        queues: Sequence[str],
        say: Callable[[str], None],
        notices: WorkerNotices | None = None,
    ) -> None:
        super().__init__(name="xmd-worker-supervisor", daemon=True)
        self._start, self._say, self.notices = start, say, notices
        self.procs = {q: start(q) for q in queues}
        self.restarts = dict.fromkeys(queues, 0)
        self._deaths = dict.fromkeys(queues, 0)
        self._since = dict.fromkeys(queues, time.monotonic())
        self._halt = threading.Event()
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    def run(self) -> None:
        due: dict[str, float] = {}
        while not self._halt.wait(0.5):
            with self._lock:
                for queue, proc in self.procs.items():
                    if proc.poll() is None:
                        if time.monotonic() - self._since[queue] >= STEADY_S:
                            self._deaths[queue] = 0
                        continue
                    if queue not in due:
                        wait = BACKOFF_S[min(self._deaths[queue], len(BACKOFF_S) - 1)]
                        self._deaths[queue] += 1
                        due[queue] = time.monotonic() + wait
                        if self.notices is not None:
                            self.notices.died(queue, proc.returncode, wait)
                        self._note(
                            f"the embedded worker for queue {queue!r} exited (status {proc.returncode}); "
                            f"restarting it in {wait:.0f} s"
                        )
                    elif time.monotonic() >= due[queue]:
                        del due[queue]
                        try:
                            self.procs[queue] = self._start(queue)
                        except Exception as exc:  # e.g. the broker file is locked: try again after the next wait
                            self._note(f"could not restart the worker for queue {queue!r}: {type(exc).__name__}")
                            continue
                        self.restarts[queue] += 1
                        self._since[queue] = time.monotonic()
                        if self.notices is not None:
                            self.notices.restarted(queue)
                        self._note(
                            f"the embedded worker for queue {queue!r} was restarted (pid {self.procs[queue].pid})"
                        )

        # Linux delivers a child's PR_SET_PDEATHSIG when the *thread* that started it ends: this thread
        # outlives the workers it restarted, so they get their warm shutdown from stop().
        self._stopped.wait()

    def _note(self, line: str) -> None:
        log.warning(line)
        self._say(line)

    def stop(self) -> None:
        """Stop supervising, then stop every worker (warm shutdown, then SIGKILL)."""
        self._halt.set()
        with self._lock:
            for proc in self.procs.values():
                with contextlib.suppress(Exception):
                    stop_worker(proc)
        self._stopped.set()
        if self.is_alive():
            self.join(timeout=5)
