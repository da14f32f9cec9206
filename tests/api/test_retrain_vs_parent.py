"""A retrain's new version carries its numbers against the parent (issues 30 §3 and 33 §3): per eval set
the parent's and the new accuracy with the change's paired bootstrap interval, the false-positive rate
on the corrected words' slice, and sentences; without an eval set, a held-out share of the training
data (stated, left out of training). The job body runs in this process as a worker runs it."""

from __future__ import annotations

from typing import Any

from apihelpers import Api, demo_csv
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import JobStatus
from xmd.jobs.runner import execute
from xmd.retrain.flows import retrain_job

SMALL = {"epochs": 1, "batch_size": 8, "lr": 1e-3, "max_length": 32}


def _project(api: Api, tiny_model_dir: Any, evals: bool) -> dict[str, Any]:
    r = api.post("/api/projects", json={"name": f"vs-{evals}", "model_path": str(tiny_model_dir)})
    assert r.status_code == 201, r.text
    p = r.json()
    sets = [("train", "train", "train")] + ([("anti", "eval", "test_anti")] if evals else [])
    for name, role, split in sets:
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


def _retrain(api: Api, db: Any, pid: int) -> dict[str, Any]:
    r = api.post(f"/api/projects/{pid}/jobs/retrain", json=SMALL)
    assert r.status_code == 202, r.text
    job_id = r.json()["id"]
    assert jobs.mark_running(db_session=db, job_id=job_id, worker_host="test:1")
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    factory = api.client.app.state.session_factory
    execute(JobContext(job=job, db=db, settings=api.settings, factory=factory), retrain_job)
    db.expire_all()
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    assert job.status is JobStatus.SUCCEEDED, job.error
    versions = api.get(f"/api/projects/{pid}/versions").json()["items"]
    return next(v for v in versions if v["id"] == job.result["version_id"])


def test_a_retrain_version_carries_its_numbers_against_the_parent(api: Api, db, tiny_model_dir) -> None:
    p = _project(api, tiny_model_dir, evals=True)
    v = _retrain(api, db, p["id"])
    vs = v["config"]["vs_parent"]
    assert vs == v["retrain"]["vs_parent"] and vs["names"] == ["v1", "v2"] and vs["words"] == ["spielberg"]
    assert v["config"]["holdout"] is None and vs["holdout"] is None
    anti = vs["sets"]["anti"]
    acc = anti["metrics"]["accuracy"]
    assert abs(acc["parent"] - v["config"]["metrics_before"]["anti"]["accuracy"]) < 1e-6
    assert abs(acc["new"] - v["metrics"]["anti"]["accuracy"]) < 1e-6
    assert acc["ci_low"] <= acc["diff"] <= acc["ci_high"] and acc["verdict"] in {"better", "worse", "within_noise"}
    assert vs["positive"]["label"] == "positive" and anti["n_negative_words"] > 0
    assert anti["metrics"]["fpr_words"]["parent"] is not None and "fpr_other" in anti["metrics"]
    assert any(s.startswith("v2") and "on anti" in s for s in vs["sentences"])
    assert any("corrected words" in s for s in vs["sentences"])


def test_without_an_eval_set_a_held_out_share_is_measured(api: Api, db, tiny_model_dir) -> None:
    p = _project(api, tiny_model_dir, evals=False)
    v = _retrain(api, db, p["id"])
    hold = v["config"]["holdout"]
    assert hold["n"] == 4 and hold["n_train"] == 36 and hold["share"] == 0.1 and hold["seed"] == 0
    name = hold["name"]
    assert v["metrics"][name]["n"] == 4 and v["metrics"][name]["accuracy"] is not None
    vs = v["config"]["vs_parent"]
    assert vs["holdout"] == hold and vs["sets"][name]["n"] == 4
    assert any("held out and left out of training" in s for s in vs["sentences"])
