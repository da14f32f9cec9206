"""A project started from a CSV with the bundled all-MiniLM-L6-v2 (issue 30 §1), through the API and the job
body: the bundled base (a sentence encoder, no classifier head) takes the data's classes, the fine-tune
runs, and the project records the base as ``bundled`` so the deletion-from-base control can find it again.
Small (48 reviews, one epoch at 32 tokens): seconds of training on two cores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from apihelpers import Api, demo_csv, make_settings
from fastapi.testclient import TestClient
from xmd.app import create_app
from xmd.db import make_engine, make_session_factory, upgrade
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import JobStatus
from xmd.jobs.runner import execute
from xmd.projects import paths
from xmd.users import service as users
from xmd.workspace import from_data

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::UserWarning")]


def test_the_bundled_minilm_fine_tunes_into_a_project(tmp_path: Path, monkeypatch):
    settings = make_settings(tmp_path, allow_local_model_paths=False)  # the bundled model needs no path rule
    settings.data_dir.mkdir(parents=True)
    url = f"sqlite:///{settings.data_dir / 'xmd.db'}"
    upgrade(url)
    engine = make_engine(url)
    factory = make_session_factory(engine)
    with factory() as db:
        admin = users.create_user(db_session=db, name="admin", role="admin")
        token = users.create_token(db_session=db, user=admin)[1]
    sent: list = []
    monkeypatch.setattr(from_data, "sender", lambda s: lambda job, secrets=None: sent.append(job))
    app = create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)
    with TestClient(app) as client, factory() as db:
        api = Api(client=client, tokens={"admin": token}, sent=[], settings=settings)
        r = api.post(
            "/api/projects/from-data",
            files={"file": ("reviews.csv", demo_csv(48), "text/csv")},
            data={"name": "minilm reviews", "id_column": "id", "recipe": json.dumps({"epochs": 1, "max_length": 32})},
        )
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        assert jobs.mark_running(db_session=db, job_id=job_id, worker_host="test:1")
        job = jobs.get_or_raise(db_session=db, job_id=job_id)
        execute(JobContext(job=job, db=db, settings=settings, factory=factory), from_data.from_data_job)
        db.expire_all()
        job = jobs.get_or_raise(db_session=db, job_id=job_id)
        assert job.status is JobStatus.SUCCEEDED, job.error
        assert job.total_steps == 3 and [p["name"] for p in job.phases][:2] == ["load", "train"]
        assert job.phases[1]["label"] == "fine-tuning MiniLM"
        project = api.get(f"/api/projects/{job.result['project_id']}").json()
        assert project["labels"] == ["negative", "positive"]
        assert project["model_source"] == "fine-tuned from MiniLM on reviews.csv"
        base = project["base_model"]
        assert (base["source"], base["kind"], base["recipe"]["epochs"]) == ("minilm", "bundled", 1)
        assert paths.base_model_folder(settings, {"bundled": "minilm"}).is_dir()  # what deletion_base loads
        assert [j.kind for j in sent] == ["explain"]
    engine.dispose()
