"""Datasets and examples: bulk insert, validation, listing with filters and pagination."""

from __future__ import annotations

import time

import pytest
from xmd.core.types import DataError
from xmd.core.types import Example as CoreExample
from xmd.datasets import service as datasets
from xmd.datasets.models import DatasetRole, Example
from xmd.db import ConflictError
from xmd.projects import service as projects

TEXTS = [
    ("a", "Spielberg made a great movie", 1),
    ("b", "The plot was boring", 0),
    ("c", "SPIELBERG again, but bad acting", 0),
    ("d", "an unlabelled text about 100% nothing_here", None),
    ("e", "Grüße aus Köln: great fun", 1),
]


@pytest.fixture()
def project(db):
    return projects.create(db_session=db, name="p", labels=["neg", "pos"], model_source="m")


@pytest.fixture()
def small(db, project):
    exs = [CoreExample(id=i, text=t, label=lab, meta={"n": n}) for n, (i, t, lab) in enumerate(TEXTS)]
    return datasets.add_dataset(db_session=db, project=project, name="train", role="train", examples=exs)


def _ext(rows: list[Example]) -> list[str]:
    return [r.ext_id for r in rows]


def test_add_and_list(db, project, small):
    assert small.n_examples == 5 and small.role is DatasetRole.TRAIN
    rows = datasets.list_examples(db_session=db, dataset_id=small.id)
    assert _ext(rows) == ["a", "b", "c", "d", "e"]
    assert [r.position for r in rows] == [0, 1, 2, 3, 4]
    assert rows[0].meta == {"n": 0} and rows[3].label is None
    assert {r.ext_id: r for r in rows}["c"].text.startswith("SPIEL")
    core = datasets.core_examples(db_session=db, dataset=small)
    assert [(e.id, e.text, e.label) for e in core] == list(TEXTS)
    assert datasets.label_counts(db_session=db, dataset_id=small.id) == {0: 2, 1: 2, None: 1}
    with pytest.raises(ConflictError):
        datasets.add_dataset(db_session=db, project=project, name="train", role="eval", examples=[])


def test_filters(db, small):
    def q(**kw):
        return _ext(datasets.list_examples(db_session=db, dataset_id=small.id, **kw))

    assert q(label=0) == ["b", "c"]
    assert q(search="spielberg") == ["a", "c"]  # case-insensitive
    assert q(search="100%") == ["d"]  # LIKE wildcards are escaped
    assert q(search="_here") == ["d"]
    assert q(search="%") == ["d"]
    assert q(regex=r"^spiel") == ["a", "c"]
    assert q(regex=r"b(oring|ad)\b") == ["b", "c"]
    assert q(regex="great", label=1) == ["a", "e"]
    with pytest.raises(ValueError, match="invalid regular expression"):
        q(regex="(")
    ids = [r.id for r in datasets.list_examples(db_session=db, dataset_id=small.id)]
    assert q(ids=[ids[4], ids[0]]) == ["a", "e"]
    assert datasets.count_examples(db_session=db, dataset_id=small.id, search="spielberg") == 2
    assert datasets.count_examples(db_session=db, project_id=small.project_id) == 5


def test_pagination(db, small):
    page1 = datasets.list_examples(db_session=db, dataset_id=small.id, limit=2)
    page2 = datasets.list_examples(db_session=db, dataset_id=small.id, limit=2, after_id=page1[-1].id)
    page3 = datasets.list_examples(db_session=db, dataset_id=small.id, limit=2, after_id=page2[-1].id)
    assert _ext(page1) + _ext(page2) + _ext(page3) == ["a", "b", "c", "d", "e"]
    assert _ext(datasets.list_examples(db_session=db, dataset_id=small.id, offset=3, limit=10)) == ["d", "e"]
    with pytest.raises(ValueError):
        datasets.list_examples(db_session=db, dataset_id=small.id, limit=10_000)


def test_validation_leaves_nothing_behind(db, project):
    dup = [CoreExample(id="x", text="one"), CoreExample(id="x", text="two")]
    with pytest.raises(DataError, match="twice"):
        datasets.add_dataset(db_session=db, project=project, name="d", role="train", examples=dup)
    bad = [CoreExample(id="x", text="one", label=2)]
    with pytest.raises(DataError, match="label 2"):
        datasets.add_dataset(db_session=db, project=project, name="d", role="train", examples=bad)
    empty = [CoreExample(id="x", text="  ")]
    with pytest.raises(DataError, match="empty"):
        datasets.add_dataset(db_session=db, project=project, name="d", role="train", examples=empty)
    db.rollback()
    assert datasets.list_datasets(db_session=db, project_id=project.id) == []


def test_bulk_insert_20k(db, project):
    n = 20_000
    exs = [CoreExample(id=f"ex{i}", text=f"text number {i} with some words", label=i % 2) for i in range(n)]
    t0 = time.perf_counter()
    ds = datasets.add_dataset(db_session=db, project=project, name="big", role="train", examples=exs)
    elapsed = time.perf_counter() - t0
    assert datasets.count_examples(db_session=db, dataset_id=ds.id) == n
    assert datasets.count_examples(db_session=db, dataset_id=ds.id, label=1) == n // 2
    last = datasets.list_examples(db_session=db, dataset_id=ds.id, offset=n - 1, limit=5)
    assert _ext(last) == [f"ex{n - 1}"] and last[0].position == n - 1
    # 100k rows must take "a few seconds"; 20k gets a generous bound (the CPU may be shared).
    assert elapsed < 15, f"bulk insert of {n} examples took {elapsed:.1f} s"
    print(f"bulk insert of {n} examples: {elapsed:.2f} s")
