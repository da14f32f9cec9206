"""Store benchmark: ingest and aggregate 100k and 1M short synthetic examples, then time the task view.

Why: the service keeps every example, its explanation and incrementally updated word aggregates in
the database, and people click feedback on a ranking computed from them; both have to stay
interactive at the sizes people bring.

    python -m bench.store_scale.store_scale [--n 100000 1000000] [--db sqlite|postgresql|both]

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

from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words
from xmd.datasets import service as datasets
from xmd.db import make_engine, make_session_factory, upgrade
from xmd.explanations import ranking
from xmd.explanations import service as explanations
from xmd.explanations.aggregates import (
    BOUND_MARGIN,
    SORT_DIGITS,
    WORD_COLS,
    suspicion_bound,
)
from xmd.explanations.models import WordAggregate
from xmd.feedback import service as feedback
from xmd.projects import service as projects
from xmd.versions import service as versions

from bench.benchlib import ROOT, emit, load_average, log, proc_status_kib, reset_peak_rss
from bench.store_scale.synthetic import PLANTED, build_aggregates, make_data

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PAGE = 1000
PROGRESS_EVERY = 50_000
MIB = 1024 * 1024


def timed(fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Median milliseconds of ``repeat`` calls (``clock=time.process_time``: this process's CPU time,
    which other people's load on the machine inflates far less than the wall clock)."""
    times = []
    for _ in range(repeat):
        t = clock()
        fn()
        times.append(clock() - t)
    return round(statistics.median(times) * 1000, 2)


def scan_rows(db: Any, mv_id: int, kth: float) -> dict[str, int]:
    """Rows the suspicion scan reads before it stops (bound >= k-th suspicion), with the kept bounds and
    with the prior-independent bounds of the first schema (floor 0) on the same rows: the scan's cost
    in rows, which the machine's load does not change."""
    rows = db.execute(
        select(WordAggregate.suspicion_bound, WordAggregate.importance, WordAggregate.label_counts).where(
            WordAggregate.model_version_id == mv_id, WordAggregate.method == "g"
        )
    ).all()
    stop = round(kth, SORT_DIGITS) - BOUND_MARGIN
    return {
        "kept_floor": sum(1 for b, _, _ in rows if b >= stop) + 1,
        "floor_0": sum(1 for _, imp, lc in rows if suspicion_bound(imp, lc) >= stop) + 1,
        "words": len(rows),
    }


