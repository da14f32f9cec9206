"""The session slots' own contract (``xmd/http/slots.py``), without a server: a slot given back early from
a worker thread (a sync view's ``end_session``) is free at once and is not given back twice, and a
slot not free within the timeout raises the pool's own timeout error (which the API answers 503)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import create_engine
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.pool import StaticPool
from xmd.http.slots import SessionSlots


def test_a_slot_released_from_a_thread_is_free_at_once_and_counted_once() -> None:
    async def scenario() -> int:
        slots = SessionSlots(1, timeout_s=1)
        async with slots.slot() as held:
            t = threading.Thread(target=held.release)
            t.start()
            t.join()
            await asyncio.sleep(0.05)  # the release runs on the loop
            async with slots.slot():  # taken while the first context is still open
                pass
        return next(iter(slots._by_loop.values()))._value

    assert asyncio.run(scenario()) == 1  # one slot, whatever released it and however often


def test_no_free_slot_within_the_timeout_is_the_pools_timeout_error() -> None:
    async def scenario() -> None:
        slots = SessionSlots(1, timeout_s=0.2)
        async with slots.slot():
            with pytest.raises(PoolTimeoutError, match="no free session slot"):
                async with slots.slot():
                    pass
        async with slots.slot():  # the timed-out wait took nothing
            pass

    asyncio.run(scenario())


def test_the_size_follows_the_pool() -> None:
    bounded = create_engine("sqlite:///unused.db", pool_size=3, max_overflow=2, pool_timeout=7)  # never connects
    shared = create_engine("sqlite://", poolclass=StaticPool)
    try:
        assert (SessionSlots.for_engine(bounded).size, SessionSlots.for_engine(bounded).timeout_s) == (5, 7)
        assert SessionSlots.for_engine(shared).size is None
    finally:
        bounded.dispose()
        shared.dispose()
