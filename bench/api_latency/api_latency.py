"""API latency under load: 50 concurrent clients on loopback against a real uvicorn server.

Why: people click through explanations and feedback in the UI; each of these requests has to feel
instant on a project of realistic size. Targets (p95): a cached instance explanation <= 50 ms, the
top-100 task words of a 100k-example project <= 100 ms, a feedback write <= 20 ms.

    python -m bench.api_latency.api_latency [--n 100000] [--clients 50] [--requests 2000]

The project (``--n`` synthetic examples with stored explanations and word aggregates, built like
bench/store_scale/store_scale.py) is made once in ``--data-dir`` and reused. The server runs in its own process
(one uvicorn worker, SQLite by default or ``--database-url``); the load generator is an asyncio
client with ``--clients`` connections, each sending its next request as soon as the last one
answered (``saturated``: the peak throughput, latency is mostly queueing) and again with a random
think time between requests (``interactive``: 50 people clicking; the targets apply here). Both share
this machine's cores, so the numbers include the generator's
own CPU use. Prints one JSON document; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import xmd
from xmd.core.modeling import minilm_path
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words
from xmd.datasets import service as datasets
from xmd.db import make_engine, make_session_factory, upgrade
from xmd.explanations import service as explanations
from xmd.explanations.aggregates import lock_state
from xmd.projects import service as projects
from xmd.users import service as users
from xmd.versions import service as versions

from bench.benchlib import emit, load_average, log, xmd_commit
from bench.store_scale.synthetic import PLANTED, make_data, numpy_deltas

SCENARIOS = ("cached_explanation", "top100_words", "top100_words_suspicion", "feedback_write")
TARGETS_P95_MS = {"cached_explanation": 50.0, "top100_words": 100.0, "feedback_write": 20.0}
PAGE = 1000


def build(data_dir: Path, url: str | None, n: int, explained: int | None = None) -> dict[str, Any]:
    """Create (or reuse) the project; returns ids and an admin token.

    ``explained``: store explanations (and their aggregates) through the service for the first
    ``explained`` examples only, and add the word aggregates of the other ``n - explained`` as
    ``bench/store_scale/store_scale.py --aggregates-only`` does (numpy sums of the same distributions, written by the
    service's ``apply_deltas``): the word ranking then reads the word table of ``n`` explained examples
    without the full ingest, which takes hours at 1M on this machine; requests that need a stored
    explanation are drawn from the explained examples."""
    marker = data_dir / f"bench-{n}-{explained or n}.token"
    engine_url = url or f"sqlite:///{data_dir / 'xmd.db'}"
    if marker.exists():
        token, pid, did = marker.read_text().split()
        return {"token": token, "project_id": int(pid), "dataset_id": int(did), "url": engine_url, "built_s": None}
    data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(engine_url)
    engine = make_engine(engine_url)
    factory = make_session_factory(engine)
    rng = random.Random(0)
    t = time.perf_counter()
    with factory() as db:
        admin = users.create_user(db_session=db, name=f"bench-{n}", role="admin")
        token = users.create_token(db_session=db, user=admin)[1]
        project = projects.create(
            db_session=db, name=f"bench-{n}", labels=["neg", "pos"], model_source=str(minilm_path())
        )
        ds = datasets.add_dataset(
            db_session=db, project=project, name="train", role="train", examples=make_data(n, rng)
        )
        mv = versions.create_base(db_session=db, project=project, path=str(minilm_path()))
        after = None
        done = 0
        limit = explained or n
        while done < limit and (
            rows := datasets.list_examples(
                db_session=db, dataset_id=ds.id, after_id=after, limit=min(PAGE, limit - done)
            )
        ):
            items = []
            for r in rows:
                words, spans = split_words(r.text)
                scores = [rng.gauss(0, 1) + (4.0 if w == PLANTED else 0.0) for w in words]
                exp = CoreExplanation(
                    words, spans, scores, target=1, probs=[0.3, 0.7], method="grad_x_input", n_seen=len(words)
                )
                items.append((r, exp))
            explanations.upsert_explanations(db_session=db, model_version=mv, method="grad_x_input", items=items)
            after = rows[-1].id
            done += len(rows)
            db.expunge_all()
            if done % 20_000 == 0:
                log(f"  built {done}/{n}")
        if explained and n > explained:
            deltas, totals = numpy_deltas(n - explained, seed=0)
            state = lock_state(db, mv, "grad_x_input", 2)
            explanations.apply_deltas(db, state, mv, "grad_x_input", 2, deltas, totals)
            state.n_examples += n - explained
            state.label_totals = [a + b for a, b in zip(state.label_totals or [0, 0], totals, strict=True)]
            db.commit()
            log(f"  aggregates of {n - explained} more examples added")
        ids = (project.id, ds.id)
    engine.dispose()
    marker.write_text(f"{token} {ids[0]} {ids[1]}")
    return {
        "token": token,
        "project_id": ids[0],
        "dataset_id": ids[1],
        "url": engine_url,
        "built_s": round(time.perf_counter() - t, 1),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data_dir: Path, url: str, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "XMD_DATA_DIR": str(data_dir), "XMD_DATABASE_URL": url, "HF_HUB_OFFLINE": "1"}
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "xmd.app:create_app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        # a client that thinks for longer than uvicorn's 5 s default finds its idle connection being
        # closed under it (a read error on its next request); browsers keep connections longer
        "--timeout-keep-alive",
        "30",
    ]
    proc = subprocess.Popen(cmd, env=env)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the API server did not start")


def pct(values: Sequence[float], p: float) -> float:
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return s[k]


async def load(
    base: str,
    token: str,
    clients: int,
    total: int,
    make: Callable[[int], tuple[str, str, Any]],
    think_ms: float = 0.0,
) -> dict:
    """``clients`` coroutines send ``total`` requests between them, each waiting a random think time
    (exponential, mean ``think_ms``; 0 = back to back, which measures saturation) between requests."""
    rng = random.Random(1)
    latencies: list[float] = []
    errors: dict[str, int] = {}
    counter = iter(range(total))
    headers = {"Authorization": f"Bearer {token}"}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=60) as client:

        async def worker() -> None:
            for i in counter:
                if think_ms:
                    await asyncio.sleep(rng.expovariate(1000.0 / think_ms))
                method, path, body = make(i)
                t = time.perf_counter()
                try:
                    r = await client.request(method, path, json=body)
                except httpx.TransportError as exc:  # counted, not fatal: the run goes on
                    errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                    continue
                latencies.append((time.perf_counter() - t) * 1000)
                if r.status_code >= 400:
                    errors[str(r.status_code)] = errors.get(str(r.status_code), 0) + 1

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        wall = time.perf_counter() - t0
    return {
        "requests": len(latencies),
        "p50_ms": round(pct(latencies, 50), 2),
        "p95_ms": round(pct(latencies, 95), 2),
        "p99_ms": round(pct(latencies, 99), 2),
        "mean_ms": round(statistics.fmean(latencies), 2),
        "throughput_rps": round(len(latencies) / wall, 1),
        "errors": errors,
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="examples in the project")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=2000, help="requests per scenario")
    ap.add_argument(
        "--think-ms",
        type=float,
        default=1000.0,
        help="mean pause of each client between requests in the 'interactive' run (people read, then click)",
    )
    ap.add_argument("--data-dir", type=Path, default=Path("runs/bench-api"))
    ap.add_argument("--database-url", default=None, help="default: SQLite in --data-dir")
    ap.add_argument(
        "--explained",
        type=int,
        default=None,
        help="store explanations for this many examples only; the rest's word aggregates are added directly",
    )
    ap.add_argument(
        "--scenarios",
        nargs="+",
        choices=SCENARIOS,
        default=list(SCENARIOS),
        help="only these (e.g. feedback_write, to compare two builds of one route in one session)",
    )
    args = ap.parse_args(argv)
    loadavg = load_average()
    data_dir = args.data_dir.resolve() / str(args.n)
    log(f"building (or reusing) a {args.n}-example project in {data_dir}")
    info = build(data_dir, args.database_url, args.n, args.explained)
    port = free_port()
    server = start_server(data_dir, info["url"], port)
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(0)
    # example ids of this dataset are contiguous from the first one
    first = httpx.get(
        f"{base}/api/datasets/{info['dataset_id']}/examples",
        params={"limit": 1},
        headers={"Authorization": f"Bearer {info['token']}"},
    ).json()["items"][0]["id"]
    ids = [first + rng.randrange(args.explained or args.n) for _ in range(args.requests)]
    pid = info["project_id"]
    scenarios: dict[str, Callable[[int], tuple[str, str, Any]]] = {
        "cached_explanation": lambda i: ("GET", f"/api/examples/{ids[i]}/explanation", None),
        "top100_words": lambda i: ("GET", f"/api/projects/{pid}/words?limit=100", None),
        "top100_words_suspicion": lambda i: ("GET", f"/api/projects/{pid}/words?limit=100&sort=suspicion", None),
        "feedback_write": lambda i: (
            "PUT",
            f"/api/examples/{ids[i]}/feedback",
            {"word_index": 0, "action": "remove" if i % 2 else "add"},
        ),
    }
    results: dict[str, Any] = {}
    try:
        for name, make in scenarios.items():
            if name not in args.scenarios:
                continue
            asyncio.run(load(base, info["token"], args.clients, min(200, args.requests), make))  # warm-up
            log(f"  {name}: {args.requests} requests, {args.clients} clients")
            interactive = asyncio.run(load(base, info["token"], args.clients, args.requests, make, args.think_ms))
            saturated = asyncio.run(load(base, info["token"], args.clients, args.requests, make))
            target = TARGETS_P95_MS.get(name)
            if target is not None:
                interactive["target_p95_ms"] = target
                interactive["met"] = interactive["p95_ms"] <= target
            results[name] = {"interactive": interactive, "saturated": saturated}
    finally:
        server.terminate()
        server.wait(timeout=30)
    emit(
        {
            "benchmark": "api_latency",
            "n_examples": args.n,
            "clients": args.clients,
            "requests_per_scenario": args.requests,
            "think_ms_interactive": args.think_ms,
            "modes": {
                "interactive": "each client pauses a random think time (mean think_ms) between requests",
                "saturated": "each client sends its next request as soon as the last one answered: peak throughput",
            },
            "database": info["url"].split(":")[0],
            "server": "uvicorn, 1 worker process, same machine as the load generator",
            "cpu_count": os.cpu_count(),
            "loadavg_start": loadavg,
            "loadavg_end": load_average(),
            "xmd_commit": xmd_commit(),
            "xmd_package": str(Path(xmd.__file__).parent),  # which tree the server ran (PYTHONPATH may point elsewhere)
            "build_s": info["built_s"],
            "explained": args.explained or args.n,
            "scenarios": results,
        }
    )


if __name__ == "__main__":
    main()
