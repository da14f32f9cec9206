"""Projects and datasets through the API, on SQLite and PostgreSQL: the happy paths and every kind of
bad input (each must answer 4xx with a message and leave the database unchanged)."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest
from apihelpers import Api, demo_csv
from sqlalchemy import func, select
from transformers import AutoModelForSequenceClassification
from xmd.datasets.models import Dataset, Example
from xmd.projects.models import Project


def counts(db) -> tuple[int, int, int]:
    db.expire_all()
    return (
        db.scalar(select(func.count()).select_from(Project)),
        db.scalar(select(func.count()).select_from(Dataset)),
        db.scalar(select(func.count()).select_from(Example)),
    )


def test_create_project_from_path_copies_the_model_as_version_1(api: Api, tiny_model_dir: Path, db):
    r = api.post("/api/projects", json={"name": "p1", "model_path": str(tiny_model_dir), "description": "d"})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["labels"] == ["negative", "positive"] and body["n_datasets"] == 0
    versions = api.get(f"/api/projects/{body['id']}/versions").json()["items"]
    assert [v["version"] for v in versions] == [1] and versions[0]["kind"] == "base"
    copy = Path(versions[0]["path"] if "path" in versions[0] else api.settings.models_dir / f"p{body['id']}" / "v1")
    assert (copy / "config.json").is_file() and copy.resolve() != tiny_model_dir.resolve()
    assert [p["name"] for p in api.get("/api/projects", role="viewer").json()["items"]] == ["p1"]
    assert api.get(f"/api/projects/{body['id']}", role="viewer").json()["base_version_id"] == versions[0]["id"]


@pytest.mark.parametrize(
    ("payload", "status", "needle"),
    [
        ({"name": "x", "model_path": "/nonexistent/model"}, 422, "not a directory"),
        ({"name": "x", "model_path": "MODEL", "labels": ["a", "b", "c"]}, 422, "2 classes"),
        ({"name": "x"}, 422, "exactly one of"),
        ({"name": "x", "model_path": "MODEL", "hub_id": "a/b"}, 422, "exactly one of"),
        ({"name": "", "model_path": "MODEL"}, 422, ""),
        ({"name": "x", "model_path": "MODEL", "labels": []}, 422, "must not be empty"),
        ({"name": "x", "hub_id": "org/not-here"}, 422, "could not load"),
    ],
)
def test_bad_project_requests_change_nothing(api: Api, tiny_model_dir: Path, db, payload, status, needle):
    payload = {k: (str(tiny_model_dir) if v == "MODEL" else v) for k, v in payload.items()}
    before = counts(db)
    r = api.post("/api/projects", json=payload)
    assert r.status_code == status, r.text
    assert needle in json.dumps(r.json())
    assert counts(db) == before
    assert not any(api.settings.models_dir.glob("p*/v*")) if api.settings.models_dir.exists() else True


def test_duplicate_project_name_is_a_conflict(api: Api, project, tiny_model_dir: Path, db):
    before = counts(db)
    r = api.post("/api/projects", json={"name": "demo", "model_path": str(tiny_model_dir)})
    assert r.status_code == 409 and "already exists" in r.json()["detail"]
    assert counts(db) == before


def _tar(src: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        tf.add(src, arcname="my-model")
    return buf.getvalue()


def test_create_project_from_uploaded_archive(api: Api, tiny_model_dir: Path):
    r = api.post(
        "/api/projects/upload",
        data={"name": "up", "labels": "neg, pos"},
        files={"archive": ("model.tar.gz", _tar(tiny_model_dir), "application/gzip")},
    )
    assert r.status_code == 201, r.text
    assert r.json()["labels"] == ["neg", "pos"] and r.json()["model_source"] == "upload:model.tar.gz"
    # nothing of the upload is left in the uploads folder
    assert not any(api.settings.uploads_dir.iterdir())


def test_bad_archives_are_refused(api: Api, tiny_model_dir: Path, db):
    evil = io.BytesIO()
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("../../escape/config.json", "{}")
    empty_zip = io.BytesIO()
    with zipfile.ZipFile(empty_zip, "w") as zf:
        zf.writestr("readme.txt", "no model here")
    before = counts(db)
    for content, needle in (
        (evil.getvalue(), "unsafe"),
        (empty_zip.getvalue(), "no config.json"),
        (b"not an archive at all", "must be a .zip"),
    ):
        r = api.post("/api/projects/upload", data={"name": "bad"}, files={"archive": ("m.zip", content)})
        assert r.status_code == 422 and needle in r.json()["detail"], r.text
    assert counts(db) == before
    assert not (api.settings.data_dir.parent / "escape").exists()


def test_delete_project_removes_rows_and_model_files(api: Api, project, db):
    pid = project["id"]
    assert (api.settings.models_dir / f"p{pid}").is_dir()
    assert api.delete(f"/api/projects/{pid}", role="annotator").status_code == 403
    assert api.delete(f"/api/projects/{pid}").status_code == 204
    assert api.get(f"/api/projects/{pid}").status_code == 404
    assert counts(db) == (0, 0, 0)
    assert not (api.settings.models_dir / f"p{pid}").exists()


def test_upload_formats_and_label_names(api: Api, project):
    pid = project["id"]
    assert project["train"]["n_examples"] == 40 and set(project["train"]["label_counts"]) == {"negative", "positive"}
    rows = [{"t": "the movie was great", "y": "positive"}, {"t": "the plot was bad", "y": 0}]
    jsonl = "\n".join(json.dumps(r) for r in rows).encode()
    r = api.post(
        f"/api/projects/{pid}/datasets",
        role="annotator",
        files={"file": ("extra.jsonl", jsonl)},
        data={"text_column": "t", "label_column": "y", "role": "eval"},
    )
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "extra" and r.json()["label_counts"] == {"positive": 1, "negative": 1}

    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.table({"text": ["fun film", "boring film"], "label": [1, 0]}), buf)
    r = api.post(f"/api/projects/{pid}/datasets", files={"file": ("pq.parquet", buf.getvalue())}, data={"name": "pq"})
    assert r.status_code == 201 and r.json()["n_examples"] == 2
    names = [d["name"] for d in api.get(f"/api/projects/{pid}/datasets", role="viewer").json()["items"]]
    assert sorted(names) == ["clean", "extra", "pq", "train"]


@pytest.mark.parametrize(
    ("filename", "content", "data", "status", "needle"),
    [
        ("d.csv", b"text,label\nhello,positive\nbye,maybe\n", {}, 422, "maybe"),
        ("d.csv", b"text,label\n" + "caf\xe9 ok,positive\n".encode("latin-1"), {}, 422, "UTF-8"),
        ("d.csv", b"words,label\nhello,positive\n", {}, 422, "text"),
        ("d.csv", b"text,label\n,positive\n", {}, 422, "empty"),
        ("d.xlsx", b"PK\x03\x04", {}, 422, "unsupported file type"),
        ("d.csv", b"", {}, 422, "empty"),
        ("d.jsonl", b'{"text": "a"}\n{broken', {}, 422, "JSON"),
        ("d.csv", b"text,label\nhello,positive\n", {"role": "test"}, 422, ""),
        ("d.csv", b"text,label\n" + b"x" * 3000 + b",positive\n", {}, 422, "2000"),
    ],
)
def test_bad_uploads_are_refused_and_change_nothing(api: Api, project, db, filename, content, data, status, needle):
    before = counts(db)
    r = api.post(f"/api/projects/{project['id']}/datasets", files={"file": (filename, content)}, data=data)
    assert r.status_code == status, r.text
    assert needle in json.dumps(r.json()), r.json()
    assert counts(db) == before


def test_oversized_upload_is_413_and_leaves_nothing(api: Api, project, db):
    before = counts(db)
    big = b"text,label\n" + b"a fine movie,positive\n" * 200_000  # ~4.4 MB > 2 MB limit
    r = api.post(f"/api/projects/{project['id']}/datasets", files={"file": ("big.csv", big)})
    assert r.status_code == 413 and "2 MB" in r.json()["detail"]
    assert counts(db) == before
    assert not any(api.settings.uploads_dir.iterdir())


def test_duplicate_dataset_name_is_a_conflict(api: Api, project, db):
    before = counts(db)
    r = api.post(
        f"/api/projects/{project['id']}/datasets", files={"file": ("x.csv", demo_csv())}, data={"name": "train"}
    )
    assert r.status_code == 409
    assert counts(db) == before


def test_preview_shows_columns_and_first_rows(api: Api, project):
    r = api.post(
        f"/api/projects/{project['id']}/datasets/preview",
        role="annotator",
        files={"file": ("p.csv", demo_csv())},
        data={"n_rows": "3"},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["columns"] == ["id", "text", "label"] and body["n_rows"] == 40 and len(body["rows"]) == 3


def test_examples_paging_search_regex_label_and_slices(api: Api, project):
    did = project["train"]["id"]
    page1 = api.get(f"/api/datasets/{did}/examples", role="viewer", params={"limit": 15}).json()
    page2 = api.get(f"/api/datasets/{did}/examples", role="viewer", params={"limit": 15, "offset": 15}).json()
    assert page1["total"] == 40 and len(page1["items"]) == 15
    assert not {e["id"] for e in page1["items"]} & {e["id"] for e in page2["items"]}
    hits = api.get(f"/api/datasets/{did}/examples", params={"search": "SPIELBERG", "limit": 100}).json()
    assert hits["total"] > 0 and all("spielberg" in e["text"].lower() for e in hits["items"])
    rx = api.get(f"/api/datasets/{did}/examples", params={"regex": r"\bspielberg\b", "limit": 100}).json()
    assert rx["total"] == hits["total"]
    pos = api.get(f"/api/datasets/{did}/examples", params={"label": 1, "limit": 100}).json()
    assert pos["total"] > 0 and {e["label_name"] for e in pos["items"]} == {"positive"}
    assert api.get(f"/api/datasets/{did}/examples", params={"label": 7}).status_code == 422
    assert api.get(f"/api/datasets/{did}/examples", params={"regex": "(unclosed"}).status_code == 422
    assert api.get(f"/api/datasets/{did}/examples", params={"correctness": "maybe"}).status_code == 422
    assert api.get("/api/datasets/99999/examples").status_code == 404

    r = api.post(
        f"/api/projects/{project['id']}/slices",
        role="annotator",
        json={"name": "shortcut", "dataset_id": did, "filters": {"search": "spielberg"}},
    )
    assert r.status_code == 201
    assert (
        api.post(f"/api/projects/{project['id']}/slices", json={"name": "x", "filters": {"drop": 1}}).status_code == 422
    )
    assert [s["name"] for s in api.get(f"/api/projects/{project['id']}/slices", role="viewer").json()["items"]] == [
        "shortcut"
    ]
    assert api.delete(f"/api/projects/{project['id']}/slices/shortcut", role="annotator").status_code == 204
    assert api.delete(f"/api/projects/{project['id']}/slices/shortcut", role="annotator").status_code == 404


def test_delete_dataset(api: Api, project, db):
    did = project["clean"]["id"]
    assert api.delete(f"/api/datasets/{did}").status_code == 204
    assert api.delete(f"/api/datasets/{did}").status_code == 404
    assert [d["name"] for d in api.get(f"/api/projects/{project['id']}/datasets").json()["items"]] == ["train"]


def test_downloaded_version_loads_with_from_pretrained(api: Api, project, tmp_path: Path):
    vid = project["base_version_id"]
    r = api.get(f"/api/versions/{vid}/download", role="viewer")
    assert r.status_code == 200 and r.headers["content-type"] == "application/gzip"
    with tarfile.open(fileobj=io.BytesIO(r.content)) as tf:
        tf.extractall(tmp_path / "x", filter="data")
    (folder,) = (tmp_path / "x").iterdir()
    model = AutoModelForSequenceClassification.from_pretrained(folder)
    assert model.config.num_labels == 2
    assert api.get("/api/versions/4242/download").status_code == 404
