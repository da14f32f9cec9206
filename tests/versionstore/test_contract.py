"""The version-store contract, run on both stores: LocalStore (a folder) and S3Store against a real
S3-compatible server on loopback (moto in server mode; no S3 service can run here)."""

from __future__ import annotations

import io
import tarfile
import threading
from pathlib import Path

import pytest
from versionhelpers import FILES, everything_stored, make_version, read_tree
from xmd.storage import (
    InvalidKeyError,
    LocalStore,
    StorageError,
    VersionExistsError,
    VersionNotFoundError,
    VersionStore,
    version_key,
)


def test_put_then_every_reader_sees_the_same_bytes(store: VersionStore, tmp_path: Path) -> None:
    src = make_version(tmp_path / "src", FILES)
    assert not store.exists("p3/v2")
    store.put("p3/v2", src)
    assert store.exists("p3/v2")
    assert store.list() == ["p3/v2"]
    assert [(f.path, f.size) for f in store.files("p3/v2")] == sorted((k, len(v)) for k, v in FILES.items())
    with store.open("p3/v2", "tokenizer/vocab.txt") as fh:
        assert fh.read() == FILES["tokenizer/vocab.txt"]
    assert read_tree(store.materialise("p3/v2")) == FILES
    buf = io.BytesIO()
    store.write_archive("p3/v2", buf, "demo-v2")
    buf.seek(0)
    with tarfile.open(fileobj=buf, mode="r:gz") as tf:
        tf.extractall(tmp_path / "unpacked", filter="data")
    assert read_tree(tmp_path / "unpacked" / "demo-v2") == FILES
    assert src.is_dir() and read_tree(src) == FILES  # put copies; the source is untouched


def test_a_materialised_version_loads_with_from_pretrained(
    store: VersionStore, tiny_model_dir: Path, tmp_path: Path
) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    store.put(version_key(1, 1), tiny_model_dir)
    local = store.materialise(version_key(1, 1))
    tok = AutoTokenizer.from_pretrained(local)
    batch = tok(["the movie was great"], return_tensors="pt")
    with torch.no_grad():
        got = AutoModelForSequenceClassification.from_pretrained(local)(**batch).logits
        want = AutoModelForSequenceClassification.from_pretrained(tiny_model_dir)(**batch).logits
    assert torch.equal(got, want)


def test_a_version_is_never_overwritten(store: VersionStore, tmp_path: Path) -> None:
    store.put("p1/v1", make_version(tmp_path / "a", {"w.bin": b"first"}))
    with pytest.raises(VersionExistsError):
        store.put("p1/v1", make_version(tmp_path / "b", {"w.bin": b"second", "extra.txt": b"x"}))
    assert read_tree(store.materialise("p1/v1")) == {"w.bin": b"first"}
    assert [f.path for f in store.files("p1/v1")] == ["w.bin"]


def test_of_racing_writers_exactly_one_wins_whole(store: VersionStore, tmp_path: Path) -> None:
    sources = [
        make_version(tmp_path / f"w{i}", {"a.bin": bytes([i]) * 4096, "b.bin": bytes([i]) * 10}) for i in range(4)
    ]
    barrier = threading.Barrier(len(sources))
    outcomes: list[str] = []

    def write(src: Path) -> None:
        barrier.wait()
        try:
            store.put("p9/v1", src)
            outcomes.append("stored")
        except VersionExistsError:
            outcomes.append("exists")

    threads = [threading.Thread(target=write, args=(s,)) for s in sources]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["exists", "exists", "exists", "stored"]
    got = read_tree(store.materialise("p9/v1"))
    assert got in [read_tree(s) for s in sources]  # one writer's files, never a mix
    if not isinstance(store, LocalStore):  # the losers removed their uploads
        assert len({n.split("/.data-")[1].split("/")[0] for n in everything_stored(store) if "/.data-" in n}) == 1


@pytest.mark.parametrize("fail_at", [1, 3])
def test_a_put_that_fails_midway_leaves_nothing_visible(
    store: VersionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int
) -> None:
    """The copy (LocalStore) or upload (S3Store) of one file fails after others went through: the disk
    filling up or the connection dropping, injected here at the store's per-file step."""
    name = "_copy_file" if isinstance(store, LocalStore) else "_upload_file"
    real = getattr(store, name)
    calls = {"n": 0}

    def flaky(*args: object) -> None:
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise OSError(28, "No space left on device")
        real(*args)

    monkeypatch.setattr(store, name, flaky)
    with pytest.raises(OSError, match="No space left"):
        store.put("p2/v1", make_version(tmp_path / "src", FILES))
    assert calls["n"] == fail_at
    assert not store.exists("p2/v1")
    assert store.list() == []
    with pytest.raises(VersionNotFoundError):
        store.materialise("p2/v1")
    assert everything_stored(store) == []
    monkeypatch.undo()
    store.put("p2/v1", make_version(tmp_path / "again", FILES))  # the key is still free
    assert read_tree(store.materialise("p2/v1")) == FILES


def test_an_unreadable_or_empty_source_is_refused_before_anything_is_written(
    store: VersionStore, tmp_path: Path
) -> None:
    src = make_version(tmp_path / "src", {"a.bin": b"a"})
    (src / "zz.bin").symlink_to(tmp_path / "gone")
    with pytest.raises(StorageError, match=r"zz\.bin"):
        store.put("p2/v1", src)
    (tmp_path / "empty").mkdir()
    with pytest.raises(StorageError, match="no files"):
        store.put("p2/v2", tmp_path / "empty")
    assert store.list() == [] and everything_stored(store) == []


