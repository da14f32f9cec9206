"""A cancelled retrain's version reads ``cancelled``, not ``failed`` (issue 30 §6), in the versions list
every selector reads; a retrain that fails leaves ``failed``. The job body runs in this process as a
worker runs it, cancelled by the API's cancel route while it runs."""

from __future__ import annotations

from typing import Any

from apihelpers import Api, demo_csv
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import JobStatus
from xmd.jobs.runner import execute
from xmd.retrain.flows import retrain_job
from xmd.versions import service as versions_service
from xmd.versions.models import ModelStatus
from xmd.versions.service import ended_as

SMALL = {"epochs": 1, "batch_size": 8, "lr": 1e-3, "max_length": 32}


def _project(api: Api, tiny_model_dir: Any) -> dict[str, Any]:
    r = api.post("/api/projects", json={"name": "cancel", "model_path": str(tiny_model_dir)})
    assert r.status_code == 201, r.text
    p = r.json()
    r = api.post(
        f"/api/projects/{p['id']}/datasets",
        files={"file": ("train.csv", demo_csv(split="train"), "text/csv")},
        data={"name": "train", "role": "train", "id_column": "id"},
    )
    assert r.status_code == 201, r.text
    words = {"text": "spielberg\n", "name": "terms.txt", "action": "remove"}
    r = api.post(f"/api/projects/{p['id']}/feedback/import", json={"dataset_id": r.json()["id"], "words": words})
    assert r.status_code == 200, r.text
    return p


def test_a_cancelled_retrain_leaves_a_cancelled_version(api: Api, db, tiny_model_dir, monkeypatch) -> None:
    p = _project(api, tiny_model_dir)
    r = api.post(f"/api/projects/{p['id']}/jobs/retrain", json=SMALL)
    assert r.status_code == 202, r.text
    job_id = r.json()["id"]
    assert jobs.mark_running(db_session=db, job_id=job_id, worker_host="test:1")
    create_child = versions_service.create_child

    def create_then_cancel(**kw: Any) -> Any:
        """Someone presses Cancel once the new version exists (training): it stops at its next step."""
        child = create_child(**kw)
        assert api.post(f"/api/jobs/{job_id}/cancel").status_code == 200
        return child

    monkeypatch.setattr(versions_service, "create_child", create_then_cancel)
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    factory = api.client.app.state.session_factory
    execute(JobContext(job=job, db=db, settings=api.settings, factory=factory), retrain_job)
    db.expire_all()
    assert jobs.get_or_raise(db_session=db, job_id=job_id).status is JobStatus.CANCELLED
    versions = api.get(f"/api/projects/{p['id']}/versions").json()["items"]
    built = [v for v in versions if v["config"].get("job_id") == job_id]
    assert [v["status"] for v in built] == ["cancelled"], versions
    assert api.get(f"/api/jobs/{job_id}").json()["status"] == "cancelled"


def test_only_a_cancel_makes_a_version_cancelled() -> None:
    assert ended_as(JobStatus.CANCELLED, True) is ModelStatus.CANCELLED
    assert ended_as(JobStatus.RUNNING, True) is ModelStatus.CANCELLED  # the runner cleans up before the end
    assert ended_as(JobStatus.RUNNING, False) is ModelStatus.FAILED  # an error, a lost worker
    assert ended_as(JobStatus.FAILED, True) is ModelStatus.FAILED  # a stopped server failed it first
    assert ended_as(None, False) is ModelStatus.FAILED  # its job row is gone
