"""Job event streams cannot starve the service (issue 13, item 2): 100 open ``/api/jobs/{id}/events``
streams from one viewer share one database poller and hold no pool connection, ``/api/me`` stays fast
meanwhile, and a user past ``XMD_EVENT_STREAMS_PER_USER`` gets a 429 that says why. Runs against a real
uvicorn process on SQLite and on PostgreSQL (see dbfixtures)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
from apihelpers import Api, start_server
from xmd.jobs import service as jobs

STREAMS = 100


async def _scenario(base: str, token: str, job_id: str, n: int, move: Any) -> dict[str, Any]:
    """Open ``n`` streams; time ``/api/me`` while they are open; ``move`` the job and read what they get."""
    limits = httpx.Limits(max_connections=n + 20, max_keepalive_connections=n + 20)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
        url = f"/api/jobs/{job_id}/events"
        # The same requests with no stream open first: the machine's own pace in this run (CI is a shared
        # 2-core box whose load moves every latency), the yardstick for the bound below.
        baseline = [await _time_me(client, token) for _ in range(40)]
        opened = await asyncio.gather(
            *(client.send(client.build_request("GET", url, params={"token": token}), stream=True) for _ in range(n))
        )
        try:
            refused = [r for r in opened if r.status_code != 200]
            if refused:  # say what came back instead of "the stream ended without an event"
                body = (await refused[0].aread()).decode(errors="replace")[:300]
                raise AssertionError(f"{len(refused)} of {n} streams refused: {refused[0].status_code} {body}")
            lines = [r.aiter_lines() for r in opened]  # one line iterator per response: a stream is read once
            first = await asyncio.gather(*(_next_event(it) for it in lines))
            extra = await client.get(url, params={"token": token})
            times = [await _time_me(client, token) for _ in range(40)]
            move()
            moved = await asyncio.wait_for(asyncio.gather(*(_next_event(it) for it in lines)), 20)
        finally:
            await asyncio.gather(*(r.aclose() for r in opened))
        return {
            "status": [r.status_code for r in opened],
            "first": first,
            "extra": extra,
            "me": times,
            "baseline": baseline,
            "moved": moved,
        }


async def _time_me(client: httpx.AsyncClient, token: str) -> float:
    """Seconds one ``/api/me`` takes (then a short pause, as a person's clicks would have)."""
    start = time.perf_counter()
    me = await client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    took = time.perf_counter() - start
    assert me.status_code == 200, me.text
    await asyncio.sleep(0.02)
    return took


async def _next_event(lines: AsyncIterator[str]) -> tuple[str, dict]:
    """The next event from a stream's line iterator.

    The iterators belong to one scenario: a module-wide cache keyed by ``id(response)`` once handed the
    [postgresql] run a finished iterator of the [sqlite] run's response whose id had been reused, and the
    stream looked as if it had ended without an event."""
    name = ""
    async for line in lines:
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            return name, json.loads(line[6:])
    raise AssertionError("the stream ended without an event")


def test_hundred_streams_share_one_poller_and_leave_the_api_responsive(api: Api, project, db, db_url, tmp_path):
    job = jobs.create(db_session=db, kind="explain", project_id=project["id"], params={})
    jobs.mark_running(db_session=db, job_id=job.id, worker_host="test:1")
    env = {"XMD_EVENT_STREAMS_PER_USER": str(STREAMS)}
    proc, base = start_server(db_url, api.settings.data_dir, tmp_path / "api.log", env=env)
    try:
        # the streams are live: a progress report reaches every one of them
        def move() -> None:
            jobs.report_progress(db_session=db, job_id=job.id, progress=42.0, step=3, total_steps=10)

        got = asyncio.run(_scenario(base, api.tokens["viewer"], job.id, STREAMS, move))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
    assert got["status"] == [200] * STREAMS
    assert {name for name, _ in got["first"]} == {"job"}
    assert all(d["status"] == "running" for _, d in got["first"])
    assert all(name == "job" and d["progress"] == 42.0 for name, d in got["moved"]), got["moved"][:3]
    extra = got["extra"]
    assert extra.status_code == 429, extra.text
    assert "XMD_EVENT_STREAMS_PER_USER" in extra.json()["detail"]
    p95 = statistics.quantiles(got["me"], n=20)[-1]
    base = statistics.quantiles(got["baseline"], n=20)[-1]
    # 200 ms on a quiet machine (the issue's figure); on a loaded one, at most 4x the same requests' p95
    # without streams in this run. Streams that each held a pool connection made /api/me time out (60 s).
    bound = max(0.2, 4 * base)
    assert p95 < bound, (
        f"/api/me p95 {p95 * 1000:.0f} ms with {STREAMS} open streams, {base * 1000:.0f} ms without "
        f"(load {os.getloadavg()})"
    )
