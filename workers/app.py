"""The Celery app: ``celery -A workers.app worker -Q celery,gpu`` (or ``xmd worker``).

Broker, result backend and delivery guarantees come from :func:`xmd.jobs.queue.celery_config`, the
same function the API sends with, so both sides always agree. Each worker's main process also runs
the stale-job sweeper (a thread): a job whose heartbeat stopped, because the worker running it was
killed, is failed and the model version it was building is marked failed.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from celery import Celery, signals
from xmd.config import Settings
from xmd.files import secure_data_dir
from xmd.jobs.queue import celery_config

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
log = logging.getLogger("xmd.workers")
READY_FILE_ENV = "XMD_WORKER_READY_FILE"
"""Set by :func:`workers.launch.start_worker`: the file a worker creates once it consumes messages."""
PARENT_PID_ENV = "XMD_PARENT_PID"
"""Set by :func:`workers.launch.start_worker` for an embedded worker: the process it must not outlive."""
PARENT_POLL_S = 0.5


def make_app(settings: Settings | None = None) -> Celery:
    """A Celery app configured from ``settings`` (default: the environment)."""
    settings = settings or Settings.from_env()
    secure_data_dir(settings.data_dir)  # broker.db, results.db, models: owner only
    celery = Celery("xmd", include=["workers.tasks"])
    celery.conf.update(celery_config(settings))
    return celery


app = make_app()


def _sweep_forever(stop: threading.Event, interval: float) -> None:
    from xmd.db.errors import SchemaNotMigratedError
    from xmd.jobs.runner import sweep

    while True:
        try:
            sweep()
        except SchemaNotMigratedError as exc:
            log.warning("stale-job sweep skipped: %s", exc)
        except Exception:  # the database may be briefly unreachable; try again next round
            log.warning("stale-job sweep failed", exc_info=True)
        if stop.wait(interval):
            return


_STOP = threading.Event()


@signals.worker_ready.connect
def _on_ready(sender: Any = None, **_: Any) -> None:
    """Start the sweeper and tell whoever launched this worker that it is consuming."""
    settings = Settings.from_env()
    interval = max(1.0, min(60.0, settings.stale_after_s / 3))
    threading.Thread(target=_sweep_forever, args=(_STOP, interval), name="xmd-sweeper", daemon=True).start()
    ready = os.environ.get(READY_FILE_ENV)
    if ready:
        Path(ready).write_text(str(os.getpid()))


def _kill_on_parent_death() -> None:
    """Linux: the kernel sends SIGKILL to this process when its parent dies (``PR_SET_PDEATHSIG``)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG


def die_with_parent(parent: int, *, group: bool) -> None:
    """End this process (``group``: its whole process group, i.e. the worker and its pool) as soon as
    ``parent`` is no longer its parent: an embedded worker must not run on, or go on training, after
    ``xmd serve`` died, however it died (SIGKILL included). The kernel's death signal where there is one,
    and a thread that watches the parent pid everywhere (also catching a parent that died before)."""
    _kill_on_parent_death()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        log.warning("the parent process %d is gone: this worker stops", parent)
        if group:
            os.killpg(os.getpgrp(), signal.SIGKILL)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="xmd-parent-watch", daemon=True).start()


@signals.worker_init.connect
def _watch_parent(**_: Any) -> None:
    """An embedded worker (``XMD_PARENT_PID``) and its pool end when the process that started it ends."""
    parent = os.environ.get(PARENT_PID_ENV, "")
    if parent.isdigit():
        die_with_parent(int(parent), group=True)


@signals.worker_init.connect
def _preload(**_: Any) -> None:
    """Import torch, transformers and the core once in the main process, before the pool forks: each
    pool child then starts its first job in milliseconds instead of seconds. (CUDA is initialised
    lazily in the child that uses it, never here, so forking stays safe on GPU machines.)"""
    import xmd.core.attribution
    import xmd.core.pipeline  # noqa: F401


@signals.worker_process_init.connect
def _quiet_libraries(**_: Any) -> None:
    """Worker logs are for jobs: no model-loading progress bars in them. A pool process ends with the
    worker's main process (killed, it would otherwise go on running its job, orphaned)."""
    import transformers

    die_with_parent(os.getppid(), group=False)

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()


@signals.worker_shutdown.connect
def _on_shutdown(sender: Any = None, **_: Any) -> None:
    _STOP.set()
