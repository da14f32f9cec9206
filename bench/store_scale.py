"""Store benchmark: a 100k-example project on SQLite and/or PostgreSQL.

    .venv/bin/python bench/store_scale.py [--n 100000] [--db sqlite|postgresql|both]

Prints one JSON document per database: bulk insert time, explanation upsert throughput, and the latency of a
top-100 ranking page per sort (median of repeated calls) plus other read paths.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from xmd.core.types import Example as CoreExample
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words
from xmd.datasets import service as datasets
from xmd.db import make_engine, make_session_factory, upgrade
from xmd.explanations import service as explanations
from xmd.models import service as versions
from xmd.projects import service as projects

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def make_data(n: int, rng: random.Random) -> list[CoreExample]:
    vocab = [f"w{i}" for i in range(30_000)]
    weights = [1 / (i + 1) for i in range(len(vocab))]  # Zipf
    out = []
    for i in range(n):
        label = int(rng.random() < 0.5)
        words = rng.choices(vocab, weights, k=rng.randint(8, 30))
        if label == 1 and rng.random() < 0.3:
            words.insert(rng.randrange(len(words)), "spielberg")
        out.append(CoreExample(id=str(i), text=" ".join(words) + " .", label=label))
    return out


def timed(fn, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return round(statistics.median(times) * 1000, 2)


def run(url: str, n: int) -> dict:
    upgrade(url)
    engine = make_engine(url)
    factory = make_session_factory(engine)
    rng = random.Random(0)
    res: dict = {"db": engine.dialect.name, "n_examples": n}
    with factory() as db:
        project = projects.create(db_session=db, name="bench", labels=["neg", "pos"], model_source="m")
        data = make_data(n, rng)
        t = time.perf_counter()
        ds = datasets.add_dataset(db_session=db, project=project, name="train", role="train", examples=data)
        res["add_dataset_s"] = round(time.perf_counter() - t, 2)
        mv = versions.create_base(db_session=db, project=project, path="/m")
        t = time.perf_counter()
        after = None
        while True:
            rows = datasets.list_examples(db_session=db, dataset_id=ds.id, after_id=after, limit=1000)
            if not rows:
                break
            items = []
            for r in rows:
                words, spans = split_words(r.text)
                scores = [rng.gauss(0, 1) + (4.0 if w == "spielberg" else 0.0) for w in words]
                items.append(
                    (
                        r,
                        CoreExplanation(
                            words, spans, scores, target=1, probs=[0.3, 0.7], method="g", n_seen=len(words)
                        ),
                    )
                )
            explanations.upsert_explanations(db_session=db, model_version=mv, method="g", items=items)
            after = rows[-1].id
        res["upsert_explanations_s"] = round(time.perf_counter() - t, 2)
        res["n_words"] = explanations.count_words(db_session=db, model_version_id=mv.id, method="g")
        # Rescoring a batch of 1000 already explained examples (the incremental path).
        rows = datasets.list_examples(db_session=db, dataset_id=ds.id, limit=1000)
        items = []
        for r in rows:
            words, spans = split_words(r.text)
            scores = [rng.gauss(0, 1) for _ in words]
            items.append((r, CoreExplanation(words, spans, scores, 1, [0.3, 0.7], "g", len(words))))
        t = time.perf_counter()
        explanations.upsert_explanations(db_session=db, model_version=mv, method="g", items=items)
        res["rescore_1000_s"] = round(time.perf_counter() - t, 2)

        def rank(**kw):
            return lambda: explanations.ranking(db_session=db, model_version_id=mv.id, method="g", limit=100, **kw)

        res["ranking_top100_ms"] = {
            "importance": timed(rank(sort="importance")),
            "count": timed(rank(sort="count")),
            "suspicion": timed(rank(sort="suspicion")),
            "suspicion_min_count_5": timed(rank(sort="suspicion", min_count=5)),
            "suspicion_label_1": timed(rank(sort="suspicion", label=1)),
            "suspicion_page_10": timed(rank(sort="suspicion", offset=900)),
            "importance_search_w12": timed(rank(sort="importance", search="w12")),
        }
        res["top5_suspicion"] = [w.word for w in rank(sort="suspicion")()[:5]]
        res["count_words_ms"] = timed(
            lambda: explanations.count_words(db_session=db, model_version_id=mv.id, method="g", min_count=5)
        )
        res["examples_with_word_page_ms"] = timed(
            lambda: explanations.examples_with_word(
                db_session=db, model_version_id=mv.id, method="g", word="w1", offset=5000, limit=50
            )
        )
        res["list_examples_search_ms"] = timed(
            lambda: datasets.list_examples(db_session=db, dataset_id=ds.id, search="spielberg w3 ", limit=50)
        )
        res["list_examples_regex_ms"] = timed(
            lambda: datasets.list_examples(db_session=db, dataset_id=ds.id, regex=r"\bw99\b", limit=50)
        )
    engine.dispose()
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--db", default="both", choices=["sqlite", "postgresql", "both"])
    args = ap.parse_args()
    # SIGTERM (e.g. from `timeout`) must still run the finally blocks that drop the schema.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.db in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as d:
            print(json.dumps(run(f"sqlite:///{Path(d) / 'bench.db'}", args.n), indent=2), flush=True)
    if args.db in ("postgresql", "both"):
        schema = f"xmd_bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE SCHEMA "{schema}"'))
        try:
            url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})
            print(json.dumps(run(url.render_as_string(hide_password=False), args.n), indent=2), flush=True)
        finally:
            with admin.connect() as c:
                c.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()


if __name__ == "__main__":
    main()
