"""Store benchmark: ingest and aggregate 100k and 1M short synthetic examples, then time the task view.

Why: the service keeps every example, its explanation and incrementally updated word aggregates in
the database, and people click feedback on a ranking computed from them; both have to stay
interactive at the sizes people bring.

    .venv/bin/python bench/store_scale.py [--n 100000 1000000] [--db sqlite|postgresql|both]

Each (database, size) runs in a fresh subprocess so that its peak memory (the kernel's peak RSS,
``VmHWM``, reset after imports) is its own. Per run: examples/second of the bulk insert and of storing
explanations with their word aggregates (1,000 per transaction, as the explain job writes them), a
rescore of 1,000 explained examples, the latency of a top-100 ranking page per sort and other read
paths (median of ``--repeat`` calls), and the time from a feedback click (task-level and on one word of
one example: the write and its commit) until the ranking page and the feedback marks it shows have
been read again. Synthetic text: 8-30 words drawn from a 30k-word Zipf vocabulary, the planted word in
30 % of label-1 texts. Prints one JSON document; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchlib import emit, load_average, log
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from xmd.core.types import Example as CoreExample
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words
from xmd.datasets import service as datasets
from xmd.db import make_engine, make_session_factory, upgrade
from xmd.explanations import ranking
from xmd.explanations import service as explanations
from xmd.feedback import service as feedback
from xmd.projects import service as projects
from xmd.versions import service as versions

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PLANTED = "spielberg"
PAGE = 1000
MIB = 1024 * 1024


def make_data(n: int, rng: random.Random) -> list[CoreExample]:
    vocab = [f"w{i}" for i in range(30_000)]
    # Zipf; cumulative once (``choices`` would re-accumulate 30k weights per call), same draws.
    cum_weights = list(itertools.accumulate(1 / (i + 1) for i in range(len(vocab))))
    out = []
    for i in range(n):
        label = int(rng.random() < 0.5)
        words = rng.choices(vocab, cum_weights=cum_weights, k=rng.randint(8, 30))
        if label == 1 and rng.random() < 0.3:
            words.insert(rng.randrange(len(words)), PLANTED)
        out.append(CoreExample(id=str(i), text=" ".join(words) + " .", label=label))
    return out


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median milliseconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return round(statistics.median(times) * 1000, 2)


def _status_kib(field: str) -> int | None:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return None


def _reset_hwm() -> bool:
    """Reset the kernel's peak-RSS mark to the current RSS (Linux >= 4.0); False if not allowed."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def run(url: str, n: int, repeat: int) -> dict[str, Any]:
    """Build an ``n``-example project in the database at ``url`` and time what the task view does."""
    hwm_reset = _reset_hwm()
    rss_before = (_status_kib("VmRSS") or 0) / 1024
    upgrade(url)
    engine = make_engine(url)
    factory = make_session_factory(engine)
    rng = random.Random(0)
    res: dict[str, Any] = {"db": engine.dialect.name, "n_examples": n}
    with factory() as db:
        project = projects.create(db_session=db, name="bench", labels=["neg", "pos"], model_source="m")
        t = time.perf_counter()
        data = make_data(n, rng)
        res["generate_s"] = round(time.perf_counter() - t, 2)
        t = time.perf_counter()
        ds = datasets.add_dataset(db_session=db, project=project, name="train", role="train", examples=data)
        res["add_dataset_s"] = round(time.perf_counter() - t, 2)
        res["add_dataset_rows_per_s"] = round(n / res["add_dataset_s"], 1)
        del data
        mv = versions.create_base(db_session=db, project=project, path="/m")
        t = time.perf_counter()
        after = None
        n_occurrences = 0
        while True:
            rows = datasets.list_examples(db_session=db, dataset_id=ds.id, after_id=after, limit=PAGE)
            if not rows:
                break
            items = []
            for r in rows:
                words, spans = split_words(r.text)
                scores = [rng.gauss(0, 1) + (4.0 if w == PLANTED else 0.0) for w in words]
                n_occurrences += len(words)
                exp = CoreExplanation(words, spans, scores, target=1, probs=[0.3, 0.7], method="g", n_seen=len(words))
                items.append((r, exp))
            explanations.upsert_explanations(db_session=db, model_version=mv, method="g", items=items)
            after = rows[-1].id
            db.expunge_all()  # the page's rows are done with; keep the session's identity map small
        res["upsert_explanations_s"] = round(time.perf_counter() - t, 2)
        res["upsert_explanations_rows_per_s"] = round(n / res["upsert_explanations_s"], 1)
        res["word_occurrences"] = n_occurrences
        res["ingest_total_s"] = round(res["add_dataset_s"] + res["upsert_explanations_s"], 2)
        res["ingest_rows_per_s"] = round(n / res["ingest_total_s"], 1)
        res["n_words"] = ranking.count_words(db_session=db, model_version_id=mv.id, method="g")

        # Rescoring a batch of 1000 already explained examples (the incremental path of a re-explain).
        rows = datasets.list_examples(db_session=db, dataset_id=ds.id, limit=PAGE)
        items = []
        for r in rows:
            words, spans = split_words(r.text)
            scores = [rng.gauss(0, 1) for _ in words]
            items.append((r, CoreExplanation(words, spans, scores, 1, [0.3, 0.7], "g", len(words))))
        t = time.perf_counter()
        explanations.upsert_explanations(db_session=db, model_version=mv, method="g", items=items)
        res["rescore_1000_s"] = round(time.perf_counter() - t, 2)

        def rank(**kw: Any) -> Callable[[], list]:
            return lambda: ranking.ranking(db_session=db, model_version_id=mv.id, method="g", limit=100, **kw)

        res["ranking_top100_ms"] = {
            "importance": timed(rank(sort="importance"), repeat),
            "count": timed(rank(sort="count"), repeat),
            "suspicion": timed(rank(sort="suspicion"), repeat),
            "suspicion_min_count_5": timed(rank(sort="suspicion", min_count=5), repeat),
            "suspicion_label_1": timed(rank(sort="suspicion", label=1), repeat),
            "suspicion_page_10": timed(rank(sort="suspicion", offset=900), repeat),
            "importance_search_w12": timed(rank(sort="importance", search="w12"), repeat),
        }
        top = rank(sort="suspicion")()
        res["top5_suspicion"] = [w.word for w in top[:5]]
        res["count_words_ms"] = timed(
            lambda: ranking.count_words(db_session=db, model_version_id=mv.id, method="g", min_count=5), repeat
        )
        res["examples_with_word_page_ms"] = timed(
            lambda: ranking.examples_with_word(
                db_session=db, model_version_id=mv.id, method="g", word="w1", offset=5000, limit=50
            ),
            repeat,
        )
        res["list_examples_search_ms"] = timed(
            lambda: datasets.list_examples(db_session=db, dataset_id=ds.id, search="spielberg w3 ", limit=50), repeat
        )
        res["list_examples_regex_ms"] = timed(
            lambda: datasets.list_examples(db_session=db, dataset_id=ds.id, regex=r"\bw99\b", limit=50), repeat
        )
        res["feedback_click"] = feedback_clicks(db, project, mv.id, top[0].word, rows[0], repeat)
    engine.dispose()
    res["peak_rss_mib"] = round((_status_kib("VmHWM") or 0) / 1024, 1)
    res["rss_before_mib"] = round(rss_before, 1)
    res["peak_rss_increase_mib"] = round(res["peak_rss_mib"] - rss_before, 1)
    res["memory_kind"] = "VmHWM (process peak RSS)" + (", reset after imports" if hwm_reset else ", includes imports")
    return res


