"""A project records its base model (issue 14, deletion from base): set at creation (from a path, a Hub id
or an uploaded archive) or later, shown with
the project, forgotten on request; checked by the project model's path rule; and the retrain accepts the
``deletion_base`` control only while one is recorded. SQLite and PostgreSQL; jobs are recorded, not run
(tests/workers/test_retrain_controls.py runs one)."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

from apihelpers import Api, make_settings
from fastapi.testclient import TestClient
from xmd.app import create_app
from xmd.users import service as users_service
from xmd.users.models import Role

RETRAIN = {"epochs": 1, "batch_size": 4, "max_length": 32, "controls": ["deletion_base"], "seeds": 1}


def _mark(api: Api, project: dict) -> None:
    r = api.put(f"/api/projects/{project['id']}/task-feedback", json={"word": "spielberg", "action": "remove"})
    assert r.status_code == 200, r.text


def test_base_model_at_creation_checked_before_anything_is_made(api: Api, tiny_model_dir: Path):
    good = {"model_path": str(tiny_model_dir), "recipe": {"epochs": 3, "lr": 5e-5}}
    for bad in (
        {"hub_id": "../etc"},  # not a Hub id
        {"model_path": str(tiny_model_dir), "hub_id": "org/m"},  # two sources
        {"model_path": str(tiny_model_dir.parent / ".." / tiny_model_dir.parent.name)},  # '..'
        {"model_path": str(tiny_model_dir.parent / "nowhere")},  # not a model folder
        {"model_path": str(tiny_model_dir), "recipe": {"epochs": 0}},  # out of bounds
        {"model_path": str(tiny_model_dir), "recipe": {"epoch": 3}},  # unknown setting
    ):
        r = api.post("/api/projects", json={"name": "p", "model_path": str(tiny_model_dir), "base_model": bad})
        assert r.status_code == 422, (bad, r.text)
    assert api.get("/api/projects").json()["items"] == []  # nothing was made

    r = api.post("/api/projects", json={"name": "p", "model_path": str(tiny_model_dir), "base_model": good})
    assert r.status_code == 201, r.text
    assert r.json()["base_model"] == {
        "source": str(tiny_model_dir),
        "kind": "path",
        "recipe": {"epochs": 3, "lr": 5e-5},
    }
    pid = r.json()["id"]
    assert api.get(f"/api/projects/{pid}").json()["base_model"]["recipe"] == {"epochs": 3, "lr": 5e-5}


def _tar(src: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        tf.add(src, arcname="my-model")
    return buf.getvalue()


def test_base_model_with_an_uploaded_archive(api: Api, tiny_model_dir: Path):
    """The archive form takes the base model as a JSON field, checked like the JSON routes' before the
    archive is unpacked: a bad one answers 422 with the reason, and no project, no upload is left."""
    archive = {"archive": ("model.tar.gz", _tar(tiny_model_dir), "application/gzip")}
    for bad, needle in (
        ("not json", "must be a JSON object"),
        ('["org/m"]', "must be a JSON object"),
        (json.dumps({"hub_id": "../etc"}), "hub"),  # not a Hub id
        (json.dumps({"hub_id": "org/m", "model_path": str(tiny_model_dir)}), "exactly one"),
        (json.dumps({}), "exactly one"),
        (json.dumps({"model_path": str(tiny_model_dir.parent / "nowhere")}), ""),  # not a model folder
        (json.dumps({"hub_id": "org/m", "recipe": {"epochs": 0}}), "recipe.epochs"),  # out of bounds
        (json.dumps({"hub_id": "org/m", "recipe": {"epoch": 3}}), "recipe.epoch"),  # unknown setting
        (json.dumps({"hub_id": "org/m", "extra": 1}), "extra"),
    ):
        r = api.post("/api/projects/upload", data={"name": "up", "base_model": bad}, files=archive)
        assert r.status_code == 422, (bad, r.text)
        assert needle.lower() in r.json()["detail"].lower(), (bad, r.text)
    assert api.get("/api/projects").json()["items"] == []  # nothing was made
    uploads = api.settings.uploads_dir
    assert not uploads.exists() or not any(uploads.iterdir())  # refused before the archive was saved

    base = {"hub_id": "sentence-transformers/all-MiniLM-L6-v2", "recipe": {"epochs": 3, "batch_size": 8}}
    r = api.post("/api/projects/upload", data={"name": "up", "base_model": json.dumps(base)}, files=archive)
    assert r.status_code == 201, r.text
    assert r.json()["base_model"] == {
        "source": "sentence-transformers/all-MiniLM-L6-v2",
        "kind": "hub",
        "recipe": {"epochs": 3, "batch_size": 8},
    }
    assert r.json()["model_source"] == "upload:model.tar.gz"
    got = api.get(f"/api/projects/{r.json()['id']}").json()["base_model"]
    assert got["source"] == "sentence-transformers/all-MiniLM-L6-v2"

    # without the field (or with it empty) the project records none, as before
    r = api.post("/api/projects/upload", data={"name": "up2", "base_model": ""}, files=archive)
    assert r.status_code == 201 and r.json()["base_model"] is None, r.text
    assert not any(uploads.iterdir())


def test_set_later_show_forget_and_the_retrain_follows(api: Api, project: dict, tiny_model_dir: Path):
    pid = project["id"]
    assert project["base_model"] is None
    _mark(api, project)
    # no base model: the deletion_base control is refused, and no job is made
    r = api.post(f"/api/projects/{pid}/jobs/retrain", json=RETRAIN)
    assert r.status_code == 422 and "base model" in r.text, r.text
    assert api.sent == []

    # a Hub id is checked for its syntax only (fetched when the control runs)
    r = api.put(f"/api/projects/{pid}/base-model", json={"hub_id": "sentence-transformers/all-MiniLM-L6-v2"})
    assert r.status_code == 200, r.text
    assert r.json()["base_model"] == {"source": "sentence-transformers/all-MiniLM-L6-v2", "kind": "hub", "recipe": {}}
    # a bad replacement changes nothing
    for bad in ({"hub_id": "a/b/c"}, {"model_path": "../x"}, {}, {"hub_id": "org/m", "extra": 1}):
        r = api.put(f"/api/projects/{pid}/base-model", json=bad)
        assert r.status_code == 422, (bad, r.text)
    assert api.get(f"/api/projects/{pid}").json()["base_model"]["source"] == "sentence-transformers/all-MiniLM-L6-v2"

    body = {"model_path": str(tiny_model_dir), "recipe": {"epochs": 1, "batch_size": 4}}
    r = api.put(f"/api/projects/{pid}/base-model", json=body)
    assert r.status_code == 200 and r.json()["base_model"]["kind"] == "path", r.text
    r = api.post(f"/api/projects/{pid}/jobs/retrain", json=RETRAIN)
    assert r.status_code == 202, r.text
    assert api.sent[-1][0].params["controls"] == ["deletion_base"]

    # only an admin records it; a viewer sees it
    r = api.put(f"/api/projects/{pid}/base-model", json={"hub_id": "org/m"}, role="annotator")
    assert r.status_code == 403
    assert api.get(f"/api/projects/{pid}", role="viewer").json()["base_model"]["source"] == str(tiny_model_dir)

    r = api.delete(f"/api/projects/{pid}/base-model")
    assert r.status_code == 200 and r.json()["base_model"] is None
    assert api.delete(f"/api/projects/{pid}/base-model").status_code == 200  # forgetting twice is fine
    r = api.post(f"/api/projects/{pid}/jobs/retrain", json=RETRAIN)
    assert r.status_code == 422 and "base model" in r.text


def test_server_paths_follow_the_operators_opt_in(engine, db, tmp_path: Path, tiny_model_dir: Path):
    """With local paths off, a base model path is refused like a model path, and the error names no folder."""
    settings = make_settings(tmp_path, allow_local_model_paths=False)
    admin = users_service.create_user(db_session=db, name="base-admin", role=Role.ADMIN)
    h = {"Authorization": f"Bearer {users_service.create_token(db_session=db, user=admin)[1]}"}
    app = create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)
    with TestClient(app) as c:
        r = c.post(
            "/api/projects",
            headers=h,
            json={"name": "p", "hub_id": "org/m", "base_model": {"model_path": str(tiny_model_dir)}},
        )
        assert r.status_code == 422 and "XMD_ALLOW_LOCAL_MODEL_PATHS" in r.text, r.text
        assert str(tiny_model_dir) not in r.text
        assert c.get("/api/projects", headers=h).json()["items"] == []
