"""The forecast job (issue 30 §2) over the API: started by an annotator, validated, run by the worker's
runner in this process; its result says per eval set what erasing the marked words would change, beside
as many random words erased (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

from apihelpers import Api
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import JobStatus
from xmd.jobs.runner import execute
from xmd.retrain.forecast import forecast_job


def _run(api: Api, db: Any, job_id: str) -> Any:
    assert jobs.mark_running(db_session=db, job_id=job_id, worker_host="test:1")
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    factory = api.client.app.state.session_factory
    execute(JobContext(job=job, db=db, settings=api.settings, factory=factory), forecast_job)
    db.expire_all()
    return jobs.get_or_raise(db_session=db, job_id=job_id)


def test_forecast_job_is_validated_and_reports_each_eval_set(api: Api, project, db) -> None:
    pid = project["id"]
    url = f"/api/projects/{pid}/jobs/forecast"
    r = api.post(url, role="annotator", json={})
    assert r.status_code == 422 and "no feedback" in r.json()["detail"]
    r = api.put(f"/api/projects/{pid}/task-feedback", json={"word": "spielberg", "action": "remove"})
    assert r.status_code == 200
    for bad in ({"max_examples": 0}, {"max_examples": True}, {"max_examples": "9"}, {"lam": 1}):
        assert api.post(url, json=bad).status_code == 422, bad
    assert api.post(url, json={"eval_dataset_ids": [project["train"]["id"]]}).status_code == 422  # not an eval set
    assert api.post(url, role="viewer", json={}).status_code == 403
    assert not api.sent
    r = api.post(url, role="annotator", json={"max_examples": 30})
    assert r.status_code == 202, r.text
    job = r.json()
    assert job["kind"] == "forecast" and job["params"]["eval_dataset_ids"] == [project["clean"]["id"]]
    done = _run(api, db, job["id"])
    assert done.status is JobStatus.SUCCEEDED, done.error
    out = api.get(f"/api/jobs/{job['id']}", role="viewer").json()["result"]["forecast"]
    assert out["words"] == ["spielberg"] and out["version_id"] == project["base_version_id"]
    clean = out["sets"]["clean"]
    assert clean["n"] == 30 and clean["sampled_from"] == 40
    assert set(clean["fpr_words"]) == {"now", "erased", "random"} and clean["sentence"].startswith("clean:")
    assert clean["erased_vs_now"]["accuracy"]["ci_low"] <= clean["erased_vs_now"]["accuracy"]["diff"]