def feedback_clicks(db: Any, project: Any, version_id: int, word: str, example: Any, repeat: int) -> dict[str, Any]:
    """Click → ranking: the feedback write (committed), then the suspicion top-100 and its feedback marks.

    The ranking's numbers come from the explanations, so a click changes which words are marked, not the
    order; what a person waits for is the write plus the re-read of the page and of the current task
    feedback. Clicks alternate remove / reset so that every one of them writes an event.
    """

    def reread() -> None:
        ranking.ranking(db_session=db, model_version_id=version_id, method="g", sort="suspicion", limit=100)
        feedback.list_feedback(db_session=db, project_id=project.id, level="task")

    out: dict[str, Any] = {"word": word}
    for kind in ("task", "instance"):
        write_ms: list[float] = []
        total_ms: list[float] = []
        for i in range(repeat * 2):
            action = "remove" if i % 2 == 0 else "reset"
            t0 = time.perf_counter()
            if kind == "task":
                feedback.set_feedback(db_session=db, project=project, action=action, word=word)
            else:
                feedback.set_feedback(db_session=db, project=project, action=action, example=example, word_index=0)
            t1 = time.perf_counter()
            reread()
            t2 = time.perf_counter()
            write_ms.append((t1 - t0) * 1000)
            total_ms.append((t2 - t0) * 1000)
        out[kind] = {
            "clicks": len(total_ms),
            "write_ms": round(statistics.median(write_ms), 2),
            "click_to_ranking_ms": round(statistics.median(total_ms), 2),
            "click_to_ranking_max_ms": round(max(total_ms), 2),
        }
    return out