def scan_plan(db: Any, mv_id: int, k: int) -> dict[str, Any]:
    """The database's plan of the suspicion scan's first query (the bound order, LIMIT 2k + 32) and, on
    PostgreSQL, the server's own execution time of it (EXPLAIN ANALYZE, median of 5): what of a page's
    wall time the database spends, apart from the round trips and the waiting for a core."""
    first, slack = getattr(ranking, "SCAN_FIRST", (2, 32))  # older code (a before run) streamed the scan
    stmt = (
        select(*WORD_COLS, WordAggregate.suspicion_bound)
        .where(WordAggregate.model_version_id == mv_id, WordAggregate.method == "g")
        .order_by(WordAggregate.suspicion_bound.desc())
        .limit(first * k + slack)
    )
    dialect = db.get_bind().dialect
    sql = str(stmt.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
    if dialect.name == "sqlite":
        plan = [r[-1] for r in db.execute(text("EXPLAIN QUERY PLAN " + sql))]
        return {"plan": plan}
    runs = [db.execute(text("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)).scalar_one()[0] for _ in range(5)]
    node = runs[-1]["Plan"]
    nodes = []
    while node is not None:
        nodes.append(f"{node['Node Type']}" + (f" using {node['Index Name']}" if "Index Name" in node else ""))
        node = (node.get("Plans") or [None])[0]
    return {
        "plan": nodes,
        "server_execution_ms": round(statistics.median(r["Execution Time"] for r in runs), 3),
        "server_planning_ms": round(statistics.median(r["Planning Time"] for r in runs), 3),
        "rows": runs[-1]["Plan"]["Actual Rows"],
    }


def run(url: str, n: int, repeat: int, aggregates_only: bool = False) -> dict[str, Any]:
    """Build an ``n``-example project in the database at ``url`` and time what the task view does."""
    hwm_reset = reset_peak_rss()
    rss_before = (proc_status_kib("VmRSS") or 0) / 1024
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
        if aggregates_only:
            res.update(build_aggregates(db, mv, n))
        t = time.perf_counter()
        after = None
        n_occurrences = done = 0
        store_s = 0.0
        while not aggregates_only:
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
            t_store = time.perf_counter()
            explanations.upsert_explanations(db_session=db, model_version=mv, method="g", items=items)
            store_s += time.perf_counter() - t_store
            after = rows[-1].id
            done += len(items)
            if done % PROGRESS_EVERY < PAGE:
                log(
                    f"  {done:,} explained: {done / (time.perf_counter() - t):.0f} rows/s, "
                    f"store only {done / store_s:.0f}"
                )
            db.expunge_all()  # the page's rows are done with; keep the session's identity map small
        if not aggregates_only:
            res["upsert_explanations_s"] = round(time.perf_counter() - t, 2)
            res["upsert_explanations_rows_per_s"] = round(n / res["upsert_explanations_s"], 1)
            # The service's share: the time inside upsert_explanations (the rest is the benchmark's own
            # paging of the examples and drawing of their scores, which an explain job replaces by a model).
            res["store_s"] = round(store_s, 2)
            res["store_rows_per_s"] = round(n / store_s, 1)
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
        res["ranking_top100_cpu_ms"] = {
            sort: timed(rank(sort=sort), repeat, time.process_time) for sort in ("importance", "suspicion")
        }
        top = rank(sort="suspicion")()
        res["top5_suspicion"] = [w.word for w in top[:5]]
        res["suspicion_scan_rows"] = scan_rows(db, mv.id, top[-1].suspicion)
        res["suspicion_scan_plan"] = scan_plan(db, mv.id, 100)
        res["count_words_ms"] = timed(
            lambda: ranking.count_words(db_session=db, model_version_id=mv.id, method="g", min_count=5), repeat
        )
        res["examples_with_word_page_ms"] = (
            None  # no word occurrences are stored in this mode
            if aggregates_only
            else timed(
                lambda: ranking.examples_with_word(
                    db_session=db, model_version_id=mv.id, method="g", word="w1", offset=5000, limit=50
                ),
                repeat,
            )
        )
        # What the words route adds to every ranking page (its coverage line): explained examples per dataset.
        res["explained_counts_ms"] = timed(
            lambda: explanations.explained_counts(
                db_session=db, project_id=project.id, model_version_id=mv.id, method="g"
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
    res["peak_rss_mib"] = round((proc_status_kib("VmHWM") or 0) / 1024, 1)
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
        cpu_ms: list[float] = []
        for i in range(repeat * 2):
            action = "remove" if i % 2 == 0 else "reset"
            c0 = time.process_time()
            t0 = time.perf_counter()
            if kind == "task":
                feedback.set_feedback(db_session=db, project=project, action=action, word=word)
            else:
                feedback.set_feedback(db_session=db, project=project, action=action, example=example, word_index=0)
            t1 = time.perf_counter()
            reread()
            t2 = time.perf_counter()
            cpu_ms.append((time.process_time() - c0) * 1000)
            write_ms.append((t1 - t0) * 1000)
            total_ms.append((t2 - t0) * 1000)
        out[kind] = {
            "clicks": len(total_ms),
            "write_ms": round(statistics.median(write_ms), 2),
            "click_to_ranking_ms": round(statistics.median(total_ms), 2),
            "click_to_ranking_max_ms": round(max(total_ms), 2),
            "click_to_ranking_cpu_ms": round(statistics.median(cpu_ms), 2),
        }
    return out


def run_in_db(db: str, n: int, repeat: int, aggregates_only: bool = False) -> dict[str, Any]:
    """One run against a throw-away SQLite file or PostgreSQL schema."""
    if db == "sqlite":
        with tempfile.TemporaryDirectory() as d:
            return run(f"sqlite:///{Path(d) / 'bench.db'}", n, repeat, aggregates_only)
    schema = f"xmd_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})
        return run(url.render_as_string(hide_password=False), n, repeat, aggregates_only)
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def run_worker(db: str, n: int, repeat: int, aggregates_only: bool = False) -> dict[str, Any]:
    """Run one (database, size) in a fresh interpreter, so that its peak memory is its own."""
    cmd = [
        sys.executable,
        "-m",
        "bench.store_scale.store_scale",
        "--worker",
        db,
        "--n",
        str(n),
        "--repeat",
        str(repeat),
    ]
    cmd += ["--aggregates-only"] if aggregates_only else []
    t = time.perf_counter()
    load_start = load_average()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"store_scale worker ({db}, n={n}) failed with exit code {proc.returncode}")
    res = json.loads(proc.stdout)
    res["wall_s"] = round(time.perf_counter() - t, 1)
    res["loadavg_start"], res["loadavg_end"] = load_start, load_average()  # the machine is shared
    return res


def assemble(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """One document from runs made apart (sizes and modes the machine could not run in one go): their
    results in order, each with its own load average; the first run's environment, the union of the
    sizes and databases, and where every part came from."""

    def load(x: list[float] | None) -> str:
        return "/".join(f"{v:.1f}" for v in x) if x else "?"

    parts = []
    for d in docs:
        env = d["environment"]
        cmd = d["params"].get("command", "python -m bench.store_scale.store_scale")
        parts.append(
            f"`{cmd}` (load average {load(env.get('loadavg_start'))} at start, {load(env.get('loadavg_end'))} at end)"
        )
    params = dict(docs[0]["params"])
    params["n"] = sorted({n for d in docs for n in d["params"]["n"]})
    params["db"] = sorted({db for d in docs for db in d["params"]["db"]})
    params["postgresql"] = PG_URL + " (a throw-away schema)" if "postgresql" in params["db"] else None
    params["aggregates_only"] = sorted({bool(d["params"].get("aggregates_only")) for d in docs})
    params["assembled_from"] = "; ".join(parts)
    params.pop("command", None)
    env = dict(docs[0]["environment"])
    env["loadavg_end"] = docs[-1]["environment"].get("loadavg_end")
    return {
        "benchmark": "store_scale",
        "environment": env,
        "params": params,
        "results": [r for d in docs for r in d["results"]],
    }


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="+", default=[100_000, 1_000_000], help="examples per run")
    ap.add_argument("--db", default="sqlite", choices=["sqlite", "postgresql", "both"])
    ap.add_argument("--repeat", type=int, default=7, help="calls per read-latency median (and clicks / 2)")
    ap.add_argument("--worker", choices=["sqlite", "postgresql"], help=argparse.SUPPRESS)
    ap.add_argument(
        "--assemble",
        nargs="+",
        metavar="RESULT",
        help="instead of running: print one document with the results of these earlier outputs, in order",
    )
    ap.add_argument("--note", help="with --assemble: a sentence on how the parts ran, added to where they came from")
    ap.add_argument(
        "--aggregates-only",
        action="store_true",
        help="build the word aggregates without storing explanations (read latencies at sizes the ingest cannot reach)",
    )
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    # SIGTERM (e.g. from `timeout`) must still run the finally blocks that drop the schema.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.worker:
        json.dump(run_in_db(args.worker, args.n[0], args.repeat, args.aggregates_only), sys.stdout)
        return
    if args.assemble:
        doc = assemble([json.loads(Path(p).read_text()) for p in args.assemble])
        if args.note:
            doc["params"]["assembled_from"] += f"; {args.note}"
        emit(doc)
        return
    import torch

    from bench.benchlib import environment

    loadavg_start = load_average()
    dbs = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    results = []
    for db in dbs:
        for n in args.n:
            log(f"store_scale: {db}, {n} examples")
            res = run_worker(db, n, args.repeat, args.aggregates_only)
            log(
                f"  ingest {res.get('ingest_rows_per_s', 0):.0f} rows/s, peak {res['peak_rss_mib']:.0f} MiB, "
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
                "aggregates_only": args.aggregates_only,
                "command": " ".join(
                    ["python -m bench.store_scale.store_scale", *(sys.argv[1:] if argv is None else argv)]
                ),
            },
            "results": results,
        }
    )


if __name__ == "__main__":
    main()
