"""A rationale import stays bounded per request (issue 13, bounded work): its preview aligns a sample
of the dataset and says so, and committing it on a dataset above ``XMD_IMPORT_SYNC_ROWS`` rows starts
a job of kind ``import`` (202) whose body reports progress, can be cancelled and writes everything or
nothing. On SQLite and PostgreSQL (the api fixture's database parameter); the job body runs here in the
test process through the worker's own runner (``xmd.jobs.runner.execute``); the Celery task itself is
run by a real worker in tests/workers/test_import_job.py.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from typing import Any

import pytest
from apihelpers import Api
from sqlalchemy import func, select
from xmd.feedback import flows
from xmd.feedback.models import Feedback, FeedbackEvent
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import JobStatus
from xmd.jobs.runner import execute

N_ROWS = 120
SAMPLE = 50


def _csv(n: int) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "text", "label", "rationale"])
    for i in range(n):
        w.writerow([f"r{i}", f"the food number {i} was awful", ["negative", "positive"][i % 2], json.dumps([4])])
    return buf.getvalue().encode()


@pytest.fixture()
def big(api: Api, project: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A train set of N_ROWS rows with a rationale column; previews sample SAMPLE rows and imports of
    more than SAMPLE rows run as jobs (the limits scaled down so the test stays quick)."""
    monkeypatch.setattr(flows, "PREVIEW_ROWS", SAMPLE)
    app = api.client.app
    app.state.settings = dataclasses.replace(app.state.settings, import_sync_rows=SAMPLE)
    r = api.post(
        f"/api/projects/{project['id']}/datasets",
        files={"file": ("rated.csv", _csv(N_ROWS), "text/csv")},
        data={"name": "rated", "role": "train", "id_column": "id"},
    )
    assert r.status_code == 201, r.text
    return {**project, "rated": r.json()}


def _import(api: Api, p: dict[str, Any], **body: Any) -> Any:
    return api.post(
        f"/api/projects/{p['id']}/feedback/import", role="annotator", json={"dataset_id": p["rated"]["id"], **body}
    )


def _count(db, model, pid: int) -> int:  # type: ignore[no-untyped-def]
    db.expire_all()
    return db.scalar(select(func.count()).select_from(model).where(model.project_id == pid))


def _run(api: Api, db, job_id: str) -> Any:  # type: ignore[no-untyped-def]
    """Run the queued job's body as a worker does (running → finished, outcome on the row)."""
    assert jobs.mark_running(db_session=db, job_id=job_id, worker_host="test:1")
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    factory = api.client.app.state.session_factory
    execute(JobContext(job=job, db=db, settings=api.settings, factory=factory), flows.import_job)
    db.expire_all()
    return jobs.get_or_raise(db_session=db, job_id=job_id)


def test_a_preview_aligns_a_sample_and_says_so(api: Api, big, db) -> None:
    r = _import(api, big, rationales={"column": "rationale"}, preview=True)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["sample_rows"] == SAMPLE and out["dataset_rows"] == N_ROWS
    assert out["summary"]["n_rows"] == SAMPLE and out["entries"] == SAMPLE  # one "awful" per row
    assert _count(db, FeedbackEvent, big["id"]) == 0
    assert api.sent == []  # a preview starts nothing


def test_a_large_import_runs_as_a_job_with_progress(api: Api, big, db) -> None:
    r = _import(api, big, rationales={"column": "rationale"})
    assert r.status_code == 202, r.text
    out = r.json()
    assert out["job_id"] and out["imported"] == 0 and out["dataset_rows"] == N_ROWS
    assert [(job.kind, job.id) for job, _ in api.sent] == [("import", out["job_id"])]
    assert _count(db, FeedbackEvent, big["id"]) == 0  # nothing written inside the request
    job = api.get(f"/api/jobs/{out['job_id']}", role="viewer").json()
    assert job["kind"] == "import" and job["status"] == "queued"

    done = _run(api, db, out["job_id"])
    assert done.status is JobStatus.SUCCEEDED, done.error
    assert done.result["imported"] == N_ROWS and done.result["rows"] == N_ROWS
    assert done.result["source"] == "simulated:rationales:rationale"
    assert [p["name"] for p in done.phases] == ["align", "write"]
    assert done.phases[0]["done"] == done.phases[0]["total"] == 2 * N_ROWS and done.progress == 100.0
    assert _count(db, Feedback, big["id"]) == N_ROWS
    assert _count(db, FeedbackEvent, big["id"]) == N_ROWS


def test_a_cancelled_import_job_writes_nothing(api: Api, big, db) -> None:
    r = _import(api, big, rationales={"column": "rationale", "remove_others": True})
    assert r.status_code == 202, r.text
    job_id = r.json()["job_id"]
    assert jobs.mark_running(db_session=db, job_id=job_id, worker_host="test:1")
    assert api.post(f"/api/jobs/{job_id}/cancel", role="annotator").status_code in (200, 202)
    db.expire_all()
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    factory = api.client.app.state.session_factory
    execute(JobContext(job=job, db=db, settings=api.settings, factory=factory), flows.import_job)
    db.expire_all()
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    assert job.status is JobStatus.CANCELLED, job.error
    assert _count(db, FeedbackEvent, big["id"]) == 0 and _count(db, Feedback, big["id"]) == 0


def test_a_bad_column_is_refused_before_any_job_starts(api: Api, big, db) -> None:
    r = _import(api, big, rationales={"column": "no_such_column"})
    assert r.status_code == 422 and "no_such_column" in r.json()["detail"], r.text
    assert api.sent == [] and api.get(f"/api/projects/{big['id']}/jobs").json()["total"] == 0


def test_a_small_import_still_runs_in_the_request(api: Api, big, db) -> None:
    api.client.app.state.settings = dataclasses.replace(api.client.app.state.settings, import_sync_rows=N_ROWS)
    r = _import(api, big, rationales={"column": "rationale"})
    assert r.status_code == 200 and r.json()["imported"] == N_ROWS and r.json()["job_id"] is None, r.text
    assert api.sent == []
