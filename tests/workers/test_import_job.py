"""A feedback import job (kind ``import``, issue 13: a large rationale import runs outside the request)
through a real Celery worker, on SQLite + the embedded broker and on PostgreSQL + Redis: it aligns the
dataset's rationale column with progress, writes every entry tagged with its source, and a cancel while
it aligns ends it with nothing written."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sqlalchemy import func, select
from workerstack import Stack
from xmd.core.types import Example
from xmd.datasets import service as datasets
from xmd.feedback.models import Feedback
from xmd.jobs import service as jobs
from xmd.jobs.models import JobStatus
from xmd.projects import service as projects


@pytest.fixture(scope="module")
def rated(stack: Stack, tiny_model_dir: Path) -> dict:
    if not any(w.poll() is None for w in stack.workers):
        stack.start_workers(["importer"])
    ids = stack.seed_project(tiny_model_dir, name="imports")
    with stack.factory() as db:
        project = projects.get_or_raise(db_session=db, project_id=ids["project_id"])
        rows = [
            Example(id=f"r{i}", text=f"the food number {i} was awful", label=i % 2, meta={"rationale": "[4]"})
            for i in range(6000)
        ]
        ds = datasets.add_dataset(db_session=db, project=project, name="rated", role="train", examples=rows)
        return {**ids, "rated_id": ds.id}


def _feedback(stack: Stack, project_id: int) -> int:
    with stack.factory() as db:
        return db.scalar(select(func.count()).select_from(Feedback).where(Feedback.project_id == project_id))


def test_an_import_job_aligns_and_writes_through_a_worker(stack: Stack, rated: dict) -> None:
    before = _feedback(stack, rated["project_id"])
    params = {"dataset_id": rated["rated_id"], "rationales": {"column": "rationale"}, "user_id": None}
    job = stack.wait_status(stack.submit("import", rated["project_id"], params), JobStatus.SUCCEEDED, 180)
    assert job.result["imported"] == 6000 and job.result["source"] == "simulated:rationales:rationale"
    assert [p["name"] for p in job.phases] == ["align", "write"] and job.progress == 100.0
    assert _feedback(stack, rated["project_id"]) == before + 6000


def test_an_import_job_cancelled_while_aligning_writes_nothing(stack: Stack, rated: dict) -> None:
    before = _feedback(stack, rated["project_id"])
    params = {
        "dataset_id": rated["rated_id"],
        "rationales": {"column": "rationale", "remove_others": True},
        "user_id": None,
    }
    job_id = stack.submit("import", rated["project_id"], params)
    stack.wait(job_id, lambda j: j.status is JobStatus.RUNNING or j.status.finished, 120)
    with stack.factory() as db:
        jobs.request_cancel(db_session=db, job_id=job_id)
    start = time.monotonic()
    job = stack.wait_finished(job_id, 60)
    assert job.status is JobStatus.CANCELLED, (job.status, job.error, job.result)
    assert time.monotonic() - start < 10
    assert _feedback(stack, rated["project_id"]) == before
