"""The Celery app: ``celery -A workers.app worker -Q celery,gpu`` (or ``xmd worker``).

Broker, result backend and delivery guarantees come from :func:`xmd.jobs.queue.celery_config`, the
same function the API sends with, so both sides always agree. Each worker's main process also runs
the stale-job sweeper (a thread): a job whose heartbeat stopped, because the worker running it was
killed, is failed and the model version it was building is marked failed.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from celery import Celery, signals
from xmd.config import Settings
from xmd.jobs.queue import celery_config

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
log = logging.getLogger("xmd.workers")
READY_FILE_ENV = "XMD_WORKER_READY_FILE"
"""Set by :func:`workers.launch.start_worker`: the file a worker creates once it consumes messages."""


def make_app(settings: Settings | None = None) -> Celery:
    """A Celery app configured from ``settings`` (default: the environment)."""
    settings = settings or Settings.from_env()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
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


@signals.worker_init.connect
def _preload(**_: Any) -> None:
    """Import torch, transformers and the core once in the main process, before the pool forks: each
    pool child then starts its first job in milliseconds instead of seconds. (CUDA is initialised
    lazily in the child that uses it, never here, so forking stays safe on GPU machines.)"""
    import xmd.core.attribution
    import xmd.core.pipeline  # noqa: F401


@signals.worker_process_init.connect
def _quiet_libraries(**_: Any) -> None:
    """Worker logs are for jobs: no model-loading progress bars in them."""
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()


@signals.worker_shutdown.connect
def _on_shutdown(sender: Any = None, **_: Any) -> None:
    _STOP.set()
