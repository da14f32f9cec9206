"""What one request of the hot routes costs: SQL statements (round trips) and CPU, in-process.

Why: under load the API's latency is queueing behind CPU (the server and PostgreSQL share the machine's
cores), so a route's cost per request -- its statements and the CPU they and the view take -- is
what decides how many requests a second it serves. This measures that cost without the noise of a
load test: the real app through FastAPI's TestClient, one request at a time.

    python -m bench.api_latency.route_cost [--n 20000] [--explained 5000] [--requests 200] [--repeats 5]
        [--db sqlite postgresql] [--routes ...] [--profile ROUTE ...]

The project is built like bench/api_latency/api_latency.py's ``build()`` (in a temporary folder; on PostgreSQL in a
fresh database of its own on 127.0.0.1:5432, dropped afterwards). Per route and request: statements
(SQLAlchemy ``before_cursor_execute``; an executemany counts once), commits, rollbacks and pool checkouts
(on PostgreSQL each of these is a round trip too: psycopg sends BEGIN on its own, and the pool pings a
connection it hands out after a pause, ``xmd.db.engine.ping_when_idle``), and CPU in ``--repeats`` rounds
of ``--requests`` requests per route (the routes in turn; the median round is reported, every round beside
it): this process's ``time.process_time`` (app, client and, on SQLite, the database; the ``health`` route
shows the client's and the middleware's share) and, on PostgreSQL, the CPU of the app's database backends
(from /proc, per connection the app opens). ``--profile ROUTE`` adds a cProfile of that route (the app's
thread-pool calls run inline). Prints one JSON document; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio.to_thread
import httpx
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import make_url
from xmd.app import create_app
from xmd.config import Settings
from xmd.db import make_engine

from bench.api_latency.api_latency import build
from bench.benchlib import emit, load_average, log

PG_ADMIN_URL = os.environ.get("XMD_BENCH_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
CLOCK_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")


@contextmanager
def pg_database() -> Iterator[str]:
    """URL of a fresh PostgreSQL database, dropped on exit."""
    name = f"xmd_route_cost_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


class Counter:
    """Statements, commits and rollbacks the app's engine sends; PostgreSQL backend pids it opened."""

    def __init__(self, engine: Any) -> None:
        self.statements = self.commits = self.rollbacks = self.checkouts = 0
        self.backends: set[int] = set()
        self.sql: list[str] = []
        self.keep_sql = False
        event.listen(engine, "before_cursor_execute", self._execute)
        event.listen(engine, "commit", self._commit)
        event.listen(engine, "rollback", self._rollback)
        event.listen(engine, "checkout", self._checkout)
        if engine.dialect.name == "postgresql":
            event.listen(engine, "connect", self._connect)  # the app's engine is new: no connection yet

    def _connect(self, dbapi_connection: Any, _record: Any) -> None:
        cur = dbapi_connection.cursor()
        cur.execute("select pg_backend_pid()")
        self.backends.add(int(cur.fetchone()[0]))
        cur.close()

    def _execute(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        self.statements += 1
        if self.keep_sql:
            self.sql.append(" ".join(statement.split())[:400])

    def _commit(self, _conn: Any) -> None:
        self.commits += 1

    def _rollback(self, _conn: Any) -> None:
        self.rollbacks += 1

    def _checkout(self, *_: Any) -> None:
        self.checkouts += 1

    def snapshot(self) -> tuple[int, int, int, int]:
        return self.statements, self.commits, self.rollbacks, self.checkouts

    def backend_cpu_s(self) -> float:
        """User + system CPU of the app's PostgreSQL backends so far (0 on SQLite: it is in-process)."""
        total = 0
        for pid in self.backends:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
        return total * CLOCK_TICK_S


def routes(
    info: dict[str, Any], first_example: int, explained: int
) -> dict[str, Callable[[int], tuple[str, str, Any]]]:
    pid = info["project_id"]
    rng = random.Random(0)
    ids = [first_example + rng.randrange(explained) for _ in range(100_000)]
    words = ["spielberg", "great", "movie", "boring", "plot", "actor", "film", "story"]
    return {
        "health": lambda i: ("GET", "/api/health", None),
        "top100_words": lambda i: ("GET", f"/api/projects/{pid}/words?limit=100", None),
        "top100_words_suspicion": lambda i: ("GET", f"/api/projects/{pid}/words?limit=100&sort=suspicion", None),
        "instance_feedback_write": lambda i: (
            "PUT",
            f"/api/examples/{ids[i % len(ids)]}/feedback",
            {"word_index": 0, "action": "remove" if i % 2 else "add"},
        ),
        "task_feedback_write": lambda i: (
            "PUT",
            f"/api/projects/{pid}/task-feedback",
            {"word": words[i % len(words)], "action": "remove" if i % 2 else "add"},
        ),
    }


def first_look(
    client: TestClient, counter: Counter, make: Callable[[int], tuple[str, str, Any]], start: int
) -> dict[str, Any]:
    """Warm the route up (the ranking's per-state caches, the pool), then record one request's statements."""
    for i in range(start, start + 20):
        _send(client, make, i)
    counter.keep_sql, counter.sql = True, []
    before = counter.snapshot()
    _send(client, make, start + 20)
    one = [a - b for a, b in zip(counter.snapshot(), before, strict=True)]
    counter.keep_sql = False
    return {"statements": one[0], "commits": one[1], "rollbacks": one[2], "checkouts": one[3], "sql": counter.sql}


def _send(client: TestClient, make: Callable[[int], tuple[str, str, Any]], i: int) -> None:
    method, path, body = make(i)
    r = client.request(method, path, json=body)
    assert r.status_code < 400, (path, r.status_code, r.text[:300])


def timed_block(
    client: TestClient | Inline, counter: Counter, make: Callable[[int], tuple[str, str, Any]], n: int, start: int
) -> dict[str, float]:
    """``n`` requests: per request, statements etc. and CPU (this process, the database backends) and wall ms."""
    s0, c0, r0, k0 = counter.snapshot()
    db0, cpu0, wall0 = counter.backend_cpu_s(), time.process_time(), time.perf_counter()
    if isinstance(client, Inline):
        client.send_all(make, range(start, start + n))
    else:
        for i in range(start, start + n):
            _send(client, make, i)
    cpu, wall, db_cpu = time.process_time() - cpu0, time.perf_counter() - wall0, counter.backend_cpu_s() - db0
    s1, c1, r1, k1 = counter.snapshot()
    return {
        "statements_per_request": (s1 - s0) / n,
        "commits_per_request": (c1 - c0) / n,
        "rollbacks_per_request": (r1 - r0) / n,
        "pool_checkouts_per_request": (k1 - k0) / n,
        "app_cpu_ms": cpu / n * 1000,
        "db_backend_cpu_ms": db_cpu / n * 1000,
        "wall_ms": wall / n * 1000,
    }


def summary(blocks: list[dict[str, float]]) -> dict[str, Any]:
    """Counts from the blocks (the same in each), times as the median block and every block's value."""
    out: dict[str, Any] = {}
    for key in blocks[0]:
        values = [b[key] for b in blocks]
        if key.endswith("_per_request"):
            out[key] = round(statistics.fmean(values), 2)
        else:
            out[key] = round(statistics.median(values), 2)
            out[key.replace("_ms", "_ms_blocks")] = [round(v, 2) for v in values]
    return out


@contextmanager
def threads_inline() -> Iterator[None]:
    """Run the app's thread-pool calls inline on this thread while the block runs: no thread hops, and
    cProfile (which sees one thread) sees the app's work."""

    async def inline(func: Callable[..., Any], *args: Any, **_: Any) -> Any:
        return func(*args)

    saved = anyio.to_thread.run_sync
    anyio.to_thread.run_sync = inline  # type: ignore[assignment]
    try:
        yield
    finally:
        anyio.to_thread.run_sync = saved  # type: ignore[assignment]


class Inline:
    """Requests through httpx's ASGI transport on this thread, the app's thread-pool calls run inline: no
    thread hops, so the CPU measured is the app's own (and the client's, small) rather than the
    TestClient's (``health`` costs ~5 ms a request through it, under 1 ms this way)."""

    def __init__(self, app: Any, headers: dict[str, str]) -> None:
        self.app, self.headers = app, headers

    def send_all(self, make: Callable[[int], tuple[str, str, Any]], indices: Iterable[int]) -> None:
        async def go() -> None:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test", headers=self.headers) as c:
                for i in indices:
                    method, path, body = make(i)
                    r = await c.request(method, path, json=body)
                    assert r.status_code < 400, (path, r.status_code, r.text[:300])

        with threads_inline():
            asyncio.run(go())


def profile(app: Any, headers: dict[str, str], make: Callable[[int], tuple[str, str, Any]], n: int, start: int) -> str:
    """cProfile of ``n`` requests with the app's thread-pool calls run inline on this thread (cProfile sees
    one thread; the TestClient runs the app on others), through httpx's ASGI transport."""

    async def go() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test", headers=headers) as client:
            prof.enable()
            for i in range(start, start + n):
                method, path, body = make(i)
                await client.request(method, path, json=body)
            prof.disable()

    prof = cProfile.Profile()
    with threads_inline():
        asyncio.run(go())
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(70)
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(40)
    return out.getvalue()


def run_one(url: str, data_dir: Path, args: argparse.Namespace) -> dict[str, Any]:
    log(f"building a {args.n}-example project ({args.explained} explained) on {url.split(':')[0]}")
    info = build(data_dir, url, args.n, args.explained)
    os.environ.update({"XMD_DATA_DIR": str(data_dir), "XMD_DATABASE_URL": url, "HF_HUB_OFFLINE": "1"})
    engine = make_engine(url)
    counter = Counter(engine)  # before the app opens its first connection
    app = create_app(Settings.from_env(), engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)
    out: dict[str, Any] = {"build_s": info["built_s"]}
    headers = {"Authorization": f"Bearer {info['token']}"}
    with TestClient(app, headers=headers) as client:
        first = client.get(f"/api/datasets/{info['dataset_id']}/examples", params={"limit": 1}).json()["items"][0]["id"]
        table = routes(info, first, args.explained)
        unknown = sorted(set(args.routes or ()) - set(table))
        if unknown:
            raise SystemExit(f"unknown route(s) {unknown}; choose from {sorted(table)}")
        chosen = {name: make for name, make in table.items() if not args.routes or name in args.routes}
        firsts = {name: first_look(client, counter, make, k * 100_000) for k, (name, make) in enumerate(chosen.items())}
        blocks: dict[str, list[dict[str, float]]] = {name: [] for name in chosen}
        # Blocks of every route in turn, repeated: a drift in the machine's load touches every route alike.
        for rep in range(args.repeats):
            log(f"  round {rep + 1}/{args.repeats}: {args.requests} requests per route")
            for k, (name, make) in enumerate(chosen.items()):
                start = k * 100_000 + 1_000 + rep * args.requests
                sender = Inline(app, headers) if args.inline else client
                blocks[name].append(timed_block(sender, counter, make, args.requests, start))
        for k, (name, make) in enumerate(chosen.items()):
            out[name] = {**summary(blocks[name]), "one_request": firsts[name]}
            if name in (args.profile or []):
                out[name]["profile"] = profile(app, headers, make, args.requests, k * 100_000 + 50_000)
                print(out[name]["profile"], file=sys.stderr)
    engine.dispose()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--explained", type=int, default=5_000)
    ap.add_argument("--requests", type=int, default=200, help="requests per route and round")
    ap.add_argument("--repeats", type=int, default=5, help="rounds over the routes; times are the median round")
    ap.add_argument("--db", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"])
    ap.add_argument("--inline", action="store_true", help="time through the ASGI transport on one thread (see Inline)")
    ap.add_argument("--routes", nargs="*", default=None, help="only these routes (default: all)")
    ap.add_argument("--profile", nargs="*", default=None, help="also cProfile these routes")
    ap.add_argument("--no-sql", action="store_true", help="leave the statements of one request out of the output")
    args = ap.parse_args(argv)
    doc: dict[str, Any] = {
        "benchmark": "route_cost",
        "n_examples": args.n,
        "explained": args.explained,
        "requests_per_route_and_round": args.requests,
        "rounds": args.repeats,
        "client": "httpx ASGI transport, thread-pool calls inline"
        if args.inline
        else "fastapi TestClient, in-process, one request at a time",
        "cpu_count": os.cpu_count(),
        "loadavg_start": load_average(),
        "databases": {},
    }
    for db in args.db:
        with tempfile.TemporaryDirectory(prefix="xmd-route-cost-") as tmp:
            data_dir = Path(tmp)
            if db == "sqlite":
                doc["databases"][db] = run_one(f"sqlite:///{data_dir / 'xmd.db'}", data_dir, args)
            else:
                with pg_database() as url:
                    doc["databases"][db] = run_one(url, data_dir, args)
    if args.no_sql:
        for routes_out in doc["databases"].values():
            for r in routes_out.values():
                if isinstance(r, dict):
                    r["one_request"].pop("sql", None)
                    r.pop("profile", None)
    doc["loadavg_end"] = load_average()
    emit(doc)


if __name__ == "__main__":
    main()
