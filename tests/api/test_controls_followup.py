"""Controls after the version (issue 30 §5): a retrain with controls makes its debugged version ready as
a retrain without them does, and queues each control arm × seed as a job of its own; each control that
finishes marks its run done and fills in the comparison on the debugged version; a cancelled or failed
control says so and leaves the version ready. Job bodies run in this process as a worker runs them."""

from __future__ import annotations

from typing import Any

import pytest
from apihelpers import Api, demo_csv
from xmd.core.followup import BASIS_FILE
from xmd.jobs import queue
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import JobStatus
from xmd.jobs.runner import execute
from xmd.retrain.flows import retrain_job
from xmd.retrain.followup import CONTROL, control_job
from xmd.versions import service as versions

SMALL = {"epochs": 1, "batch_size": 8, "lr": 1e-3, "max_length": 32}


@pytest.fixture
def sent(monkeypatch) -> list[Any]:
    """What the job bodies send to the queue (the explain and control jobs), recorded, not sent."""
    got: list[Any] = []
    monkeypatch.setattr(queue, "sender", lambda settings: lambda job, secrets=None: got.append(job.id))
    return got


def _project(api: Api, tiny_model_dir: Any) -> dict[str, Any]:
    r = api.post("/api/projects", json={"name": "followup", "model_path": str(tiny_model_dir)})
    assert r.status_code == 201, r.text
    p = r.json()
    for name, role, split in (("train", "train", "train"), ("anti", "eval", "test_anti")):
        r = api.post(
            f"/api/projects/{p['id']}/datasets",
            files={"file": (f"{name}.csv", demo_csv(split=split), "text/csv")},
            data={"name": name, "role": role, "id_column": "id"},
        )
        assert r.status_code == 201, r.text
        p[name] = r.json()
    words = {"text": "spielberg\n", "name": "terms.txt", "action": "remove"}
    r = api.post(f"/api/projects/{p['id']}/feedback/import", json={"dataset_id": p["train"]["id"], "words": words})
    assert r.status_code == 200 and r.json()["imported"] == 1, r.text
    return p


def _run(api: Api, db: Any, job_id: str, body: Any) -> Any:
    assert jobs.mark_running(db_session=db, job_id=job_id, worker_host="test:1")
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    factory = api.client.app.state.session_factory
    execute(JobContext(job=job, db=db, settings=api.settings, factory=factory), body)
    db.expire_all()
    return jobs.get_or_raise(db_session=db, job_id=job_id)


def _version(api: Api, pid: int, vid: int) -> dict[str, Any]:
    return next(v for v in api.get(f"/api/projects/{pid}/versions").json()["items"] if v["id"] == vid)


def test_the_version_is_ready_before_its_controls_and_they_fill_in_the_comparison(api: Api, db, tiny_model_dir, sent):
    p = _project(api, tiny_model_dir)
    r = api.post(f"/api/projects/{p['id']}/jobs/retrain", json={**SMALL, "controls": ["lambda0", "deletion", "strip"]})
    assert r.status_code == 202, r.text
    job = _run(api, db, r.json()["id"], retrain_job)
    assert job.status is JobStatus.SUCCEEDED, job.error
    runs = job.result["controls"]
    assert [(c["arm"], c["seed"]) for c in runs] == [("lambda0", 0), ("deletion", 0)]  # strip rides on λ = 0
    assert all(c["job_id"] in sent for c in runs)
    v2 = _version(api, p["id"], job.result["version_id"])
    assert v2["status"] == "ready" and v2["config"]["vs_parent"]  # ready, with its own numbers, before any control
    assert v2["controls"]["done"] == 0 and v2["controls"]["total"] == 2 and "comparison" not in v2["config"]
    rows = v2["config"]["vs_parent"]["sets"]["anti"]["metrics"]
    assert {"accuracy", "macro_f1", "fpr_words", "fpr_other"} <= set(rows)  # the slice's rates, without controls
    queued = [jobs.get_or_raise(db_session=db, job_id=c["job_id"]) for c in runs]
    assert [j.kind for j in queued] == [CONTROL, CONTROL] and all(j.status is JobStatus.QUEUED for j in queued)

    first = _run(api, db, runs[0]["job_id"], control_job)
    assert first.status is JobStatus.SUCCEEDED, first.error
    v2 = _version(api, p["id"], v2["id"])
    assert (v2["controls"]["done"], v2["controls"]["total"]) == (1, 2)  # "controls: 1 of 2 done"
    cmp = v2["config"]["comparison"]
    assert cmp["arms"] == ["debug", "lambda0", "strip"] and cmp["seeds"] == [0]
    anti = cmp["sets"]["anti"]
    assert set(anti["differences"]) == {"lambda0", "strip"} and "accuracy" in anti["verdicts"]
    before = v2["config"]["vs_parent"]["sets"]["anti"]["metrics"]["accuracy"]
    assert abs(anti["before"]["accuracy"] - before["parent"]) < 1e-9  # the same examples as v2 was measured on
    assert abs(anti["arms"]["debug"]["mean"]["accuracy"] - before["new"]) < 1e-9
    control = _version(api, p["id"], first.result["version_id"])
    assert control["status"] == "ready" and control["config"]["control"] == "lambda0"
    assert control["name"] == f"v{v2['version']} λ=0 seed 0" and control["config"]["comparison_version_id"] == v2["id"]

    # the second control is cancelled while queued: its run says so, the version stays ready with its comparison
    r = api.post(f"/api/jobs/{runs[1]['job_id']}/cancel")
    assert r.status_code in (200, 202), r.text
    v2 = _version(api, p["id"], v2["id"])
    assert v2["status"] == "ready" and v2["controls"]["runs"][1]["status"] == "cancelled"
    assert (v2["controls"]["done"], v2["controls"]["ended"]) == (1, 1) and v2["config"]["comparison"]["arms"][
        1
    ] == "lambda0"


def test_a_failing_control_is_marked_and_the_version_stays_ready(api: Api, db, tiny_model_dir, sent):
    p = _project(api, tiny_model_dir)
    r = api.post(f"/api/projects/{p['id']}/jobs/retrain", json={**SMALL, "controls": ["lambda0"]})
    job = _run(api, db, r.json()["id"], retrain_job)
    assert job.status is JobStatus.SUCCEEDED, job.error
    (run,) = job.result["controls"]
    v2 = versions.get_or_raise(db_session=db, model_version_id=job.result["version_id"])
    (versions.files_of(api.settings, v2) / BASIS_FILE).unlink()  # what the control is compared against is gone
    failed = _run(api, db, run["job_id"], control_job)
    assert failed.status is JobStatus.FAILED and BASIS_FILE in (failed.error or "")
    v2 = _version(api, p["id"], job.result["version_id"])
    assert v2["status"] == "ready" and v2["controls"]["runs"][0]["status"] == "failed"
    assert v2["controls"]["runs"][0]["error"] and "comparison" not in v2["config"]
    names = [v["name"] for v in api.get(f"/api/projects/{p['id']}/versions").json()["items"]]
    assert not any("λ=0" in n for n in names)  # it failed before it made a version
