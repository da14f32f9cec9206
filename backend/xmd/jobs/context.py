"""What a job body is given, and who runs it: the contract between the job flows of the domains
(``explanations.flows``, ``versions.flows``, ``versions.hub``) and the worker process that drives them.

The body reads its parameters from the job row, reports progress through :meth:`JobContext.progress`
(which is also how it learns of a cancel request) and returns the job's result. Nothing here knows
Celery: the worker (``xmd.jobs.runner``) builds the context around its own session and heartbeat.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from xmd.config import Settings
from xmd.core.types import XMDError
from xmd.jobs import service as jobs
from xmd.jobs.models import Job


class JobCancelled(XMDError):
    """Raised inside a job body when the user asked the job to stop."""


def worker_id() -> str:
    """``host:pid`` of this process, recorded on the job so a redelivery can tell if it is alive."""
    return f"{socket.gethostname()}:{os.getpid()}"


def process_alive(owner: str | None) -> bool | None:
    """True/False when ``owner`` ran on this host (checked by pid); None when it cannot be told here."""
    if not owner or ":" not in owner:
        return None
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return None
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a killed child stays a zombie until its parent reaps it: that is dead too
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (OSError, IndexError):
        return True


@dataclass
class JobContext:
    """What a job body gets: the job, its own session, settings, secrets and a progress reporter."""

    job: Job
    db: Session
    settings: Settings
    factory: sessionmaker[Session]
    secrets: dict[str, str] = field(default_factory=dict)
    heartbeat: Any = None

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.job.params or {})

    def progress(self, progress: float, **values: Any) -> bool:
        """Report progress (0–100, losses optional); returns True when the user asked to cancel."""
        return jobs.report_progress(db_session=self.db, job_id=self.job.id, progress=progress, **values)

    def check_cancel(self) -> None:
        """Raise :class:`JobCancelled` if cancellation was requested (between phases of a body)."""
        if jobs.is_cancel_requested(db_session=self.db, job_id=self.job.id):
            raise JobCancelled("cancelled on request")


Body = Callable[[JobContext], dict[str, Any] | None]
"""A job body: returns the job's result, or None when another participant finishes the job."""
