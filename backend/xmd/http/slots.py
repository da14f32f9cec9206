"""At most as many request sessions at once as the connection pool can serve.

A request's session takes its connection in a worker thread (the authentication read), then keeps it
while the view, and after it the session's close, wait for a thread. With more requests than pooled
connections, every thread could end up waiting for a connection that a request waiting for a thread
holds: nothing moved until the pool's timeout (20 s of 503s; ``tests/api/test_disconnect.py`` saw it).
Here a request waits for a slot on the event loop, where waiting costs neither a thread nor a
connection, and a request with a slot always finds a connection. Sessions opened outside a request
(the job poller, a stream's authentication) take a thread first and a connection second, and hold
neither while waiting, so they need no slot.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import Engine
from sqlalchemy.pool import QueuePool


class SessionSlots:
    """One semaphore per event loop (tests drive one app from several), sized to the pool."""

    def __init__(self, size: int | None) -> None:
        self.size = size
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    def for_engine(cls, engine: Engine) -> SessionSlots:
        """``pool_size + max_overflow`` for a bounded queue pool; no bound otherwise (SQLite's shared
        in-memory connection, a pool without limit)."""
        pool = engine.pool
        if isinstance(pool, QueuePool) and pool.size() > 0 and pool._max_overflow >= 0:
            return cls(pool.size() + pool._max_overflow)
        return cls(None)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        if self.size is None:
            yield
            return
        loop = asyncio.get_running_loop()
        sem = self._by_loop.get(loop)
        if sem is None:
            sem = self._by_loop[loop] = asyncio.Semaphore(self.size)
        async with sem:
            yield
