"""The suspicion ranking's threshold scan reads a bounded prefix first and reads further only when it
must: every path (first prefix enough, longer prefixes, streamed to the end) gives the core's pages."""

from __future__ import annotations

import random

import pytest
from store_helpers import make_explanation
from xmd.core.aggregate import TaskAggregate
from xmd.core.types import Example as CoreExample
from xmd.core.words import split_words
from xmd.datasets import service as datasets
from xmd.explanations import ranking
from xmd.explanations import service as explanations
from xmd.projects import service as projects
from xmd.versions import service as versions

METHOD = "grad_x_input"


@pytest.mark.parametrize(
    ("first", "stream"),
    [((2, 32), 20_000), ((1, 0), 20_000), ((1, 0), 60), ((0, 1), 1)],
    ids=["default", "prefix-too-short", "then-streamed", "always-streamed"],
)
def test_every_scan_path_gives_the_core_pages(db, monkeypatch, first, stream):
    monkeypatch.setattr(ranking, "SCAN_FIRST", first)
    monkeypatch.setattr(ranking, "SCAN_STREAM", stream)
    rng = random.Random(31)
    project = projects.create(db_session=db, name="scan", labels=["a", "b", "c"], model_source="m")
    vocab = [f"w{i}" for i in range(300)]
    bias = {w: rng.random() for w in vocab}
    exs = []
    for i in range(500):
        words = rng.sample(vocab, rng.randint(2, 10))
        p = sum(bias[w] for w in words) / len(words)
        exs.append(CoreExample(id=str(i), text=" ".join(words), label=0 if rng.random() < p else rng.choice([1, 2])))
    ds = datasets.add_dataset(db_session=db, project=project, name="d", role="train", examples=exs)
    rows = datasets.list_examples(db_session=db, dataset_id=ds.id, limit=1000)
    mv = versions.create_base(db_session=db, project=project, path="/m")
    items = [(r, make_explanation(r.text, [rng.randint(1, 40) / 8 for _ in split_words(r.text)[0]])) for r in rows]
    explanations.upsert_explanations(db_session=db, model_version=mv, method=METHOD, items=items)
    agg = TaskAggregate(3)
    for r, e in items:
        agg.add(r.ext_id, r.label, e)
    cases = ((0, 10, {}), (0, 100, {}), (40, 30, {}), (0, 25, {"min_count": 6}), (3, 12, {"label": 2}), (290, 20, {}))
    for offset, limit, kw in cases:
        got = ranking.ranking(
            db_session=db, model_version_id=mv.id, method=METHOD, sort="suspicion", offset=offset, limit=limit, **kw
        )
        want = agg.ranking(sort="suspicion", offset=offset, limit=limit, **kw)
        assert [w.word for w in got] == [w.word for w in want], (offset, limit, kw)
        assert [w.suspicion for w in got] == pytest.approx([w.suspicion for w in want], abs=1e-12)
