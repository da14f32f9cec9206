"""A dataset cannot be deleted while a job of its project is queued or running (issue 31: a retrain
went on training on a deleted dataset and its feedback went with it), on SQLite and PostgreSQL; the
409 names the jobs and nothing is deleted. Once the job is over the delete goes through."""

from __future__ import annotations

from apihelpers import Api
from sqlalchemy import func, select
from xmd.datasets.models import Dataset, Example
from xmd.feedback.models import Feedback
from xmd.jobs import service as jobs_service


def _rows(db, did: int) -> tuple[int, int, int]:
    db.expire_all()
    n_ds = db.scalar(select(func.count()).select_from(Dataset).where(Dataset.id == did))
    n_ex = db.scalar(select(func.count()).select_from(Example).where(Example.dataset_id == did))
    n_fb = db.scalar(
        select(func.count())
        .select_from(Feedback)
        .join(Example, Example.id == Feedback.example_id)
        .where(Example.dataset_id == did)
    )
    return int(n_ds), int(n_ex), int(n_fb)


def test_a_dataset_is_not_deleted_under_a_running_job(api: Api, project, db):
    did = project["train"]["id"]
    ex = api.get(f"/api/datasets/{did}/examples", params={"limit": 3}).json()["items"]
    for e in ex:
        r = api.put(f"/api/examples/{e['id']}/feedback", role="annotator", json={"word_index": 0, "action": "remove"})
        assert r.status_code == 200, r.text
    before = _rows(db, did)
    assert before[2] == 3
    listed = {d["id"]: d for d in api.get(f"/api/projects/{project['id']}/datasets").json()["items"]}
    assert listed[did]["n_feedback"] == 3 and listed[project["clean"]["id"]]["n_feedback"] == 0  # the UI says so
    r = api.post(f"/api/projects/{project['id']}/jobs/explain", json={"dataset_id": did})
    assert r.status_code == 202, r.text
    job_id = r.json()["id"]

    r = api.delete(f"/api/datasets/{did}")  # queued
    assert r.status_code == 409 and job_id in r.json()["detail"] and "queued" in r.json()["detail"], r.text
    assert jobs_service.mark_running(db_session=db, job_id=job_id, worker_host="elsewhere:1")
    r = api.delete(f"/api/datasets/{project['clean']['id']}")  # any dataset of the project, while it runs
    assert r.status_code == 409 and "running" in r.json()["detail"], r.text
    assert _rows(db, did) == before and _rows(db, project["clean"]["id"])[0] == 1

    assert jobs_service.finish(db_session=db, job_id=job_id, result={})
    assert api.delete(f"/api/datasets/{did}").status_code == 204
    assert _rows(db, did) == (0, 0, 0)
