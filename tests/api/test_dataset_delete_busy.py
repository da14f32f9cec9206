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


def _fire_pair(session_factory, project_id: int, did: int) -> dict:
    """A dataset delete and a job start of its project at once; when each finished."""
    import threading
    import time

    from xmd.datasets import service as datasets_service
    from xmd.projects import service as projects_service

    done: dict = {}
    checked = threading.Event()

    def delete() -> None:
        with session_factory() as s:
            ds = datasets_service.get_or_raise(db_session=s, dataset_id=did)
            proj = projects_service.get_or_raise(db_session=s, project_id=project_id)
            try:
                projects_service.lock_when_idle(db_session=s, project=proj, what="d")
            except Exception as exc:
                done["delete"] = type(exc).__name__
                return
            finally:
                checked.set()
            datasets_service.delete_dataset(db_session=s, dataset=ds)
            done["delete"], done["deleted_at"] = "ok", time.monotonic()

    def start() -> None:
        checked.wait(10)
        with session_factory() as s:
            job = jobs_service.create(db_session=s, kind="explain", project_id=project_id)
            done["job"], done["job_at"] = job.id, time.monotonic()
            # Read in a new statement once the job is committed: the dataset must already be gone. (Timestamps
            # taken after each commit, in two threads, can land in either order: the delete's thread may be
            # scheduled after the job's, so they only say when, in the message.)
            s.expire_all()
            done["dataset_left"] = s.scalar(select(func.count()).select_from(Dataset).where(Dataset.id == did))

    threads = [threading.Thread(target=delete), threading.Thread(target=start)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return done


def test_a_job_cannot_start_between_the_check_and_the_delete(api: Api, project, session_factory, monkeypatch):
    """The pair fired 6 times: a dataset delete (slowed between its check and its commit) and a job start
        of the same project, started once the check passed. The job must commit after the delete: once it is in,
    the dataset is gone."""
    import time

    from xmd.datasets import service as datasets_service

    deleting = datasets_service.delete_dataset

    def slow_delete(**kw):
        time.sleep(0.2)  # widen the window between the check and the delete's commit
        return deleting(**kw)

    monkeypatch.setattr(datasets_service, "delete_dataset", slow_delete)
    for trial in range(6):
        r = api.post(
            f"/api/projects/{project['id']}/datasets",
            files={"file": (f"v{trial}.csv", b"id,text,label\n1,a text,positive\n", "text/csv")},
            data={"name": f"victim{trial}", "role": "train", "id_column": "id"},
        )
        done = _fire_pair(session_factory, project["id"], r.json()["id"])
        assert done["delete"] == "ok" and done["dataset_left"] == 0, (trial, done)
        with session_factory() as s:
            jobs_service.fail(db_session=s, job_id=str(done["job"]), error="test")
