"""At most as many request sessions at once as the connection pool can serve.

A request's session takes its connection in a worker thread (the authentication read), then keeps it
while the view, and after it the session's close, wait for a thread. With more requests than pooled
connections, every thread could end up waiting for a connection that a request waiting for a thread
holds: nothing moved until the pool's timeout (20 s of 503s; ``tests/api/test_disconnect.py`` saw it).
Here a request waits for a slot on the event loop, where waiting costs neither a thread nor a
connection, and a request with a slot always finds a connection. A slot not free within the pool's own
timeout answers as an exhausted pool does (503, "busy"). Sessions opened outside a request (the job
poller, a stream's authentication) take a thread first and a connection second, and hold neither while
waiting, so they need no slot. A view that answers with a long stream (a download) gives its slot and
its connection back before it streams (:func:`xmd.http.deps.end_session`).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import Engine
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.pool import QueuePool


class Held:
    """A taken slot; :meth:`release` gives it back once (again is a no-op), from the event loop or from a
    worker thread (a sync view), where the semaphore is released on its loop."""

    def __init__(self, sem: asyncio.Semaphore | None, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._sem, self._loop = sem, loop

    def release(self) -> None:
        sem, self._sem = self._sem, None
        if sem is None or self._loop is None:
            return
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is self._loop:
            sem.release()
        else:
            self._loop.call_soon_threadsafe(sem.release)


class SessionSlots:
    """One semaphore per event loop (tests drive one app from several), sized to the pool."""

    def __init__(self, size: int | None, timeout_s: float = 30.0) -> None:
        self.size, self.timeout_s = size, timeout_s
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    def for_engine(cls, engine: Engine) -> SessionSlots:
        """``pool_size + max_overflow`` for a bounded queue pool, waited for as long as its checkout would
        be; no bound otherwise (SQLite's shared in-memory connection, a pool without limit)."""
        pool = engine.pool
        if isinstance(pool, QueuePool) and pool.size() > 0 and pool._max_overflow >= 0:
            return cls(pool.size() + pool._max_overflow, pool.timeout())
        return cls(None)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Held]:
        if self.size is None:
            yield Held(None)
            return
        loop = asyncio.get_running_loop()
        sem = self._by_loop.get(loop)
        if sem is None:
            sem = self._by_loop[loop] = asyncio.Semaphore(self.size)
        try:
            # asyncio.timeout cancels the acquire in place: a permit granted at the last moment is given back
            # by the semaphore itself, where wait_for's extra task could lose it on Python 3.11
            async with asyncio.timeout(self.timeout_s):
                await sem.acquire()
        except TimeoutError:
            raise PoolTimeoutError(f"no free session slot within {self.timeout_s:g} s") from None
        held = Held(sem, loop)
        try:
            yield held
        finally:
            held.release()
