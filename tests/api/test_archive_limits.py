"""Model archives cannot fill the disk (issue 13, zip bomb): a cap on the total unpacked size and on the
compression ratio, 413 and nothing kept; leftover temp folders of a crashed process go at start-up."""

from __future__ import annotations

import io
import os
import tarfile
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from apihelpers import Api, make_settings
from sqlalchemy import func, select
from xmd.config import Settings
from xmd.projects.models import Project

ZEROS_MB = 64


@pytest.fixture()
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path, max_upload_mb=8, max_unpacked_mb=32)


def _model_zip(model: Path, extra: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for f in model.iterdir():
            zf.write(f, f"m/{f.name}")
        for name, data in extra.items():
            zf.writestr(f"m/{name}", data)
    return buf.getvalue()


def _model_tgz(model: Path, extra: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        tf.add(model, arcname="m")
        for name, data in extra.items():
            info = tarfile.TarInfo(f"m/{name}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _projects(db) -> int:
    return db.scalar(select(func.count()).select_from(Project))


def _left(api: Api) -> list[Path]:
    return list(api.settings.uploads_dir.rglob("*")) if api.settings.uploads_dir.exists() else []


@pytest.mark.parametrize("pack", [_model_zip, _model_tgz], ids=["zip", "tar.gz"])
def test_compression_bomb_is_413_and_leaves_nothing(api: Api, tiny_model_dir: Path, db, pack):
    bomb = pack(tiny_model_dir, {"padding.bin": bytes(ZEROS_MB << 20)})  # 64 MB of zeros in well under 1 MB
    assert len(bomb) < (1 << 20)
    r = api.post("/api/projects/upload", data={"name": "bomb"}, files={"archive": ("m.bin", bomb)})
    assert r.status_code == 413, r.text[:500]
    assert "XMD_MAX_UNPACKED_MB" in r.json()["detail"] and "20x" in r.json()["detail"]
    assert _projects(db) == 0
    assert _left(api) == []


def test_total_unpacked_size_is_capped(api: Api, tiny_model_dir: Path, db):
    """Within the ratio (random bytes do not compress) but over a total of 2 MB."""
    api.client.app.state.settings = replace(api.settings, max_unpacked_mb=2)
    archive = _model_tgz(tiny_model_dir, {"noise.bin": os.urandom(3 << 20)})
    r = api.post("/api/projects/upload", data={"name": "big"}, files={"archive": ("m.tar.gz", archive)})
    assert r.status_code == 413, r.text[:500]
    assert "2 MB in all" in r.json()["detail"]
    assert _projects(db) == 0 and _left(api) == []


def test_a_normal_model_archive_still_works(api: Api, tiny_model_dir: Path, db):
    r = api.post(
        "/api/projects/upload",
        data={"name": "fine"},
        files={"archive": ("m.zip", _model_zip(tiny_model_dir, {"README.md": b"# a model\n" * 100}))},
    )
    assert r.status_code == 201, r.text
    assert _left(api) == []


def test_leftover_temp_folders_are_removed_at_start(engine, tmp_path: Path):
    from fastapi.testclient import TestClient
    from xmd.app import create_app

    settings = make_settings(tmp_path)
    uploads = settings.uploads_dir
    old, fresh = uploads / "upload-crashed", uploads / "upload-in-flight"
    for d in (old, fresh):
        (d / "model").mkdir(parents=True)
        (d / "model" / "weights.bin").write_bytes(b"x" * 1000)
    (uploads / "download-old.tar.gz").write_bytes(b"x")
    (uploads / "keep.txt").write_bytes(b"not ours")
    two_hours_ago = time.time() - 7200
    for p in (old, uploads / "download-old.tar.gz"):
        os.utime(p, (two_hours_ago, two_hours_ago))
    with TestClient(create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)):
        pass
    assert not old.exists() and not (uploads / "download-old.tar.gz").exists()
    assert fresh.exists() and (uploads / "keep.txt").exists()  # another process may still be using it
