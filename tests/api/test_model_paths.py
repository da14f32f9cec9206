"""Where a project's model may come from (issue 13, secrets/paths): server paths only with the
operator's opt-in, never ``..`` or a symlink out of the allowed root, ``hub_id`` only as a Hub id, and
no error that tells whether a server folder exists. SQLite and PostgreSQL."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from apihelpers import Api, make_settings
from fastapi.testclient import TestClient
from xmd.app import create_app
from xmd.config import Settings
from xmd.users import service as users_service
from xmd.users.models import Role


def _client(engine, db, settings: Settings) -> tuple[TestClient, dict[str, str]]:
    user = users_service.get_by_name(db_session=db, name="paths-admin") or users_service.create_user(
        db_session=db, name="paths-admin", role=Role.ADMIN
    )
    token = users_service.create_token(db_session=db, user=user)[1]
    app = create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)
    return TestClient(app), {"Authorization": f"Bearer {token}"}


def test_local_paths_are_off_by_default(monkeypatch):
    monkeypatch.delenv("XMD_ALLOW_LOCAL_MODEL_PATHS", raising=False)
    assert Settings().allow_local_model_paths is False
    assert Settings.from_env().allow_local_model_paths is False


def test_without_opt_in_no_server_path_is_loaded(engine, db, tmp_path: Path, tiny_model_dir: Path):
    settings = Settings(data_dir=tmp_path / "data")  # the default: no local paths
    client, h = _client(engine, db, settings)
    rel = Path("..") / Path(*([".."] * len(tiny_model_dir.parts))) / tiny_model_dir.relative_to("/")
    with client:
        for body in (
            {"model_path": str(tiny_model_dir)},  # absolute
            {"model_path": str(rel)},  # relative, climbing out
            {"model_path": "model"},  # relative to wherever the server runs
            {"hub_id": "../" + str(tiny_model_dir)},
            {"hub_id": str(tiny_model_dir)},
            {"hub_id": "./model"},
        ):
            r = client.post("/api/projects", headers=h, json={"name": "p", **body})
            assert r.status_code == 422, (body, r.text)
            assert str(tiny_model_dir) not in r.text and str(tiny_model_dir.parent) not in r.text, r.text
        assert client.get("/api/projects", headers=h).json()["items"] == []


def test_opt_in_refuses_dotdot_and_symlink_escape(engine, db, tmp_path: Path, tiny_model_dir: Path):
    root = tmp_path / "models"
    root.mkdir()
    shutil.copytree(tiny_model_dir, root / "tiny")
    (root / "escape").symlink_to(tiny_model_dir, target_is_directory=True)  # points outside the root
    settings = make_settings(tmp_path, allow_local_model_paths=True, local_model_root=root)
    client, h = _client(engine, db, settings)
    with client:
        for path in ("escape", "tiny/../tiny", "../models/tiny", str(tiny_model_dir), "nothing-here"):
            r = client.post("/api/projects", headers=h, json={"name": "p", "model_path": path})
            assert r.status_code == 422, (path, r.text)
            assert str(root) not in r.text and str(tiny_model_dir) not in r.text, r.text
        # a missing folder and a forbidden one read the same: no existence oracle
        missing = client.post("/api/projects", headers=h, json={"name": "p", "model_path": "nothing-here"})
        escape = client.post("/api/projects", headers=h, json={"name": "p", "model_path": "escape"})
        assert missing.json()["detail"] == escape.json()["detail"]
        ok = client.post("/api/projects", headers=h, json={"name": "p", "model_path": "tiny"})
        assert ok.status_code == 201, ok.text
        absolute = client.post("/api/projects", headers=h, json={"name": "q", "model_path": str(root / "tiny")})
        assert absolute.status_code == 201, absolute.text  # absolute is fine when it lies inside the root


@pytest.mark.parametrize("hub_id", ["../x", "/etc", "a/b/c", "a//b", "-a/b", "a/b.", "a..b/c", ".", "a/b\x00"])
def test_hub_id_must_be_a_hub_id(api: Api, hub_id: str):
    r = api.post("/api/projects", json={"name": "p", "hub_id": hub_id})
    assert r.status_code == 422
    said = ("Hub id", "string_pattern", "at most", "NUL byte")  # a NUL is refused before the Hub-id rule
    assert any(s in json.dumps(r.json()) for s in said), r.text


def test_hub_id_never_loads_a_server_folder(api: Api, tiny_model_dir: Path, monkeypatch):
    """A Hub-shaped id that is also a folder relative to the server's working directory is still
    looked up on the Hub (offline here: refused), never loaded from the folder."""
    monkeypatch.chdir(tiny_model_dir.parent.parent)
    hub_like = f"{tiny_model_dir.parent.name}/{tiny_model_dir.name}"
    assert (Path(hub_like) / "config.json").is_file()
    r = api.post("/api/projects", json={"name": "p", "hub_id": hub_like})
    assert r.status_code == 422 and "Hugging Face Hub" in r.json()["detail"], r.text
    assert str(tiny_model_dir) not in r.text
    assert api.get("/api/projects").json()["items"] == []
