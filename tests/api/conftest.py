"""API fixtures: the real app on a real migrated database (every module on SQLite and on PostgreSQL),
a token per role, and a project made from the tiny BERT with a small demo dataset.

Jobs are recorded instead of sent to a broker here (``sent``): what workers do with them is tested in
tests/workers with real Celery workers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from apihelpers import Api, demo_csv, make_settings
from dbfixtures import db, db_url, dialect, engine, session_factory
from fastapi.testclient import TestClient
from xmd.app import create_app
from xmd.config import Settings
from xmd.jobs.models import Job
from xmd.users import service as users_service
from xmd.users.models import Role

__all__ = ["Api", "db", "db_url", "demo_csv", "dialect", "engine", "make_settings", "session_factory"]


@pytest.fixture()
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path, max_upload_mb=2, max_text_chars=2000)


@pytest.fixture()
def api(engine, db, settings: Settings) -> Iterator[Api]:
    """The app with one user per role; jobs are recorded in ``api.sent``."""
    tokens = {}
    for role in Role:
        user = users_service.create_user(db_session=db, name=f"{role.value}-user", role=role)
        tokens[role.value] = users_service.create_token(db_session=db, user=user)[1]
    sent: list[tuple[Job, dict[str, str] | None]] = []
    app = create_app(
        settings, engine=engine, enqueue=lambda job, secrets=None: sent.append((job, secrets)), serve_ui=False
    )
    with TestClient(app) as client:
        yield Api(client=client, tokens=tokens, sent=sent, settings=settings)


@pytest.fixture()
def project(api: Api, tiny_model_dir: Path) -> dict[str, Any]:
    """A project on the tiny BERT with a 40-example train set and a 40-example eval set."""
    r = api.client.post("/api/projects", headers=api.h(), json={"name": "demo", "model_path": str(tiny_model_dir)})
    assert r.status_code == 201, r.text
    proj = r.json()
    for name, role, split in (("train", "train", "train"), ("clean", "eval", "test_clean")):
        r = api.post(
            f"/api/projects/{proj['id']}/datasets",
            files={"file": (f"{name}.csv", demo_csv(split=split), "text/csv")},
            data={"name": name, "role": role, "id_column": "id"},
        )
        assert r.status_code == 201, r.text
        proj[name] = r.json()
    return proj
