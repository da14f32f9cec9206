"""What ``xmd serve``'s supervisor did to its embedded workers, for the jobs list (issue 31 §2).

The supervisor (``workers.launch.Supervisor``) and the API run in the one ``xmd serve`` process, so the
events are kept here, in memory, for the length of the server's run: a restarted server starts fresh
workers, and an old death says nothing about them. The jobs list answers them as ``workers`` notices
(:func:`notices`), so a person whose retrain failed because its worker died also learns that a new
worker took over (and that starting the job again will run).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from xmd.db.base import utcnow

SHOW_FOR_S = 6 * 3600.0
"""A notice stays on the jobs list this long after the worker's last death or restart."""


@dataclass(frozen=True)
class WorkerEvent:
    """The latest death of one queue's worker, and its restart once it is back."""

    queue: str
    role: str
    """What the worker runs, in words: "retrain" or "explain, evaluate and push"."""
    exit_code: int | None
    died_at: datetime
    restart_in_s: float | None
    restarted_at: datetime | None = None
    restarts: int = 0
    """Restarts of this queue's worker since the server started (this one included, once restarted)."""

    @property
    def last_at(self) -> datetime:
        return self.restarted_at or self.died_at

    def message(self) -> str:
        """The notice in words, with UTC times (the UI writes its own with the reader's clock)."""
        who = f"the {self.role} worker" if self.role == "retrain" else f"the worker for {self.role} jobs"
        died = f"after it died ({_exit(self.exit_code)})"
        if self.restarted_at is None:
            wait = f" in {self.restart_in_s:.0f} s" if self.restart_in_s is not None else ""
            return f"{who} died at {self.died_at:%H:%M} UTC ({_exit(self.exit_code)}); restarting it{wait}"
        return (
            f"{who} was restarted at {self.restarted_at:%H:%M} UTC {died}; restart {self.restarts} "
            "since the server started. A job it was running then has failed: start it again."
        )


def _exit(code: int | None) -> str:
    return "exit status unknown" if code is None else f"exit {code}"


class WorkerNotices:
    """Thread-safe record of the supervisor's events: the supervisor writes, the API reads."""

    def __init__(self, roles: dict[str, str]) -> None:
        """``roles``: each supervised queue's role in words (``xmd serve``: its retrain queue and the other)."""
        self._roles = dict(roles)
        self._latest: dict[str, WorkerEvent] = {}
        self._lock = threading.Lock()

    def died(self, queue: str, exit_code: int | None, restart_in_s: float | None) -> None:
        with self._lock:
            before = self._latest.get(queue)
            self._latest[queue] = WorkerEvent(
                queue=queue,
                role=self._roles.get(queue, queue),
                exit_code=exit_code,
                died_at=utcnow(),
                restart_in_s=restart_in_s,
                restarts=before.restarts if before else 0,
            )

    def restarted(self, queue: str) -> None:
        with self._lock:
            event = self._latest.get(queue)
            if event is not None:
                self._latest[queue] = replace(event, restarted_at=utcnow(), restarts=event.restarts + 1)

    def current(self, now: datetime | None = None) -> list[WorkerEvent]:
        """The events of the last :data:`SHOW_FOR_S` seconds, one per queue, newest first."""
        since = (now or utcnow()) - timedelta(seconds=SHOW_FOR_S)
        with self._lock:
            events = [e for e in self._latest.values() if e.last_at >= since]
        return sorted(events, key=lambda e: e.last_at, reverse=True)


def notices_of(state: Any) -> WorkerNotices | None:
    """What ``xmd serve`` put on the app's ``state`` (:func:`xmd.app.create_app`); None without a supervisor."""
    return getattr(state, "worker_notices", None)


def notices(record: WorkerNotices | None) -> list[WorkerEvent]:
    """What the jobs list shows: nothing where no supervisor runs (``xmd worker`` deployments, tests)."""
    return record.current() if record is not None else []
