"""Worker scaling: one explain job over a large dataset, shared by 1, 2 and 4 worker processes.

Why: explaining a dataset is split into chunks that idle workers join (``xmd.explanations.flows``);
this measures whether more workers make it faster, and what the orchestration (claiming a chunk and
marking it done on the job row, reading its examples) costs beside the explaining and storing.

    python -m bench.worker_scaling.worker_scaling [--n 20000] [--chunk-size 256] [--workers 1 2 4] [--model tiny|minilm]

Everything is real: ``celery worker`` processes (prefork, concurrency 1) on Redis, PostgreSQL in a
throw-away schema, the job created and sent as the API does. Per worker count: a fresh model version
(so each run builds its aggregates from nothing), ``explain_fanout`` = workers - 1 helpers, the job's
time from ``started_at`` to ``finished_at`` in the database, rows/s, speed-up and scaling efficiency
against one worker, and the per-chunk phase seconds the workers recorded in the job's ``chunk_s``.
*Overhead* = claim + plan + mark (what sharing the job adds: claiming a chunk, reading the version,
dataset and plan — once per worker since the chunks share them — and marking a chunk done, which
claims the next in the same transaction), as a share of a chunk's time; the model's first load in
each worker (then cached) is reported apart, per worker, with the rate without it. The tiny random
BERT (``tests/tinymodel.py``) makes explaining nearly free, so its run shows the orchestration and the
store; MiniLM (``--model minilm``) shows the compute. Prints one JSON document; progress goes to
stderr.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from xmd.core.tinymodel import build_tiny_model
from xmd.core.types import Example as CoreExample
from xmd.datasets import service as datasets
from xmd.jobs.models import JobStatus
from xmd.projects import service as projects
from xmd.versions import service as versions

from bench.benchlib import emit, load_average, log
from workers.stack import REDIS_URL, Stack

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
ORCHESTRATION = ("claim", "plan", "mark")
"""The phases that exist only because the job is shared: claiming a chunk, reading the version, dataset
and plan (once per worker), marking it done (and claiming the next). Reading the chunk's examples,
explaining and storing are the work itself."""
WORDS = ["great", "good", "fun", "bad", "awful", "dull", "movie", "film", "plot", "acting", "story", "the", "a", "was"]


def make_data(n: int, seed: int = 0) -> list[CoreExample]:
    """Short reviews (6-20 words) from a small vocabulary, labels at random."""
    rng = random.Random(seed)
    return [
        CoreExample(id=str(i), text=" ".join(rng.choices(WORDS, k=rng.randint(6, 20))) + " .", label=rng.randint(0, 1))
        for i in range(n)
    ]


def run_one(tmp: Path, url: str, model_dir: Path, ds: dict[str, int], workers: int, args: argparse.Namespace) -> dict:
    """Start ``workers`` workers, explain the dataset once with a fresh version, stop them."""
    st = Stack.create(tmp / f"w{workers}", database_url=url, broker_url=REDIS_URL, explain_fanout=workers - 1)
    with st.factory() as db:
        project = projects.get_or_raise(db_session=db, project_id=ds["project_id"])
        mv = versions.create_base(db_session=db, project=project, path=str(model_dir), name=f"w{workers}")
        version_id = mv.id
    load_start = load_average()
    st.start_workers([f"w{workers}-{k}" for k in range(workers)])
    try:
        params = {
            "version_id": version_id,
            "dataset_id": ds["dataset_id"],
            "method": "grad_x_input",
            "chunk_size": args.chunk_size,
            "calibrate": False,  # the first run would also time a retrain's work (xmd.core.calibrate)
        }
        t = time.perf_counter()
        job_id = st.submit("explain", ds["project_id"], params)
        job = st.wait_status(job_id, JobStatus.SUCCEEDED, timeout=args.timeout)
        wall = time.perf_counter() - t
    finally:
        st.stop_all()
    seconds = (job.finished_at - job.started_at).total_seconds()
    res = job.result or {}
    cs = res.get("chunk_s", {})
    phases = dict(zip(cs.get("phases", []), cs.get("sum", []), strict=True))
    chunks = cs.get("chunks", 0)
    per_chunk = {k: round(v / chunks, 4) for k, v in phases.items()} if chunks else {}
    # "model" is the model's first load in each worker (the process cache keeps it): a one-time
    # warm-up per worker, reported apart from the per-chunk overhead.
    steady = {k: v for k, v in per_chunk.items() if k != "model"}
    chunk_total = sum(steady.values())
    overhead = sum(steady.get(k, 0.0) for k in ORCHESTRATION)
    participants = len(res.get("workers", []))
    load_s = phases.get("model", 0.0) / participants if participants else 0.0
    return {
        "workers": workers,
        "participants": participants,
        "n_examples": res.get("n_explained"),
        "chunks": res.get("chunks"),
        "job_s": round(seconds, 2),
        "submit_to_seen_s": round(wall, 2),
        "rows_per_s": round(res.get("n_explained", 0) / seconds, 1),
        # The workers load the model at the same time, at the start: without that warm-up (approximate).
        "rows_per_s_after_load": round(res.get("n_explained", 0) / (seconds - load_s), 1) if load_s else None,
        "per_chunk_s": per_chunk,
        "chunk_s": round(chunk_total, 4),
        "model_load_s_per_worker": round(load_s, 2) if participants else None,
        "overhead_per_chunk_s": round(overhead, 4),
        "overhead_share": round(overhead / chunk_total, 4) if chunk_total else None,
        "loadavg_start": load_start,
        "loadavg_end": load_average(),
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20_000, help="examples in the dataset")
    ap.add_argument("--chunk-size", type=int, default=256)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--model", choices=["tiny", "minilm"], default="tiny")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds one job may take")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # still drop the schema under `timeout`
    import torch

    from bench.benchlib import environment

    loadavg_start = load_average()
    schema = f"xmd_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(False)
    os.environ["OMP_NUM_THREADS"] = "1"  # each worker one thread: the workers, not torch, share the cores
    results = []
    try:
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            if args.model == "tiny":
                model_dir = build_tiny_model(tmp / "tiny")
            else:  # the demo model with a (seeded, untrained) two-label head: its timing is a classifier's
                import torch as _torch
                from xmd.core.modeling import load_model, minilm_path, save_model

                _torch.manual_seed(0)
                minilm = load_model(minilm_path(), labels=["negative", "positive"], device="cpu")
                model_dir = save_model(minilm, tmp / "minilm")
            st = Stack.create(tmp / "seed", database_url=url, broker_url=REDIS_URL)
            with st.factory() as db:
                project = projects.create(
                    db_session=db, name="scale", labels=["negative", "positive"], model_source=str(model_dir)
                )
                dataset = datasets.add_dataset(
                    db_session=db, project=project, name="train", role="train", examples=make_data(args.n)
                )
                ds = {"project_id": project.id, "dataset_id": dataset.id}
            for w in args.workers:
                log(f"worker_scaling: {w} worker(s), {args.n} examples, chunks of {args.chunk_size}")
                r = run_one(tmp, url, model_dir, ds, w, args)
                log(f"  {r['rows_per_s']} rows/s, overhead {r['overhead_share']} of a chunk, load {r['loadavg_end']}")
                results.append(r)
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
    base = next((r for r in results if r["workers"] == 1), None)
    for r in results:
        if base:
            r["speedup"] = round(r["rows_per_s"] / base["rows_per_s"], 3)
            r["efficiency"] = round(r["speedup"] / r["workers"], 3)
            if r["rows_per_s_after_load"] and base["rows_per_s_after_load"]:
                r["speedup_after_load"] = round(r["rows_per_s_after_load"] / base["rows_per_s_after_load"], 3)
    emit(
        {
            "benchmark": "worker_scaling",
            "environment": environment(torch.device("cpu"), loadavg_start),
            "params": {
                "n": args.n,
                "chunk_size": args.chunk_size,
                "workers": args.workers,
                "model": args.model,
                "method": "grad_x_input",
                "database": PG_URL + " (a throw-away schema)",
                "broker": REDIS_URL,
                "data": "6-20 words from a 14-word vocabulary, random labels",
                "worker": "celery prefork, concurrency 1, OMP_NUM_THREADS=1",
            },
            "results": results,
        }
    )


if __name__ == "__main__":
    main()
