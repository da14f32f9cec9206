"""A retrain trains on the project's consensus and records it (issue 32 §4): the policy, the contributors
(mark counts per person) and their agreement at the time, on the version, and the model card says so.
The job body runs in this process as a worker runs it."""

from __future__ import annotations

from typing import Any

from apihelpers import Api
from xmd.core.modelcard import render_model_card
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import JobStatus
from xmd.jobs.runner import execute
from xmd.retrain.flows import retrain_job
from xmd.users import service as users_service
from xmd.users.models import Role
from xmd.versions.models import ModelVersion

SMALL = {"epochs": 1, "batch_size": 8, "lr": 1e-3, "max_length": 32}


def _retrain(api: Api, db: Any, pid: int) -> ModelVersion:
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
    mv = db.get(ModelVersion, job.result["version_id"])
    assert mv is not None
    return mv


def test_the_retrain_trains_on_the_majority_and_the_version_records_who_and_how_much_they_agree(
    api: Api, db, project: dict[str, Any]
) -> None:
    user = users_service.create_user(db_session=db, name="second-annotator", role=Role.ANNOTATOR)
    api.tokens["annotator2"] = users_service.create_token(db_session=db, user=user)[1]
    items = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": 2}).json()["items"]
    a, b = items
    for role, ex, i, action in (
        ("annotator", a, 0, "remove"),
        ("annotator2", a, 0, "remove"),  # both: kept by the majority
        ("annotator", a, 1, "remove"),  # one of two: not kept
        ("annotator2", b, 2, "add"),  # only annotator2 saw b: kept (1 of 1)
    ):
        r = api.put(f"/api/examples/{ex['id']}/feedback", role=role, json={"word_index": i, "action": action})
        assert r.status_code == 200, r.text
    r = api.put(f"/api/projects/{project['id']}/team/settings", json={"policy": "majority"})
    assert r.status_code == 200, r.text

    mv = _retrain(api, db, project["id"])
    snap = mv.feedback_snapshot or {}
    assert snap["counts"]["instance"] == {"remove": 1, "add": 1}  # the consensus, not the four marks
    team = snap["team"]
    assert team["policy"] == "majority" and team["blind"] is False
    assert team["contributors"] == {"annotator-user": 2, "second-annotator": 2}
    [agreement] = team["agreement"]
    assert agreement["dataset"] == "train" and agreement["n_examples"] == 1 and agreement["alpha"] is not None
    assert [p["a"] for p in agreement["pairs"]] == ["annotator-user"]

    card = render_model_card({"kind": "debug", "feedback_counts": snap["counts"], "team": team})
    assert "Consensus policy: `majority`" in card
    assert "annotator-user (2 marks), second-annotator (2 marks)" in card
    assert "Krippendorff's α" in card and "Cohen's κ annotator-user × second-annotator" in card
