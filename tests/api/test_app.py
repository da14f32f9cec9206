"""The API skeleton on a real migrated SQLite file: start-up checks, health, bearer-token auth and the
`xmd db` / `xmd users` commands that create the schema and the first admin."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from xmd.app import create_app
from xmd.cli import main
from xmd.config import Settings
from xmd.db.engine import make_engine
from xmd.db.errors import SchemaNotMigratedError


@pytest.fixture()
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("XMD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("XMD_DATABASE_URL", raising=False)
    return tmp_path


def test_app_refuses_an_unmigrated_database_and_names_the_fix(env):
    app = create_app(Settings.from_env())
    with pytest.raises(SchemaNotMigratedError, match="xmd db upgrade"), TestClient(app):
        pass


def test_cli_migrates_creates_an_admin_and_the_token_works(env, capsys):
    assert main(["db", "upgrade", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["revisions"]
    assert main(["users", "create", "ada", "--role", "admin", "--json"]) == 0
    created = json.loads(capsys.readouterr().out)
    token = created["token"]
    assert token.startswith("xmd_") and created["role"] == "admin"

    with TestClient(create_app(Settings.from_env())) as client:
        assert client.get("/api/health").json()["status"] == "ok"
        assert client.get("/api/me").status_code == 401
        bad = client.get("/api/me", headers={"Authorization": "Bearer xmd_not-a-real-token"})
        assert bad.status_code == 401 and "invalid" in bad.json()["detail"]
        me = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status_code == 200 and me.json()["name"] == "ada" and me.json()["role"] == "admin"

    # the secret is stored only as a hash
    engine = make_engine(None, data_dir_path=env / "data")
    with engine.connect() as conn:
        stored = [r[0] for r in conn.exec_driver_sql("select token_hash from api_tokens")]
    assert token not in stored and len(stored[0]) == 64


def test_cli_user_errors(env, capsys):
    assert main(["users", "list"]) == 2  # not migrated yet: one clear line
    assert "xmd db upgrade" in capsys.readouterr().err
    main(["db", "upgrade"])
    capsys.readouterr()
    assert main(["users", "token", "nobody"]) == 2
    assert "no user named" in capsys.readouterr().err
