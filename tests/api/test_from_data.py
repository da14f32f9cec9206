"""A project started from a CSV (issue 30 §1): ``POST /api/projects/from-data`` checks everything before it
queues the ``from_data`` job (a bad request changes nothing), whose body fine-tunes the base model, makes
the project with version 1 and its base model recorded, adds the data as the training set and queues the
explain job. The tiny random BERT stands in for MiniLM (a local folder, as the server allows here)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from apihelpers import Api, demo_csv
from xmd.jobs import flows as jobs_flows
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import Job, JobStatus
from xmd.jobs.runner import execute
from xmd.workspace import from_data

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

URL = "/api/projects/from-data"
RECIPE = json.dumps({"epochs": 1, "batch_size": 8, "max_length": 32})


def _csv(rows: list[list[Any]], header: tuple[str, ...] = ("review", "sentiment")) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue().encode()


def _form(tiny: Path, **over: Any) -> dict[str, Any]:
    form = {
        "name": "my reviews",
        "text_column": "text",
        "label_column": "label",
        "id_column": "id",
        "base_model": json.dumps({"model_path": str(tiny)}),
        "recipe": RECIPE,
    }
    return {**form, **over}


def _post(api: Api, data: dict[str, Any], content: bytes | None = None, filename: str = "reviews.csv", **kw: Any):
    files = {"file": (filename, demo_csv() if content is None else content, "text/csv")}
    return api.post(URL, files=files, data={k: v for k, v in data.items() if v is not None}, **kw)


def _run(api: Api, db: Any, job_id: str, sent: list[Job] | None = None, monkeypatch=None) -> Job:
    if monkeypatch is not None:  # the explain job the body queues is recorded, not sent to a broker
        monkeypatch.setattr(from_data, "sender", lambda settings: lambda job, secrets=None: sent.append(job))
    assert jobs.mark_running(db_session=db, job_id=job_id, worker_host="test:1")
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    factory = api.client.app.state.session_factory
    execute(JobContext(job=job, db=db, settings=api.settings, factory=factory), from_data.from_data_job)
    db.expire_all()
    return jobs.get_or_raise(db_session=db, job_id=job_id)


def test_a_csv_becomes_a_project_with_its_model_base_and_explained_train_set(api: Api, db, tiny_model_dir, monkeypatch):
    r = _post(api, _form(tiny_model_dir, description="movie reviews"))
    assert r.status_code == 202, r.text
    got = r.json()
    assert got["kind"] == "from_data" and got["project_id"] is None and got["status"] == "queued"
    assert [j.id for j, _ in api.sent] == [got["id"]]
    assert api.get("/api/projects").json()["total"] == 0  # nothing before the fine-tune

    sent: list[Job] = []
    job = _run(api, db, got["id"], sent, monkeypatch)
    assert job.status is JobStatus.SUCCEEDED, job.error
    names = [p.get("name") for p in job.phases or []]
    assert names[:2] == ["load", "train"] and {"project", "datasets"} <= set(names), job.phases
    assert job.result["project_name"] == "my reviews" and job.total_steps == 5  # 40 rows, batch 8, 1 epoch
    project = api.get(f"/api/projects/{job.result['project_id']}").json()
    assert project["labels"] == ["negative", "positive"] and project["description"] == "movie reviews"
    assert project["base_model"]["kind"] == "path" and project["base_model"]["source"] == str(tiny_model_dir)
    assert project["base_model"]["recipe"]["epochs"] == 1 and project["base_model"]["recipe"]["lr"] == 5e-5
    assert project["model_source"] == f"fine-tuned from {tiny_model_dir} on reviews.csv"
    versions = api.get(f"/api/projects/{project['id']}/versions").json()["items"]
    assert [(v["version"], v["status"]) for v in versions] == [(1, "ready")]
    (ds,) = api.get(f"/api/projects/{project['id']}/datasets").json()["items"]
    assert (ds["name"], ds["role"], ds["n_examples"], ds["source_name"]) == ("train", "train", 40, "reviews.csv")
    assert sum(ds["label_counts"].values()) == 40
    assert [(j.kind, j.project_id, j.id) for j in sent] == [("explain", project["id"], job.result["explain_job_id"])]
    assert not Path(job.params["workdir"]).exists()  # the data waited in a folder of its own, now gone


def test_the_bundled_minilm_is_the_default_base_and_is_recorded_as_such(api: Api, tiny_model_dir, monkeypatch):
    monkeypatch.setattr(from_data.paths, "bundled_model_dir", lambda name: tiny_model_dir)
    r = _post(api, _form(tiny_model_dir, base_model=None))
    assert r.status_code == 202, r.text
    job = api.sent[-1][0]
    assert job.params["base"]["bundled"] == "minilm" and job.params["base_name"] == "MiniLM"
    assert job.params["base"]["recipe"]["epochs"] == 1 and job.params["labels"] == ["negative", "positive"]


def test_labels_come_from_the_data_in_a_stable_order(api: Api, tiny_three_class_dir):
    rows = [[f"text number {i}", ["pos", "neg", "neutral"][i % 3]] for i in range(30)]
    form = _form(tiny_three_class_dir, text_column="review", label_column="sentiment", id_column=None)
    r = _post(api, form, _csv(rows))
    assert r.status_code == 202, r.text
    assert api.sent[-1][0].params["labels"] == ["neg", "neutral", "pos"]


@pytest.mark.parametrize(
    ("change", "content", "status", "says"),
    [
        ({"label_column": "sentiment"}, None, 422, "no label column 'sentiment'"),
        ({}, _csv([["a", "pos"], ["b", "pos"]], ("text", "label")), 422, "only the class 'pos'"),
        ({}, _csv([[f"t{i}", f"c{i}"] for i in range(60)], ("text", "label")), 422, "60 different values"),
        ({"text_column": "body"}, None, 422, "body"),
        ({"base_model": json.dumps({"hub_id": "../etc"})}, None, 422, "not a Hugging Face Hub id"),
        ({"base_model": json.dumps({"model_path": "/nowhere/model"})}, None, 422, "does not name a saved model"),
        ({"base_model": "{oops"}, None, 422, "base_model must be a JSON object"),
        ({"recipe": json.dumps({"epochs": 0})}, None, 422, "recipe: epochs"),
        ({"recipe": json.dumps({"lam": 1})}, None, 422, "recipe: lam"),
        ({"name": ""}, None, 422, ""),
    ],
)
def test_bad_requests_are_refused_and_change_nothing(api: Api, tiny_model_dir, change, content, status, says):
    r = _post(api, _form(tiny_model_dir, **change), content)
    assert r.status_code == status, r.text
    assert says in json.dumps(r.json()["detail"])
    assert api.sent == [] and api.get("/api/jobs").json()["total"] == 0
    waiting = api.settings.data_dir / "from-data"
    assert not waiting.exists() or not any(waiting.iterdir())


def test_size_name_file_type_class_count_and_role_limits(api: Api, tiny_model_dir, tiny_three_class_dir, monkeypatch):
    monkeypatch.setattr(from_data, "MAX_ROWS", 30)
    r = _post(api, _form(tiny_model_dir))
    assert r.status_code == 413 and "40 rows" in r.json()["detail"] and "at most 30" in r.json()["detail"]
    monkeypatch.setattr(from_data, "MAX_ROWS", 50_000)
    wide = _csv([[f"t{i}"] + ["x"] * 1200 + ["pos" if i % 2 else "neg"] for i in range(4)],
                ("text", *[f"c{k}" for k in range(1200)], "label"))  # fmt: skip
    r = _post(api, _form(tiny_model_dir, id_column=None), wide)
    assert r.status_code in (413, 422) and "columns" in r.json()["detail"]
    r = _post(api, _form(tiny_model_dir), filename="reviews.exe")
    assert r.status_code == 422 and "unsupported file type" in r.json()["detail"]
    r = _post(api, _form(tiny_three_class_dir))  # a 3-class classifier cannot take 2 classes
    assert r.status_code == 422 and "classifier with 3 classes" in r.json()["detail"]
    assert _post(api, _form(tiny_model_dir), role="annotator").status_code == 403
    api.post("/api/projects", json={"name": "taken", "model_path": str(tiny_model_dir)})
    r = _post(api, _form(tiny_model_dir, name="taken"))
    assert r.status_code == 409 and "already exists" in r.json()["detail"]
    assert api.sent == []


def test_the_preview_guesses_the_columns(api: Api):
    rows = [[f"great film {i}", "pos"] for i in range(3)]
    r = api.post(f"{URL}/preview", files={"file": ("r.csv", _csv(rows), "text/csv")})
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["columns"] == ["review", "sentiment"] and got["n_rows"] == 3
    assert got["guess"] == {"text": "review", "label": "sentiment", "id": None}
    files = {"file": ("r.csv", b"a\n1\n", "text/csv")}
    assert api.post(f"{URL}/preview", role="annotator", files=files).status_code == 403


def test_a_cancelled_fine_tune_makes_no_project_and_leaves_no_data(api: Api, db, tiny_model_dir):
    factory = api.client.app.state.session_factory
    running = _post(api, _form(tiny_model_dir)).json()["id"]
    assert jobs.mark_running(db_session=db, job_id=running, worker_host="test:1")
    assert api.post(f"/api/jobs/{running}/cancel").status_code == 200  # asked while it runs: seen at once
    job = jobs.get_or_raise(db_session=db, job_id=running)
    execute(JobContext(job=job, db=db, settings=api.settings, factory=factory), from_data.from_data_job)
    db.expire_all()
    assert jobs.get_or_raise(db_session=db, job_id=running).status is JobStatus.CANCELLED
    assert api.get("/api/projects").json()["total"] == 0 and not Path(job.params["workdir"]).exists()

    queued = _post(api, _form(tiny_model_dir)).json()["id"]  # cancelled before a worker took it
    assert api.post(f"/api/jobs/{queued}/cancel").status_code == 200
    folder = Path(jobs.get_or_raise(db_session=db, job_id=queued).params["workdir"])
    assert folder.exists()
    jobs_flows.sweep(db, stale_after_s=api.settings.stale_after_s)  # the stale-job sweep takes its data
    assert not folder.exists()