def test_delete_removes_the_version_and_frees_its_key(store: VersionStore, tmp_path: Path) -> None:
    store.put("p4/v1", make_version(tmp_path / "a", {"w.bin": b"old"}))
    store.put("p4/v2", make_version(tmp_path / "b", {"w.bin": b"keep"}))
    store.materialise("p4/v1")
    assert store.delete("p4/v1") is True
    assert not store.exists("p4/v1")
    assert store.list() == ["p4/v2"]
    with pytest.raises(VersionNotFoundError):
        store.materialise("p4/v1")
    with pytest.raises(VersionNotFoundError):
        store.open("p4/v1", "w.bin")
    assert store.delete("p4/v1") is False
    store.put("p4/v1", make_version(tmp_path / "c", {"w.bin": b"new"}))
    assert read_tree(store.materialise("p4/v1")) == {"w.bin": b"new"}  # never the cached old bytes
    assert read_tree(store.materialise("p4/v2")) == {"w.bin": b"keep"}


def test_delete_under_removes_a_project_and_refuses_everything(store: VersionStore, tmp_path: Path) -> None:
    for key in ("p1/v1", "p1/v2", "p10/v1"):
        store.put(key, make_version(tmp_path / key, {"w.bin": key.encode()}))
    with pytest.raises(InvalidKeyError):
        store.delete_under("")
    assert store.delete_under("p1") == ["p1/v1", "p1/v2"]
    assert store.list() == ["p10/v1"]


def test_list_matches_whole_segments(store: VersionStore, tmp_path: Path) -> None:
    for key in ("p1/v1", "p1/v2", "p10/v1", "p2/v1"):
        store.put(key, make_version(tmp_path / key, {"w.bin": b"x"}))
    assert store.list() == ["p1/v1", "p1/v2", "p10/v1", "p2/v1"]
    assert store.list("p1") == ["p1/v1", "p1/v2"]
    assert store.list("p1/v2") == ["p1/v2"]
    assert store.list("p3") == []


UNSAFE_KEYS = ["", "/abs", "../up", "p1/../../etc", ".hidden/v1", "p1//v1", "p1/v1/", "a b"]


def test_unsafe_keys_are_refused_and_nothing_is_written(store: VersionStore, tmp_path: Path) -> None:
    src = make_version(tmp_path / "src", {"w.bin": b"x"})
    for key in UNSAFE_KEYS:
        with pytest.raises(InvalidKeyError):
            store.put(key, src)
        with pytest.raises(InvalidKeyError):
            store.exists(key)
        with pytest.raises(InvalidKeyError):
            store.materialise(key)
    assert everything_stored(store) == []
    assert {p.name for p in tmp_path.iterdir()} <= {"src", "models", "cache-1"}  # nothing outside the store


def test_file_paths_inside_a_version_cannot_escape_it(store: VersionStore, tmp_path: Path) -> None:
    store.put("p1/v1", make_version(tmp_path / "src", {"w.bin": b"x"}))
    (tmp_path / "secret").write_text("not yours")
    for relpath in ["../secret", "/etc/passwd", "a/../../b", ""]:
        with pytest.raises(InvalidKeyError):
            store.open("p1/v1", relpath)


def test_opening_a_missing_file_says_so(store: VersionStore, tmp_path: Path) -> None:
    store.put("p1/v1", make_version(tmp_path / "src", {"w.bin": b"x"}))
    with pytest.raises(VersionNotFoundError, match=r"nope\.bin"):
        store.open("p1/v1", "nope.bin")


def test_build_publishes_the_folder_only_when_the_block_succeeds(store: VersionStore, tmp_path: Path) -> None:
    with store.build("p5/v1") as out:
        assert not out.exists() and out.parent.is_dir()
        make_version(out, FILES)
        assert not store.exists("p5/v1")  # nothing visible before the block ends
    assert read_tree(store.materialise("p5/v1")) == FILES
    assert not out.parent.exists()
    with pytest.raises(RuntimeError, match="training diverged"), store.build("p5/v2") as out:
        make_version(out, {"half.bin": b"x"})
        raise RuntimeError("training diverged")
    assert not out.parent.exists()
    assert store.list() == ["p5/v1"]
    assert [n for n in everything_stored(store) if "/v2" in n or "build" in n] == []
    with pytest.raises(VersionExistsError), store.build("p5/v1") as out:
        make_version(out, {"other.bin": b"y"})
    assert read_tree(store.materialise("p5/v1")) == FILES and not out.parent.exists()


def test_a_recorded_location_leads_back_to_the_files(store: VersionStore, tmp_path: Path) -> None:
    store.put("p6/v3", make_version(tmp_path / "src", FILES))
    where = store.location("p6/v3")
    assert store.key_at(where) == "p6/v3"
    assert read_tree(store.local_dir(where)) == FILES
    outside = make_version(tmp_path / "registered-elsewhere", {"w.bin": b"e"})
    assert store.key_at(str(outside)) is None
    assert store.local_dir(str(outside)) == outside  # a version folder outside the store still loads
    assert store.key_at("s3://some-other-bucket/p6/v3") is None
    for location, files in ((where, FILES), (str(outside), {"w.bin": b"e"})):
        buf = io.BytesIO()
        store.archive(location, buf, "dl")
        buf.seek(0)
        with tarfile.open(fileobj=buf, mode="r:gz") as tf:
            got = {m.name: tf.extractfile(m).read() for m in tf.getmembers() if m.isfile()}  # type: ignore[union-attr]
        assert got == {f"dl/{k}": v for k, v in files.items()}
    with pytest.raises(VersionNotFoundError):
        store.local_dir(str(tmp_path / "gone"))
    with pytest.raises(VersionNotFoundError):
        store.local_dir(store.location("p6/v4"))
