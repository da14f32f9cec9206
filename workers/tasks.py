"""Celery tasks: thin wrappers that hand a job id to its body, a flow of the domain it changes
(``xmd.explanations.flows``, ``xmd.versions.flows``, ``xmd.versions.hub``), through
``xmd.jobs.runner.run_job``, which opens the session and records the outcome on the job row.

Message contract (``xmd.jobs.queue.enqueue``): task ``xmd.<kind>``, ``args=[job_id]``,
``kwargs={"secrets": {name: pad}}`` (pads only, see ``xmd.jobs.secrets``), ``task_id=job_id``. Everything
else is read from the job row.
"""

from __future__ import annotations

from typing import Any

from xmd.jobs.queue import HELPER_TASK
from xmd.jobs.runner import join_job, run_job, sweep

from workers.app import app


@app.task(name="xmd.explain")
def explain(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Explain every example of a dataset with a model version (chunks shared with helpers)."""
    from xmd.explanations.flows import explain_job

    return run_job(job_id, explain_job)


@app.task(name=HELPER_TASK)
def explain_chunk(job_id: str) -> dict[str, Any] | None:
    """Help a running explain job: claim and explain its chunks until none is left."""
    from xmd.explanations.flows import work

    return join_job(job_id, lambda ctx: work(ctx, lead=False))


@app.task(name="xmd.retrain")
def retrain(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Retrain a model version with the project's feedback into a new version."""
    from xmd.versions.flows import retrain_job

    return run_job(job_id, retrain_job)


@app.task(name="xmd.evaluate")
def evaluate(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Evaluate a model version on the project's eval sets."""
    from xmd.versions.flows import evaluate_job

    return run_job(job_id, evaluate_job)


@app.task(name="xmd.push")
def push(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Push a model version to the Hub; the token is unsealed once from the message's pad and the database."""
    from xmd.versions.hub import push_job

    return run_job(job_id, push_job, secrets=secrets)


@app.task(name="xmd.prepare_demo")
def prepare_demo(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Set up ``xmd serve --demo``'s project: demo data, MiniLM fine-tune, project, datasets, explain job."""
    from xmd.projects.flows import prepare_demo_job

    return run_job(job_id, prepare_demo_job)


@app.task(name="xmd.import")
def import_feedback(job_id: str, secrets: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Import feedback simulated from a large dataset's rationale column (too large for a request)."""
    from xmd.feedback.flows import import_job

    return run_job(job_id, import_job)


@app.task(name="xmd.sweep")
def sweep_stale() -> dict[str, list]:
    """Fail jobs whose worker died (for a beat schedule; every worker also sweeps on its own)."""
    return sweep()
