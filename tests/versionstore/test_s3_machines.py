"""S3Store as several machines use it: each with its own size-capped cache, one bucket between them.
The bucket is a real S3-compatible server on loopback (moto in server mode; no S3 service can run here)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from s3server import SECRET, S3Server
from versionhelpers import make_version, read_tree
from xmd.config import Settings
from xmd.storage import S3Store, StorageError, VersionCache, VersionNotFoundError, open_store
from xmd.storage import s3 as s3mod

MB = 1 << 20


def test_a_version_written_on_one_machine_loads_on_another(make_s3: Callable[..., S3Store], tmp_path: Path) -> None:
    api, worker = make_s3(), make_s3()
    files = {"config.json": b"{}", "model.safetensors": b"w" * 5000}
    worker.put("p1/v2", make_version(tmp_path / "out", files))
    local = api.materialise("p1/v2")
    assert local.is_relative_to(api.cache.root)
    assert read_tree(local) == files
    assert worker.cache.entries() == []  # the writer cached nothing; the reader fetched into its own cache
    assert api.materialise("p1/v2") == local  # a hit: same folder, no second download


def test_the_cache_evicts_least_recently_used_versions_to_stay_under_its_cap(
    make_s3: Callable[..., S3Store], tmp_path: Path
) -> None:
    writer = make_s3()
    for v in (1, 2, 3):
        writer.put(f"p1/v{v}", make_version(tmp_path / f"v{v}", {"w.bin": bytes([v]) * MB}))
    reader = make_s3(cache_bytes=int(2.5 * MB))
    first = reader.materialise("p1/v1")
    reader.materialise("p1/v2")
    reader.materialise("p1/v1")  # v1 is now more recently used than v2
    reader.materialise("p1/v3")
    cached = sorted(p.name.split("@")[0] for p, _, _ in reader.cache.entries())
    assert cached == ["p1+v1", "p1+v3"]
    assert reader.cache.total_bytes() <= reader.cache.max_bytes
    assert read_tree(first) == {"w.bin": b"\x01" * MB}
    assert read_tree(reader.materialise("p1/v2")) == {"w.bin": b"\x02" * MB}  # evicted, fetched again
    assert sorted(p.name.split("@")[0] for p, _, _ in reader.cache.entries()) == ["p1+v2", "p1+v3"]


def test_a_version_larger_than_the_cap_still_loads_alone(make_s3: Callable[..., S3Store], tmp_path: Path) -> None:
    writer = make_s3()
    writer.put("p1/v1", make_version(tmp_path / "small", {"w.bin": b"s" * 1000}))
    writer.put("p1/v2", make_version(tmp_path / "big", {"w.bin": b"b" * (2 * MB)}))
    reader = make_s3(cache_bytes=MB)
    reader.materialise("p1/v1")
    big = reader.materialise("p1/v2")
    assert read_tree(big) == {"w.bin": b"b" * (2 * MB)}
    assert [p for p, _, _ in reader.cache.entries()] == [big]


def test_processes_sharing_a_cache_fill_it_once(make_s3: Callable[..., S3Store], tmp_path: Path) -> None:
    writer = make_s3()
    writer.put("p1/v1", make_version(tmp_path / "v", {"w.bin": b"x" * MB}))
    shared = tmp_path / "machine-cache"
    readers = [make_s3(cache_dir=shared) for _ in range(4)]
    got: list[Path] = []
    threads = [threading.Thread(target=lambda r=r: got.append(r.materialise("p1/v1"))) for r in readers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4 and len(set(got)) == 1
    assert len(readers[0].cache.entries()) == 1
    assert [p.name for p in shared.iterdir() if p.name.startswith(".tmp-")] == []


def test_a_deleted_and_rewritten_version_is_never_served_from_an_old_cache(
    make_s3: Callable[..., S3Store], tmp_path: Path
) -> None:
    writer, reader = make_s3(), make_s3()
    writer.put("p1/v1", make_version(tmp_path / "a", {"w.bin": b"old"}))
    assert read_tree(reader.materialise("p1/v1")) == {"w.bin": b"old"}
    writer.delete("p1/v1")
    with pytest.raises(VersionNotFoundError):
        reader.materialise("p1/v1")
    writer.put("p1/v1", make_version(tmp_path / "b", {"w.bin": b"new"}))
    assert read_tree(reader.materialise("p1/v1")) == {"w.bin": b"new"}
    assert len(reader.cache.entries()) == 1  # the old upload's copy is gone


def test_a_corrupted_object_is_detected_and_nothing_half_cached(
    make_s3: Callable[..., S3Store], s3_env: S3Server, tmp_path: Path
) -> None:
    writer, reader = make_s3(), make_s3()
    writer.put("p1/v1", make_version(tmp_path / "v", {"a.bin": b"a" * 100, "w.bin": b"w" * 100}))
    name = next(
        o["Key"] for o in writer.client.list_objects_v2(Bucket=writer.bucket)["Contents"] if o["Key"].endswith("/w.bin")
    )
    s3_env.client().put_object(Bucket=writer.bucket, Key=name, Body=b"x" * 100)
    with pytest.raises(StorageError, match="does not match its manifest"):
        reader.materialise("p1/v1")
    assert reader.cache.entries() == []
    assert [p.name for p in reader.cache.root.iterdir() if p.name.startswith(".tmp-")] == []


def test_a_dead_writers_upload_is_invisible_and_delete_clears_it(
    make_s3: Callable[..., S3Store], s3_env: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_s3()
    orphan = f"{store.prefix}/p1/v1/.data-deadbeef/w.bin"
    s3_env.client().put_object(Bucket=store.bucket, Key=orphan, Body=b"half")
    assert not store.exists("p1/v1") and store.list() == []
    store.put("p1/v1", make_version(tmp_path / "v", {"w.bin": b"whole"}))
    assert read_tree(store.materialise("p1/v1")) == {"w.bin": b"whole"}
    monkeypatch.setattr(s3mod, "ORPHAN_AFTER_S", -60.0)  # as if an hour had passed
    assert store.delete("p1/v1")
    assert store.client.list_objects_v2(Bucket=store.bucket).get("KeyCount") == 0


def test_credentials_reach_no_log_message_or_repr(
    make_s3: Callable[..., S3Store], s3_env: S3Server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # botocore included: it logs requests and headers at DEBUG
    store = make_s3()
    store.put("p1/v1", make_version(tmp_path / "v", {"w.bin": b"x"}))
    store.materialise("p1/v1")
    store.delete("p1/v1")
    texts = [caplog.text, repr(store), str(Settings(data_dir=tmp_path, storage_url=store.url).storage)]
    with pytest.raises(VersionNotFoundError) as missing:
        store.materialise("p1/v1")
    texts.append(str(missing.value))
    denied = S3Store("no-such-bucket", cache=store.cache, endpoint_url=s3_env.endpoint_url)
    with pytest.raises(StorageError) as failed:
        denied.put("p1/v1", make_version(tmp_path / "w", {"w.bin": b"x"}))
    texts.append(str(failed.value))
    assert "NoSuchBucket" in texts[-1]
    assert "stored version p1/v1" in caplog.text  # the logs were captured, and said something
    for text in texts:
        assert SECRET not in text
    with pytest.raises(ValueError) as bad:
        S3Store("b", cache=store.cache, endpoint_url=f"http://key:{SECRET}@127.0.0.1:9")
    assert SECRET not in str(bad.value)


def test_no_credentials_is_a_clear_error(make_s3: Callable[..., S3Store], monkeypatch: pytest.MonkeyPatch) -> None:
    store = make_s3()
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    with pytest.raises(StorageError, match="no S3 credentials"):
        store.exists("p1/v1")


def test_the_factory_builds_the_store_the_settings_name(s3_env: S3Server, tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path, storage_url="s3://models-bucket/team/xmd", s3_endpoint_url=s3_env.endpoint_url
    )
    store = open_store(settings.storage)
    assert isinstance(store, S3Store)
    assert (store.bucket, store.prefix, store.endpoint_url) == ("models-bucket", "team/xmd", s3_env.endpoint_url)
    assert store.cache.root == tmp_path / "version-cache" and isinstance(store.cache, VersionCache)
