"""The one module through which the API reaches the broker: it sends a job's id, nothing else.

A worker reads everything it needs from the job row (the jobs table is the source of truth), so a
message carries no state that could disagree with the database. Secrets that must not be stored
(a Hugging Face token given per request) travel in the message only.
"""

from __future__ import annotations

import functools
from typing import Any

from xmd.config import Settings
from xmd.jobs.models import Job, JobKind

TASK_NAMES: dict[JobKind, str] = {
    JobKind.EXPLAIN: "xmd.explain",
    JobKind.RETRAIN: "xmd.retrain",
    JobKind.EVALUATE: "xmd.evaluate",
    JobKind.PUSH: "xmd.push",
}


@functools.cache
def _client(broker_url: str, result_backend: str) -> Any:
    from celery import Celery  # imported here: the API process only needs it to send

    return Celery("xmd-api", broker=broker_url, backend=result_backend)


def queue_for(settings: Settings, kind: JobKind) -> str:
    """Retrains can go to a separate (GPU) queue; everything else to the default queue."""
    return settings.retrain_queue if kind is JobKind.RETRAIN else settings.default_queue


def enqueue(settings: Settings, job: Job, *, secrets: dict[str, str] | None = None) -> None:
    """Send ``job`` to the workers; the row must already be committed (the worker looks it up)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    client = _client(settings.effective_broker_url, settings.effective_result_backend)
    client.send_task(
        TASK_NAMES[job.kind],
        args=[job.id],
        kwargs={"secrets": dict(secrets or {})},
        queue=queue_for(settings, job.kind),
        task_id=job.id,
    )