def run_in_db(db: str, n: int, repeat: int) -> dict[str, Any]:
    """One run against a throw-away SQLite file or PostgreSQL schema."""
    if db == "sqlite":
        with tempfile.TemporaryDirectory() as d:
            return run(f"sqlite:///{Path(d) / 'bench.db'}", n, repeat)
    schema = f"xmd_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})
        return run(url.render_as_string(hide_password=False), n, repeat)
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def run_worker(db: str, n: int, repeat: int) -> dict[str, Any]:
    """Run one (database, size) in a fresh interpreter, so that its peak memory is its own."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", db, "--n", str(n), "--repeat", str(repeat)]
    t = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"store_scale worker ({db}, n={n}) failed with exit code {proc.returncode}")
    res = json.loads(proc.stdout)
    res["wall_s"] = round(time.perf_counter() - t, 1)
    return res


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="+", default=[100_000, 1_000_000], help="examples per run")
    ap.add_argument("--db", default="sqlite", choices=["sqlite", "postgresql", "both"])
    ap.add_argument("--repeat", type=int, default=7, help="calls per read-latency median (and clicks / 2)")
    ap.add_argument("--worker", choices=["sqlite", "postgresql"], help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    # SIGTERM (e.g. from `timeout`) must still run the finally blocks that drop the schema.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.worker:
        json.dump(run_in_db(args.worker, args.n[0], args.repeat), sys.stdout)
        return
    import torch
    from benchlib import environment

    loadavg_start = load_average()
    dbs = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    results = []
    for db in dbs:
        for n in args.n:
            log(f"store_scale: {db}, {n} examples")
            res = run_worker(db, n, args.repeat)
            log(
                f"  ingest {res['ingest_rows_per_s']:.0f} rows/s, peak {res['peak_rss_mib']:.0f} MiB, "
                f"click->ranking {res['feedback_click']['task']['click_to_ranking_ms']:.1f} ms"
            )
            results.append(res)
    emit(
        {
            "benchmark": "store_scale",
            "environment": environment(torch.device("cpu"), loadavg_start),
            "params": {
                "n": args.n,
                "db": dbs,
                "repeat": args.repeat,
                "sqlite": "file database in a temporary directory",
                "postgresql": PG_URL + " (a throw-away schema)" if "postgresql" in dbs else None,
                "data": "8-30 words from a 30k-word Zipf vocabulary; the planted word in 30 % of label-1 texts",
                "explanations_per_transaction": PAGE,
            },
            "results": results,
        }
    )


if __name__ == "__main__":
    main()
