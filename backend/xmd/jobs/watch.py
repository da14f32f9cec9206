"""One poller per API process for every open job event stream.

Each ``/api/jobs/{id}/events`` stream used to poll the database on its own every 0.5 s through the
thread pool, and held its authentication session (so a pool connection) for as long as it was open:
100 streams from one viewer starved every other request. Here the streams of a process share one
poller: every ``interval`` it reads the watched jobs and their new loss points in one short session
(one connection, released at once) and wakes the streams, which only read memory. Streams per user
are capped (:class:`TooManyStreams`; the view answers 429).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from fastapi.concurrency import run_in_threadpool
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from xmd.core.types import XMDError
from xmd.jobs import service as jobs_service
from xmd.jobs.models import Job, JobMetric

log = logging.getLogger(__name__)
MAX_POINTS = 10_000
"""Loss points kept in memory per watched job (a retrain reports one per optimiser step)."""


class TooManyStreams(XMDError):
    """The user already has as many open event streams as allowed."""


@dataclass
class Watched:
    """What the poller last read of one job; ``job`` is None once the row is gone."""

    job: Job | None = None
    points: list[JobMetric] = field(default_factory=list)
    loaded: bool = False
    subscribers: int = 0
    queue: dict[str, Any] | None = None
    """A queued job's place (``jobs.service.queue_info``)."""


class JobWatch:
    """The shared poller (one per app) and the per-user stream counts."""

    def __init__(
        self,
        factory: sessionmaker[Session],
        *,
        interval: float = 0.5,
        per_user: int = 10,
        queue_of: Callable[[str], str] | None = None,
    ) -> None:
        self.factory, self.interval, self.per_user = factory, interval, per_user
        self.queue_of = queue_of
        self.jobs: dict[str, Watched] = {}
        self.streams: dict[int, int] = {}
        self._lock = threading.Lock()
        self._task: asyncio.Task[None] | None = None
        self._tick: asyncio.Event | None = None
        self._wake: asyncio.Event | None = None
        self.polls = 0

    # -------------------------------------------------------------- subscription

    @asynccontextmanager
    async def subscribe(self, job_id: str, user_id: int) -> AsyncIterator[Watched]:
        """Watch ``job_id`` for ``user_id``: TooManyStreams past the cap; the entry is loaded on return."""
        with self._lock:
            if self.streams.get(user_id, 0) >= self.per_user:
                raise TooManyStreams(
                    f"you already have {self.per_user} open job event streams (XMD_EVENT_STREAMS_PER_USER); "
                    "close one first"
                )
            self.streams[user_id] = self.streams.get(user_id, 0) + 1
        entry = self.jobs.setdefault(job_id, Watched())
        entry.subscribers += 1
        try:
            self._ensure_running()
            while not entry.loaded:
                assert self._wake is not None
                self._wake.set()
                await self.wait(self.interval * 4)
            yield entry
        finally:
            entry.subscribers -= 1
            if entry.subscribers <= 0:
                self.jobs.pop(job_id, None)
            with self._lock:
                left = self.streams.get(user_id, 1) - 1
                if left > 0:
                    self.streams[user_id] = left
                else:
                    self.streams.pop(user_id, None)

    async def wait(self, timeout: float) -> None:
        """Until the next poll has been applied (or ``timeout`` seconds)."""
        tick = self._tick
        if tick is None:
            await asyncio.sleep(timeout)
            return
        with suppress(TimeoutError):
            await asyncio.wait_for(tick.wait(), timeout)

    # -------------------------------------------------------------- the poller

    def _ensure_running(self) -> None:
        loop = asyncio.get_running_loop()
        if self._task is not None and not self._task.done() and self._task.get_loop() is loop:
            return
        self._tick, self._wake = asyncio.Event(), asyncio.Event()
        # A context of its own: the poller outlives the request that started it, and must not carry
        # that request's state (xmd.http.cancel would count its connections as the request's).
        self._task = loop.create_task(self._run(), name="xmd-job-watch", context=contextvars.Context())

    async def _run(self) -> None:
        assert self._wake is not None
        while self.jobs:
            cursors = {jid: (w.points[-1].id if w.points else None) for jid, w in list(self.jobs.items())}
            try:
                found = await run_in_threadpool(self._read, cursors)
            except Exception:  # the database may be briefly unavailable: the streams wait for the next poll
                log.warning("job event poll failed", exc_info=True)
                found = None
            if found is not None:
                self._apply(found)
            self.polls += 1
            tick, self._tick = self._tick, asyncio.Event()
            if tick is not None:
                tick.set()
            self._wake.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval)

    def _read(self, cursors: dict[str, int | None]) -> dict[str, tuple[Job | None, list[JobMetric], dict | None]]:
        """The watched jobs, their loss points after each cursor and queued ones' places, in one short session."""
        out: dict[str, tuple[Job | None, list[JobMetric], dict | None]] = {}
        with self.factory() as db:
            places: dict[str, dict] = {}
            if self.queue_of is not None:
                places = jobs_service.queue_info(db_session=db, job_ids=list(cursors), queue_of=self.queue_of)
            rows = {j.id: j for j in db.scalars(select(Job).where(Job.id.in_(list(cursors))))}
            for job_id, after in cursors.items():
                job = rows.get(job_id)
                points: list[JobMetric] = []
                if job is not None:
                    stmt = select(JobMetric).where(JobMetric.job_id == job_id)
                    if after is not None:
                        stmt = stmt.where(JobMetric.id > after)
                    points = list(db.scalars(stmt.order_by(JobMetric.id).limit(MAX_POINTS)))
                out[job_id] = (job, points, places.get(job_id))
            db.expunge_all()
        return out

    def _apply(self, found: dict[str, tuple[Job | None, list[JobMetric], dict | None]]) -> None:
        for job_id, (job, points, place) in found.items():
            entry = self.jobs.get(job_id)
            if entry is None:
                continue
            entry.job, entry.queue = job, place
            entry.points.extend(points)
            del entry.points[:-MAX_POINTS]
            entry.loaded = True
