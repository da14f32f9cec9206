"""Two machines that share only the database, the broker and a bucket: a worker writes a new model
version into the bucket and the API, with a data directory of its own, serves it for download.

The bucket is moto's S3-compatible server in server mode on loopback (no S3 service can run or be
reached here; see tests/s3server.py); the database is PostgreSQL and the broker Redis, as across
machines (SQLite and the embedded broker are files on one machine). The two "machines" are two data
directories, so neither can read the other's files.
"""

from __future__ import annotations

import dataclasses
import io
import json
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from apihelpers import demo_csv
from fastapi.testclient import TestClient
from s3server import S3Server, start_s3_server
from workerstack import REDIS_URL, Stack
from xmd.app import create_app
from xmd.db import make_engine
from xmd.storage import S3Store, VersionCache
from xmd.users import service as users


@pytest.fixture(scope="module")
def s3_server() -> Iterator[S3Server]:
    server = start_s3_server()
    try:
        yield server
    finally:
        server.stop()


def read_tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_version_a_worker_writes_to_the_bucket_is_downloaded_through_the_api(
    db_url: str, s3_server: S3Server, tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        pytest.fail(f"Redis at {REDIS_URL} is required but not reachable: {exc} (.ci/run starts it)")
    for name, value in s3_server.env.items():  # credentials where boto3's chain finds them; workers inherit them
        monkeypatch.setenv(name, value)
    bucket = s3_server.new_bucket()
    stack = Stack.create(
        tmp_path / "worker-machine",
        database_url=db_url,
        broker_url=REDIS_URL,
        storage_url=f"s3://{bucket}/xmd",
        s3_endpoint_url=s3_server.endpoint_url,
    )
    api_settings = dataclasses.replace(stack.settings, data_dir=tmp_path / "api-machine")
    engine = make_engine(stack.database_url)
    try:
        stack.start_worker("s3-w1")
        with stack.factory() as db:
            admin = users.create_user(db_session=db, name="s3-admin", role="admin")
            h = {"Authorization": f"Bearer {users.create_token(db_session=db, user=admin)[1]}"}
        with TestClient(create_app(api_settings, engine=engine, serve_ui=False)) as c:
            p = c.post("/api/projects", headers=h, json={"name": "shared", "model_path": str(tiny_model_dir)})
            assert p.status_code == 201, p.text
            pid = p.json()["id"]
            r = c.post(
                f"/api/projects/{pid}/datasets",
                headers=h,
                files={"file": ("train.csv", demo_csv(n=16, split="train"))},
                data={"name": "train", "role": "train", "id_column": "id"},
            )
            assert r.status_code == 201, r.text
            assert c.put(
                f"/api/projects/{pid}/task-feedback", headers=h, json={"word": "spielberg", "action": "remove"}
            )
            r = c.post(f"/api/projects/{pid}/jobs/retrain", headers=h, json={"epochs": 1, "batch_size": 4})
            assert r.status_code == 202, r.text
            job_id = r.json()["id"]
            deadline = time.monotonic() + 180
            while (job := c.get(f"/api/jobs/{job_id}", headers=h).json())["status"] not in ("succeeded", "failed"):
                assert time.monotonic() < deadline, (job, stack.all_logs())
                time.sleep(0.2)
            assert job["status"] == "succeeded", (job, stack.all_logs())
            v2 = job["result"]["version_id"]
            assert job["result"]["path"] == f"s3://{bucket}/xmd/p{pid}/v2"

            got = c.get(f"/api/versions/{v2}/download", headers=h)
            assert got.status_code == 200, got.text
            with tarfile.open(fileobj=io.BytesIO(got.content), mode="r:gz") as tf:
                tf.extractall(tmp_path / "downloaded", filter="data")

        # What the API sent is what the worker stored, read back by a third machine with a fresh cache.
        reader = S3Store(
            bucket, "xmd", cache=VersionCache(tmp_path / "reader", 1 << 30), endpoint_url=s3_server.endpoint_url
        )
        assert reader.list() == [f"p{pid}/v1", f"p{pid}/v2"]
        stored = read_tree(reader.materialise(f"p{pid}/v2"))
        (folder,) = (tmp_path / "downloaded").iterdir()
        assert read_tree(folder) == stored and "config.json" in stored
        assert json.loads(stored["xmd.json"])["out_dir"] == f"s3://{bucket}/xmd/p{pid}/v2"  # not the scratch

        from transformers import AutoModelForSequenceClassification

        model = AutoModelForSequenceClassification.from_pretrained(folder)
        assert model.config.id2label == {0: "negative", 1: "positive"}
        # No version folder on either machine: the worker built v2 in scratch space and uploaded it,
        # fetching v1 (written by the API) into its own cache to train from.
        assert not (stack.settings.data_dir / "models").exists()
        assert not (api_settings.data_dir / "models").exists()
        # (The retrain's follow-up explain job may already have fetched v2 from the bucket as well.)
        cached = {p.name.split("@")[0] for p, _, _ in VersionCache(stack.settings.storage.cache_dir, 1).entries()}
        assert f"p{pid}+v1" in cached and cached <= {f"p{pid}+v1", f"p{pid}+v2"}, cached
        assert VersionCache(api_settings.storage.cache_dir, 1).entries() == []  # the download streamed
    finally:
        stack.stop_all(grace=0)
        engine.dispose()
