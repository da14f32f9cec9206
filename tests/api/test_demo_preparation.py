"""The demo's set-up as a job of no project (issue 15, first start), on SQLite and PostgreSQL: ``GET
/api/jobs`` lists it; ``start_demo`` (what ``xmd serve --demo`` runs before it listens) fails the
preparations an earlier server left unfinished, saying so, and queues a new one; ``install_demo``
completes a half-made demo project instead of leaving it broken. The tiny BERT stands in for the
fine-tuned MiniLM (the real fine-tune is tested in tests/integration/test_serve_demo.py)."""

from __future__ import annotations

import os
import socket
from datetime import timedelta
from pathlib import Path

import pytest
from apihelpers import Api
from xmd.core.demo import make_demo_dataset
from xmd.datasets import service as datasets
from xmd.db.base import utcnow
from xmd.jobs import service as jobs
from xmd.jobs.models import Job, JobStatus
from xmd.projects import service
from xmd.versions import service as versions
from xmd.workspace import demo as flows
from xmd.workspace import flows as projects_flows

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _sets() -> dict[str, list]:
    return make_demo_dataset(n_train=24, n_clean=8, n_anti=6)


def test_jobs_of_no_project_are_listed(api: Api, project, db):
    prep = jobs.create(db_session=db, kind="prepare_demo", params={"n_train": 64})
    jobs.mark_running(db_session=db, job_id=prep.id, worker_host="test:1")
    jobs.report_progress(
        db_session=db,
        job_id=prep.id,
        progress=40.0,
        phase={
            "phase": "fine-tuning MiniLM",
            "phase_done": 37,
            "phase_total": 250,
            "phase_unit": "steps",
            "eta_s": 300,
        },
    )
    explain = api.post(f"/api/projects/{project['id']}/jobs/explain", json={}).json()["id"]

    listed = api.get("/api/jobs", role="viewer").json()
    assert {j["id"] for j in listed["items"]} == {prep.id, explain} and listed["total"] == 2
    only = api.get("/api/jobs", params={"kind": "prepare_demo"}, role="viewer").json()["items"]
    assert [j["id"] for j in only] == [prep.id]
    got = only[0]
    assert got["project_id"] is None and got["status"] == "running" and got["progress"] == 40.0
    assert (got["phase"], got["phase_done"], got["phase_total"], got["eta_s"]) == ("fine-tuning MiniLM", 37, 250, 300)
    assert [j["id"] for j in api.get("/api/jobs", params={"project_id": project["id"]}).json()["items"]] == [explain]
    queued = api.get("/api/jobs", params={"status": "queued"}).json()["items"]
    assert [j["id"] for j in queued] == [explain] and queued[0]["queue_position"] == 1
    for bad in ({"kind": "nap"}, {"status": "asleep"}, {"project_id": 0}, {"limit": 0}):
        assert api.get("/api/jobs", params=bad).status_code == 422, bad
    assert api.client.get("/api/jobs").status_code == 401


def _prep(db, status: JobStatus, worker_host: str | None = None, *, age_s: float = 0) -> Job:
    job = jobs.create(db_session=db, kind="prepare_demo", params={})
    if status is JobStatus.RUNNING:
        jobs.mark_running(db_session=db, job_id=job.id, worker_host=worker_host)
        job.heartbeat_at = utcnow() - timedelta(seconds=age_s)
        db.commit()
    return job


def test_a_restart_marks_abandoned_preparations_and_queues_a_new_one(api: Api, db, settings):
    sent: list[Job] = []
    queued = _prep(db, JobStatus.QUEUED)
    dead = _prep(db, JobStatus.RUNNING, f"{socket.gethostname()}:{2**22 + 7}")  # no such process
    silent = _prep(db, JobStatus.RUNNING, "elsewhere:12", age_s=settings.stale_after_s + 60)
    project, job = flows.start_demo(db, settings, lambda j, s=None: sent.append(j), Path("/nowhere"), n_train=64)
    assert project is None and job is not None and [j.id for j in sent] == [job.id]
    assert (
        job.kind == "prepare_demo"
        and job.project_id is None
        and job.params
        == {
            "workdir": "/nowhere",
            "n_train": 64,
        }
    )
    for old in (queued, dead, silent):
        row = jobs.get_or_raise(db_session=db, job_id=old.id)
        assert row.status is JobStatus.FAILED and "stopped before the demo project was ready" in row.error

    # a preparation whose worker is alive (another server on this data directory) is followed, not doubled
    jobs.fail(db_session=db, job_id=job.id, error="x")
    alive = _prep(db, JobStatus.RUNNING, f"{socket.gethostname()}:{os.getpid()}")
    again = flows.start_demo(db, settings, lambda j, s=None: sent.append(j), Path("/nowhere"))
    assert again == (None, jobs.get(db_session=db, job_id=alive.id)) and len(sent) == 1
    assert jobs.get_or_raise(db_session=db, job_id=alive.id).status is JobStatus.RUNNING


def test_a_half_made_demo_project_is_completed_not_left_broken(db, settings, tiny_model_dir: Path):
    sent: list[Job] = []
    enqueue = lambda j, s=None: sent.append(j)  # noqa: E731
    sets = _sets()
    # killed after the project and its train set were made, before the eval sets and the explain job
    made = projects_flows.create_project(
        db_session=db, settings=settings, name=flows.DEMO_PROJECT, source="base", model_dir=tiny_model_dir
    )
    datasets.add_dataset(db_session=db, project=made, name="train", role="train", examples=sets["train"])
    assert flows.demo_project(db) is None  # not whole: serve --demo prepares it again
    project, explain = flows.install_demo(db, settings, tiny_model_dir, sets, enqueue)
    assert project.id == made.id and explain is not None and [j.id for j in sent] == [explain.id]
    got = {d.name: (d.role.value, d.n_examples) for d in datasets.list_datasets(db_session=db, project_id=project.id)}
    assert got == {"train": ("train", 24), "test_clean": ("eval", 8), "test_anti": ("eval", 6)}
    assert flows.demo_project(db).id == project.id
    # once whole, nothing is added or queued again
    assert flows.install_demo(db, settings, tiny_model_dir, sets, enqueue) == (project, None) and len(sent) == 1
    assert flows.start_demo(db, settings, enqueue, Path("/nowhere"))[0].id == project.id and len(sent) == 1


def test_a_demo_project_killed_before_its_model_was_stored_is_made_again(db, settings, tiny_model_dir: Path):
    sent: list[Job] = []
    broken = service.create(db_session=db, name=flows.DEMO_PROJECT, labels=["negative", "positive"], model_source="x")
    assert versions.latest_ready(db_session=db, project_id=broken.id) is None
    project, explain = flows.install_demo(db, settings, tiny_model_dir, _sets(), lambda j, s=None: sent.append(j))
    assert project.model_source == str(tiny_model_dir)  # made again (SQLite may reuse the id)
    assert [p.name for p in service.list_projects(db_session=db)] == [flows.DEMO_PROJECT]
    assert versions.latest_ready(db_session=db, project_id=project.id) is not None
    assert project.settings["max_length"] == flows.DEMO_MAX_LENGTH and explain is not None
    assert len(datasets.list_datasets(db_session=db, project_id=project.id)) == 3
