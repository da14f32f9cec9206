"""Celery tasks: thin wrappers that hand a job id to its body (see ``workers.runtime.run_job``).

Message contract (``xmd.jobs.queue.enqueue``): task ``xmd.<kind>``, ``args=[job_id]``,
``kwargs={"secrets": {...}}``, ``task_id=job_id``. Everything else is read from the job row.
"""

from __future__ import annotations

from typing import Any

from workers.app import app
from workers.runtime import join_job, run_job, sweep


@app.task(name="xmd.explain")
def explain(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Explain every example of a dataset with a model version (chunks shared with helpers)."""
    from workers.explain import explain_job

    return run_job(job_id, explain_job)


@app.task(name="xmd.explain_chunk")
def explain_chunk(job_id: str) -> dict[str, Any] | None:
    """Help a running explain job: claim and explain its chunks until none is left."""
    from workers.explain import work

    return join_job(job_id, lambda ctx: work(ctx, lead=False))


@app.task(name="xmd.retrain")
def retrain(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Retrain a model version with the project's feedback into a new version."""
    from workers.retrain import retrain_job

    return run_job(job_id, retrain_job)


@app.task(name="xmd.evaluate")
def evaluate(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Evaluate a model version on the project's eval sets."""
    from workers.retrain import evaluate_job

    return run_job(job_id, evaluate_job)


@app.task(name="xmd.push")
def push(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Push a model version to the Hub; the token arrives in ``secrets`` and is never stored."""
    from workers.hub import push_job

    return run_job(job_id, push_job, secrets=secrets)


@app.task(name="xmd.sweep")
def sweep_stale() -> dict[str, list]:
    """Fail jobs whose worker died (for a beat schedule; every worker also sweeps on its own)."""
    return sweep()
