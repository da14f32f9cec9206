"""``/api/health`` within a fixed budget, whatever the rest of the API is doing.

The route is ``async``: it never waits for a thread of the API's pool, which long searches may fill.
It checks the database on a connection of its own (a one-connection engine, not the API's pool, which
may be exhausted) from a thread of its own, and waits at most :data:`BUDGET_S`: past that, or when the
database refuses, it answers ``degraded`` with the reason instead of hanging. Checks that arrive while
one is running share it, so a flood of health requests costs one query at a time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Literal

from pydantic import BaseModel, Field
from sqlalchemy import Engine, text

from xmd.db.engine import make_engine

log = logging.getLogger(__name__)
BUDGET_S = 0.5
"""The longest a health check waits for the database before it answers ``degraded``."""


class HealthOut(BaseModel):
    status: Literal["ok", "degraded"] = Field(description="degraded: the database is slow or unreachable")
    version: str
    database: Literal["ok", "slow", "unavailable"] = Field(
        description=f"slow: no answer within {BUDGET_S} s; unavailable: the database refused the check"
    )


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
        self._thread.shutdown(wait=False, cancel_futures=True)
        if self._own:
            self.engine.dispose()
