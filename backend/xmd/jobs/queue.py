"""The one module through which the API reaches the broker: it sends a job's id, nothing else.

A worker reads everything it needs from the job row (the jobs table is the source of truth), so a
message carries no state that could disagree with the database. Secrets that must not be stored
(a Hugging Face token given per request) never travel here: the message carries only a random pad,
whose other half the worker reads once from the database (:mod:`xmd.jobs.secrets`); the pads are
also left out of the message's printable form (``kwargsrepr``), which Celery logs.

:func:`celery_config` is shared with the worker app (``workers.app``), so the sender and the workers
agree on the broker, its transport options and the queues without repeating them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from xmd.config import Settings
from xmd.core.types import XMDError
from xmd.jobs import kinds
from xmd.jobs.models import Job


class QueueUnavailableError(XMDError):
    """The broker refused a job or is down (the API answers 503; the job row is marked failed)."""


SQLITE_BUSY_TIMEOUT_S = 30
"""The embedded broker is one SQLite file shared by the API and every worker: wait for its lock."""


def celery_config(settings: Settings) -> dict[str, Any]:
    """Celery settings for sender and workers (broker, results, delivery guarantees)."""
    broker = settings.effective_broker_url
    transport: dict[str, Any] = {"visibility_timeout": settings.visibility_timeout_s}
    if broker.startswith(("sqla+sqlite", "sqlalchemy+sqlite")):
        transport = {"connect_args": {"timeout": SQLITE_BUSY_TIMEOUT_S}}
    return {
        "broker_url": broker,
        "result_backend": settings.effective_result_backend,
        "broker_transport_options": transport,
        "result_backend_transport_options": {"visibility_timeout": settings.visibility_timeout_s},
        "broker_connection_retry_on_startup": True,
        "task_default_queue": settings.default_queue,
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        # A message is acknowledged only after its task returned, and given back to the broker when
        # the process running it dies: a killed worker does not silently swallow its job.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "result_expires": 7 * 24 * 3600,
        "worker_hijack_root_logger": False,
    }


@functools.cache
def _client(settings: Settings) -> Any:
    from celery import Celery  # imported here: the API process only needs it to send

    app = Celery("xmd-api")
    app.conf.update(celery_config(settings))
    return app


def queue_for(settings: Settings, kind: str) -> str:
    """Kinds registered ``long`` (a retrain, the demo's fine-tune) can go to a separate (GPU) queue; everything
    else to the default queue."""
    return settings.retrain_queue if kinds.get(kind).long else settings.default_queue


def enqueue(settings: Settings, job: Job, *, secrets: dict[str, str] | None = None) -> None:
    """Send ``job`` to the workers; the row must already be committed (the worker looks it up)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    secrets = dict(secrets or {})
    _client(settings).send_task(
        kinds.task_name(kinds.check(job.kind)),
        args=[job.id],
        kwargs={"secrets": secrets},
        kwargsrepr=repr({"secrets": dict.fromkeys(secrets, "***")}),
        queue=queue_for(settings, job.kind),
        task_id=job.id,
    )


def send_helpers(settings: Settings, job: Job, n: int) -> None:
    """Ask ``n`` more workers to join a running job with its kind's helper body (explain chunks are shared
    through the job row)."""
    task = kinds.helper_task_name(job.kind)
    for k in range(max(0, n)):
        _client(settings).send_task(task, args=[job.id], queue=settings.default_queue, task_id=f"{job.id}-helper-{k}")


Enqueue = Callable[[Job, "dict[str, str] | None"], None]
"""How the API sends a job: :func:`sender` in production, a recorder in tests (``create_app(enqueue=…)``)."""


def sender(settings: Settings) -> Enqueue:
    """Send jobs with :func:`enqueue` for ``settings``."""

    def send(job: Job, secrets: dict[str, str] | None = None) -> None:
        enqueue(settings, job, secrets=secrets)

    return send
