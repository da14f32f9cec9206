"""Celery tasks: one per registered job kind (:mod:`xmd.jobs.kinds`, filled by :mod:`xmd.job_kinds`),
each a thin wrapper that hands a job id to its kind's body through ``xmd.jobs.runner.run_job``, which
opens the session and records the outcome on the job row; a kind with a helper body also gets a task
that joins a running job of it (``xmd.explain_chunk``).

Message contract (``xmd.jobs.queue.enqueue``): task ``xmd.<kind>``, ``args=[job_id]``,
``kwargs={"secrets": {name: pad}}`` (pads only, see ``xmd.jobs.secrets``), ``task_id=job_id``. Everything
else is read from the job row.
"""

from __future__ import annotations

from typing import Any

from xmd import job_kinds
from xmd.jobs import kinds
from xmd.jobs.runner import join_job, run_job, sweep

from workers.app import app


def _task(kind: kinds.Kind) -> None:
    """Register the Celery task that runs ``kind`` (and the one that helps it, if it has a helper)."""

    def run(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
        return run_job(job_id, kind.body, secrets=secrets if kind.secrets else None)

    app.task(name=kinds.task_name(kind.name))(run)
    helper = kind.helper
    if helper is not None:

        def join(job_id: str) -> dict[str, Any] | None:
            return join_job(job_id, helper)

        app.task(name=kinds.helper_task_name(kind.name))(join)


for _name in job_kinds.KINDS:
    _task(kinds.get(_name))


@app.task(name="xmd.sweep")
def sweep_stale() -> dict[str, list]:
    """Fail jobs whose worker died (for a beat schedule; every worker also sweeps on its own)."""
    return sweep()
