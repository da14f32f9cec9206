"""CSV/TSV headers are capped and checked before the file is read (issue 31): one row of 100,002
columns took 40-60 s to preview or upload; now 413 naming the limit at once. Duplicate column names
are refused naming them (the second ``text`` used to become ``text.1`` silently). Nothing is created;
on SQLite and PostgreSQL."""

from __future__ import annotations

import time

import pytest
from apihelpers import Api
from sqlalchemy import func, select
from xmd.core.data_read import MAX_COLUMNS, MAX_HEADER_BYTES
from xmd.datasets.models import Dataset


def _wide(n: int, sep: str = ",") -> bytes:
    return (sep.join(f"c{i}" for i in range(n)) + "\n" + sep.join("x" for _ in range(n)) + "\n").encode()


def _send(api: Api, project: dict, route: str, name: str, content: bytes):
    url = f"/api/projects/{project['id']}/datasets" + ("/preview" if route == "preview" else "")
    data = (
        {}
        if route == "preview"
        else {"role": "train", "name": name.split(".")[0], "text_column": "c0", "unlabelled": "true"}
    )
    return api.post(url, files={"file": (name, content, "text/csv")}, data=data)


def _n_datasets(db) -> int:
    db.expire_all()
    return int(db.scalar(select(func.count()).select_from(Dataset)))


@pytest.mark.parametrize("route", ["preview", "upload"])
def test_too_many_columns_or_too_long_a_header_is_413_naming_the_limit(api: Api, project, db, route):
    before = _n_datasets(db)
    start = time.perf_counter()
    r = _send(api, project, route, "wide.csv", _wide(100_002))
    assert r.status_code == 413 and f"{MAX_HEADER_BYTES:,}" in r.json()["detail"], r.text
    assert time.perf_counter() - start < 10
    r = _send(api, project, route, "many.tsv", _wide(MAX_COLUMNS + 1, sep="\t"))
    assert r.status_code == 413 and f"at most {MAX_COLUMNS:,} columns" in r.json()["detail"], r.text
    r = _send(api, project, route, "fine.csv", _wide(MAX_COLUMNS))
    assert r.status_code == (200 if route == "preview" else 201), r.text
    assert _n_datasets(db) == before + (route == "upload")


@pytest.mark.parametrize("route", ["preview", "upload"])
def test_duplicate_column_names_are_refused_naming_them(api: Api, project, db, route):
    before = _n_datasets(db)
    content = b"id,text,label,text,note,note\n1,a film,positive,other,x,y\n"
    r = _send(api, project, route, "dupes.csv", content)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert "duplicate column names" in detail and "'text'" in detail and "'note'" in detail, detail
    assert _n_datasets(db) == before
