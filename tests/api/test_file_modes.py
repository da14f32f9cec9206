"""Data files are the owner's only (issue 13): the API tightens what an older version left readable in
the data dir, and what it writes itself (uploads, model versions) is 0600/0700. ``xmd serve`` with its
worker and embedded broker is checked in tests/integration/test_serve_signals.py."""

from __future__ import annotations

import os
from pathlib import Path

from apihelpers import Api, make_settings
from fastapi.testclient import TestClient
from xmd.app import create_app


def _shared(root: Path) -> list[str]:
    return [
        f"{p.relative_to(root.parent)} {p.stat().st_mode & 0o777:o}"
        for p in (root, *root.rglob("*"))
        if p.stat().st_mode & 0o077
    ]


def test_api_start_makes_old_data_files_private(engine, tmp_path: Path):
    settings = make_settings(tmp_path)
    old = os.umask(0o022)
    try:
        settings.data_dir.mkdir(mode=0o755)
        (settings.data_dir / "broker.db").write_bytes(b"job message")
        (settings.data_dir / "models").mkdir(mode=0o755)
    finally:
        os.umask(old)
    os.chmod(settings.data_dir, 0o755)
    os.chmod(settings.data_dir / "broker.db", 0o644)
    assert _shared(settings.data_dir)
    with TestClient(create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)):
        pass
    assert _shared(settings.data_dir) == []


def test_what_the_api_writes_is_private(api: Api, project):
    """A project (its model copied into the data dir) and two uploaded datasets, all 0600/0700."""
    data_dir = api.settings.data_dir
    assert any(data_dir.rglob("*.safetensors"))
    assert _shared(data_dir) == []
