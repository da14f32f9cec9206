"""Jobs and model versions through the API (SQLite and PostgreSQL).

The enqueue step is recorded here (``api.sent``); the worker side is simulated with the jobs service
— exactly the calls a worker makes — so status, metrics and the event stream can be checked without
Celery. Real workers run in tests/workers.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from apihelpers import Api
from fastapi.testclient import TestClient
from sqlalchemy import func, select, text
from xmd.app import create_app
from xmd.jobs import secrets as job_secrets
from xmd.jobs import service as jobs_service
from xmd.jobs.models import Job
from xmd.versions import service as models_service


def _feedback(api: Api, project) -> None:
    r = api.put(f"/api/projects/{project['id']}/task-feedback", json={"word": "spielberg", "action": "remove"})
    assert r.status_code == 200


def test_retrain_is_queued_with_defaults_and_validated(api: Api, project, db):
    pid = project["id"]
    url = f"/api/projects/{pid}/jobs/retrain"
    r = api.post(url, role="annotator", json={})
    assert r.status_code == 422 and "no feedback" in r.json()["detail"]
    _feedback(api, project)
    wrong_role = {"eval_dataset_ids": [project["train"]["id"]]}
    for bad in ({"objective": "l7"}, {"loss": "mae"}, {"lam": -1}, {"epochs": 0}, wrong_role, {"lr": "x"}):
        assert api.post(url, json=bad).status_code == 422, bad
    assert api.post(url, json={"eval_dataset_ids": [987654]}).status_code == 404
    assert api.post(url, role="viewer", json={}).status_code == 403
    assert not api.sent
    r = api.post(url, role="annotator", json={"objective": "erasure", "lam": 2.5, "epochs": 1})
    assert r.status_code == 202, r.text
    job = r.json()
    assert job["status"] == "queued" and job["kind"] == "retrain"
    assert job["params"]["version_id"] == project["base_version_id"]
    assert job["params"]["train_dataset_ids"] == [project["train"]["id"]]
    assert job["params"]["eval_dataset_ids"] == [project["clean"]["id"]]
    assert job["params"]["objective"] == "erasure" and job["params"]["lam"] == 2.5
    assert [j.id for j, _ in api.sent] == [job["id"]]
    assert [j["id"] for j in api.get(f"/api/projects/{pid}/jobs", role="viewer").json()["items"]] == [job["id"]]


def test_explain_evaluate_and_push_jobs(api: Api, project, db):
    pid, vid = project["id"], project["base_version_id"]
    r = api.post(f"/api/projects/{pid}/jobs/explain", role="annotator", json={"method": "saliency"})
    assert r.status_code == 202 and r.json()["params"] == {
        "version_id": vid,
        "dataset_id": project["train"]["id"],
        "method": "saliency",
        "chunk_size": 256,
    }
    r = api.post(f"/api/projects/{pid}/jobs/evaluate", json={"version_id": vid})
    assert r.status_code == 202 and r.json()["params"]["dataset_ids"] == [project["clean"]["id"]]
    secret = "hf_" + "s3cr3t" * 5
    r = api.post(f"/api/projects/{pid}/jobs/push", role="annotator", json={"version_id": vid, "repo_id": "me/m"})
    assert r.status_code == 403
    bad = api.post(f"/api/projects/{pid}/jobs/push", json={"version_id": vid, "repo_id": "../evil"})
    assert bad.status_code == 422
    r = api.post(f"/api/projects/{pid}/jobs/push", json={"version_id": vid, "repo_id": "me/m", "token": secret})
    assert r.status_code == 202
    assert secret not in r.text
    job, pads = api.sent[-1]
    # the message carries a pad only; the sealed half waits in job_secrets for the worker, once
    assert pads is not None and set(pads) == {"hf_token"} and secret not in json.dumps(pads)
    assert job_secrets.unseal(db, job.id, pads) == {"hf_token": secret}
    assert job_secrets.unseal(db, job.id, pads) == {}
    # the token is nowhere in the database
    db.expire_all()
    dumped = json.dumps([j.params for j in db.scalars(select(Job))]) + json.dumps(
        [j.result for j in db.scalars(select(Job))]
    )
    assert secret not in dumped


def test_broker_failure_marks_the_job_failed_and_answers_503(engine, db, settings, project, api: Api):
    def broken(job, secrets=None):
        raise ConnectionError("broker down")

    app = create_app(settings, engine=engine, enqueue=broken, serve_ui=False)
    with TestClient(app) as client:
        r = client.post(
            f"/api/projects/{project['id']}/jobs/evaluate",
            headers=api.h(),
            json={"version_id": project["base_version_id"]},
        )
    assert r.status_code == 503 and "marked failed" in r.json()["detail"]
    (job,) = api.get(f"/api/projects/{project['id']}/jobs").json()["items"]
    assert job["status"] == "failed" and "broker down" in job["error"]


def test_status_metrics_cancel_and_event_stream(api: Api, project, db, session_factory):
    _feedback(api, project)
    job = api.post(f"/api/projects/{project['id']}/jobs/retrain", json={}).json()
    jid = job["id"]

    def worker() -> None:  # what a worker does, through the same service calls
        with session_factory() as s:
            time.sleep(0.3)
            jobs_service.mark_running(db_session=s, job_id=jid, worker_host="test-host")
            for step in range(1, 4):
                time.sleep(0.2)
                losses = {"task_loss": 1.0 / step, "er_loss": 0.5}
                jobs_service.report_progress(
                    db_session=s, job_id=jid, progress=step * 25, step=step, total_steps=4, **losses
                )
            jobs_service.finish(db_session=s, job_id=jid, result={"version_id": None})

    t = threading.Thread(target=worker)
    t.start()
    events: list[tuple[str, dict]] = []
    with api.client.stream("GET", f"/api/jobs/{jid}/events", params={"token": api.tokens["viewer"]}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        name = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                events.append((name, json.loads(line[6:])))
                if name == "end":
                    break
    t.join()
    kinds = [n for n, _ in events]
    assert kinds[-1] == "end" and events[-1][1]["status"] == "succeeded"
    assert kinds.count("metric") == 3
    progress = [d["progress"] for n, d in events if n == "job"]
    assert progress == sorted(progress) and progress[-1] == 100.0 and len(progress) >= 3
    metrics = api.get(f"/api/jobs/{jid}/metrics", role="viewer").json()["items"]
    assert [m["task_loss"] for m in metrics] == pytest.approx([1.0, 0.5, 1 / 3])
    assert api.get(f"/api/jobs/{jid}/metrics", params={"after": metrics[1]["id"]}).json()["items"][0]["step"] == 3
    got = api.get(f"/api/jobs/{jid}").json()
    assert got["status"] == "succeeded" and got["worker_host"] == "test-host" and got["finished_at"]
    assert api.post(f"/api/jobs/{jid}/cancel", role="annotator").status_code == 409
    assert api.client.get(f"/api/jobs/{jid}/events").status_code == 401
    assert api.get("/api/jobs/not-a-job/events").status_code == 404

    queued = api.post(f"/api/projects/{project['id']}/jobs/retrain", json={}).json()
    assert api.post(f"/api/jobs/{queued['id']}/cancel", role="viewer").status_code == 403
    r = api.post(f"/api/jobs/{queued['id']}/cancel", role="annotator")
    assert r.status_code == 200 and r.json()["status"] == "cancelled"
    assert api.get("/api/jobs/nope").status_code == 404


def test_versions_lineage_and_compare(api: Api, project, db, tiny_model_dir):
    pid, base_id = project["id"], project["base_version_id"]
    base = models_service.get_or_raise(db_session=db, model_version_id=base_id)
    models_service.merge_metrics(db_session=db, model_version=base, metrics={"clean": {"accuracy": 0.5}})
    # a debugged child as a retrain leaves it (pointing at a copy of the same weights)
    child = models_service.create_child(
        db_session=db, parent=base, path=base.path + "-child", status="ready", metrics={"clean": {"accuracy": 0.75}}
    )
    import shutil

    shutil.copytree(base.path, child.path)
    versions = api.get(f"/api/projects/{pid}/versions", role="viewer").json()["items"]
    lineage = [(v["version"], v["kind"], v["parent_id"]) for v in versions]
    assert lineage == [(1, "base", None), (2, "debugged", base_id)]
    ex = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": 1}).json()["items"][0]
    r = api.get(f"/api/projects/{pid}/compare", params={"a": base_id, "b": child.id, "example_id": ex["id"]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["metrics"]["clean"]["accuracy"] == {"before": 0.5, "after": 0.75, "delta": 0.25}
    assert body["example"]["a"]["scores"] == pytest.approx(body["example"]["b"]["scores"], abs=1e-6)
    assert api.get(f"/api/projects/{pid}/compare", params={"a": base_id, "b": 99999}).status_code == 404
    assert api.get(f"/api/versions/{child.id}", role="viewer").json()["parent_id"] == base_id
    n = db.scalar(select(func.count()).select_from(Job))
    assert n == 0
    assert db.execute(text("select 1")).scalar() == 1


def test_tokens_in_urls_are_redacted_from_access_logs():
    import logging

    from xmd.app import RedactTokens

    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/api/jobs/j/events?token=xmd_SECRET&x=1", "1.1", 200),
        None,
    )
    assert RedactTokens().filter(record)
    assert "xmd_SECRET" not in record.getMessage() and "token=***&x=1" in record.getMessage()


def test_signed_download_links_are_redacted_from_access_logs_too():
    import logging

    from xmd.app import RedactTokens

    path = "/api/versions/3/download?link=12.1999999999." + "ab" * 32
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s"', ("127.0.0.1:5000", "GET", path), None
    )
    assert RedactTokens().filter(record)
    assert "ab" * 32 not in record.getMessage() and "download?link=***" in record.getMessage()
