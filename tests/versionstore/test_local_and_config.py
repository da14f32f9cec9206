"""LocalStore keeps today's folder layout (existing data dirs keep working), and the one factory picks
the store from ``XMD_STORAGE``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from versionhelpers import make_version, read_tree
from xmd.config import Settings
from xmd.storage import LocalStore, S3Store, StorageConfig, VersionExistsError, open_store, shared_store, version_key


def test_versions_land_where_they_always_did(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "models")
    store.put(version_key(3, 2), make_version(tmp_path / "src", {"config.json": b"{}"}))
    assert (tmp_path / "models" / "p3" / "v2" / "config.json").read_bytes() == b"{}"
    assert store.materialise("p3/v2") == tmp_path / "models" / "p3" / "v2"  # no copy: the folder itself


def test_a_folder_written_before_the_store_existed_is_a_version(tmp_path: Path) -> None:
    make_version(tmp_path / "models" / "p1" / "v1", {"config.json": b"{}", "model.safetensors": b"w"})
    (tmp_path / "models" / "p1" / ".v2.partial-123-456").mkdir()  # a retrain killed mid-save
    store = LocalStore(tmp_path / "models")
    assert store.list() == ["p1/v1"]
    assert store.exists("p1/v1") and not store.exists("p1/v2")


def test_an_empty_folder_is_not_a_version_and_a_put_may_fill_it(tmp_path: Path) -> None:
    (tmp_path / "models" / "p1" / "v1").mkdir(parents=True)
    store = LocalStore(tmp_path / "models")
    assert not store.exists("p1/v1")
    store.put("p1/v1", make_version(tmp_path / "src", {"w.bin": b"x"}))
    assert read_tree(store.materialise("p1/v1")) == {"w.bin": b"x"}


def test_put_by_move_renames_and_gives_the_source_back_on_failure(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "models")
    first = make_version(tmp_path / "scratch-a", {"w.bin": b"a"})
    store.put("p1/v1", first, move=True)
    assert not first.exists() and read_tree(store.materialise("p1/v1")) == {"w.bin": b"a"}
    second = make_version(tmp_path / "scratch-b", {"w.bin": b"b"})
    store.put("p1/v2", second)  # the key is free: this one copies
    third = make_version(tmp_path / "scratch-c", {"w.bin": b"c"})
    with pytest.raises(VersionExistsError):
        store.put("p1/v2", third, move=True)
    assert read_tree(third) == {"w.bin": b"c"}  # not lost
    assert read_tree(store.materialise("p1/v2")) == {"w.bin": b"b"}


def storage_from_env(monkeypatch: pytest.MonkeyPatch, data_dir: Path, env: dict[str, str]) -> StorageConfig:
    """What ``Settings.from_env`` (the one reader of the environment) makes of these variables."""
    for name in [n for n in os.environ if n.startswith("XMD_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("XMD_DATA_DIR", str(data_dir))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings.from_env().storage


def test_the_default_is_the_models_folder_of_the_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = storage_from_env(monkeypatch, tmp_path, {})
    store = open_store(config)
    assert isinstance(store, LocalStore) and store.root == tmp_path.resolve() / "models"
    assert config.cache_dir == tmp_path.resolve() / "version-cache"
    assert Settings(data_dir=tmp_path.resolve()).storage == config


@pytest.mark.parametrize("url", ["file:///srv/xmd/versions", "/srv/xmd/versions", "file://localhost/srv/xmd/versions"])
def test_a_folder_url_gives_a_local_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    store = open_store(storage_from_env(monkeypatch, tmp_path, {"XMD_STORAGE": url}))
    assert isinstance(store, LocalStore) and store.root == Path("/srv/xmd/versions")


def test_an_s3_url_gives_an_s3_store_without_touching_the_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        "XMD_STORAGE": "s3://bucket/a/b/",
        "XMD_S3_REGION": "eu-west-1",
        "XMD_STORAGE_CACHE_DIR": str(tmp_path / "c"),
        "XMD_STORAGE_CACHE_MB": "64",
    }
    config = storage_from_env(monkeypatch, tmp_path, env)
    store = open_store(config)
    assert isinstance(store, S3Store)
    assert (store.url, store.region, store.endpoint_url, store.cache.root, store.cache.max_bytes) == (
        "s3://bucket/a/b",
        "eu-west-1",
        None,
        tmp_path / "c",
        64 << 20,
    )
    # a worker started by the API rebuilds the same store from the variables it is handed
    assert storage_from_env(monkeypatch, tmp_path / "elsewhere", Settings.from_env().to_env()) == config


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"XMD_STORAGE": "ftp://host/x"}, "not ftp://"),
        ({"XMD_STORAGE": "s3:///prefix"}, "need a bucket"),
        ({"XMD_STORAGE": "s3://user:pw@bucket/p"}, "must not carry credentials"),
        ({"XMD_STORAGE": "file://otherhost/x"}, "local folder"),
        ({"XMD_STORAGE": "s3://b/../x"}, "invalid version key"),
        ({"XMD_STORAGE_CACHE_MB": "lots"}, "must be an integer"),
        ({"XMD_STORAGE_CACHE_MB": "0"}, "must be positive"),
        ({"XMD_S3_ENDPOINT_URL": "ftp://127.0.0.1"}, "http"),
    ],
)
def test_bad_configuration_is_refused_with_a_clear_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        open_store(storage_from_env(monkeypatch, tmp_path, env))


def test_a_process_shares_one_store_per_configuration(tmp_path: Path) -> None:
    a = Settings(data_dir=tmp_path).storage
    assert shared_store(a) is shared_store(Settings(data_dir=tmp_path).storage)
    assert shared_store(Settings(data_dir=tmp_path / "other").storage) is not shared_store(a)
