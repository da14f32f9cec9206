"""``/api/health`` within a fixed budget, whatever the rest of the API is doing.

The route is ``async``: it never waits for a thread of the API's pool, which long searches may fill.
It checks the database on a connection of its own (a one-connection engine, not the API's pool, which
may be exhausted) from a thread of its own, and waits at most :data:`BUDGET_S`: past that, or when the
database refuses, it answers ``degraded`` with the reason instead of hanging. Checks that arrive while
one is running share it, so a flood of health requests costs one query at a time.

An answer can still be late when the event loop itself is held up (heavy serialisation under load: 2.4-4.7 s
measured with 50 clients, 50 event streams and 50 large explains). The route cannot answer faster than the
loop lets it, so it says so: a tick on the loop measures how late it runs, and a lag over the budget in
the last :data:`LAG_WINDOW_S` seconds, or every thread of the pool taken, answers ``degraded``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Literal

import anyio.to_thread
from pydantic import BaseModel, Field
from sqlalchemy import Engine, text

from xmd.db.engine import make_engine

log = logging.getLogger(__name__)
BUDGET_S = 0.5
"""The longest a health check waits for the database before it answers ``degraded``."""
TICK_S = 0.1
"""How often the loop's lag is measured."""
LAG_WINDOW_S = 5.0
"""A lag this recent still counts."""


class HealthOut(BaseModel):
    status: Literal["ok", "degraded"] = Field(
        description="degraded: the database is slow or unreachable, the event loop late or every request thread busy"
    )
    version: str
    database: Literal["ok", "slow", "unavailable"] = Field(
        description=f"slow: no answer within {BUDGET_S} s; unavailable: the database refused the check"
    )
    event_loop: Literal["ok", "slow"] = Field(
        default="ok",
        description=f"slow: the event loop ran over {BUDGET_S} s late in the last {LAG_WINDOW_S:.0f} s",
    )
    loop_lag_s: float = Field(default=0.0, description=f"the event loop's largest lag in the last {LAG_WINDOW_S:.0f} s")
    threads: Literal["ok", "busy"] = Field(default="ok", description="busy: every thread of the request pool is taken")


class HealthProbe:
    """The database check behind ``/api/health``: one connection, one thread, a budget."""

    def __init__(self, engine: Engine, budget_s: float = BUDGET_S) -> None:
        self.budget_s = budget_s
        self._own = engine.url.database not in (None, "", ":memory:")
        if self._own:  # a connection of its own; an in-memory SQLite database has only the one
            self.engine = make_engine(
                engine.url,
                pool_size=1,
                max_overflow=0,
                pool_timeout=budget_s,
                **({"connect_args": {"connect_timeout": 2}} if engine.dialect.name == "postgresql" else {}),
            )
        else:
            self.engine = engine
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xmd-health")
        self._running: Future[float] | None = None
        self._lags: deque[tuple[float, float]] = deque()
        self._due: float | None = None
        self._ticker: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start measuring the event loop's lag (call on the loop, e.g. in the app's lifespan)."""
        self._ticker = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        while True:
            self._due = time.monotonic() + TICK_S
            await asyncio.sleep(TICK_S)
            now = time.monotonic()
            self._lags.append((now, now - self._due))
            while self._lags and self._lags[0][0] < now - LAG_WINDOW_S:
                self._lags.popleft()

    def loop_lag(self) -> float:
        """The largest lag of the loop in the last :data:`LAG_WINDOW_S` seconds, the tick now overdue included."""
        now = time.monotonic()
        overdue = now - self._due if self._due is not None else 0.0
        return max([overdue, *(lag for at, lag in self._lags if at >= now - LAG_WINDOW_S)])

    @staticmethod
    def threads_busy() -> bool:
        """Whether every thread of the pool that runs the sync routes is taken."""
        limiter = anyio.to_thread.current_default_thread_limiter()
        return limiter.borrowed_tokens >= limiter.total_tokens

    def _check(self) -> float:
        start = time.perf_counter()
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return time.perf_counter() - start

    async def database(self) -> Literal["ok", "slow", "unavailable"]:
        """The database's state, answered within the budget."""
        running = self._running
        if running is None or running.done():
            running = self._running = self._thread.submit(self._check)
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(running)), self.budget_s)
        except TimeoutError:
            return "slow"
        except Exception as exc:  # refused, unreachable, broken connection: the check's answer
            log.warning("health check: the database is unavailable (%s)", type(exc).__name__)
            return "unavailable"
        return "ok"

    def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        self._thread.shutdown(wait=False, cancel_futures=True)
        if self._own:
            self.engine.dispose()
