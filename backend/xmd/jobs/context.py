"""What a job body is given, and who runs it: the contract between the job flows of the domains
(``explanations.flows``, ``versions.flows``, ``versions.hub``) and the worker process that drives them.

The body reads its parameters from the job row, reports progress through :meth:`JobContext.progress`
(which is also how it learns of a cancel request) and returns the job's result. Nothing here knows
Celery: the worker (``xmd.jobs.runner``) builds the context around its own session and heartbeat.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from xmd.config import Settings
from xmd.core.types import Progress, XMDError
from xmd.jobs import service as jobs
from xmd.jobs.models import Job
from xmd.jobs.phases import Phase, Tracker

PHASE_WRITE_S = 1.0
"""A phase's progress is written (and the cancel flag read) at most this often: a cancel is seen within
about a second plus one batch, whatever the phase."""


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
    tracker: Tracker | None = None
    _shown: float = 0.0
    _written: float = 0.0
    _cancel: bool = False

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.job.params or {})

    def plan(self, phases: list[Phase], prior: Mapping[str, float] | None = None) -> Tracker:
        """Declare the body's phases (and the rates earlier jobs measured); written to the row at once."""
        self.tracker = Tracker(phases, prior)
        self.progress(self._shown)
        return self.tracker

    def progress(self, progress: float | None = None, **values: Any) -> bool:
        """Report progress (0–100, losses optional; with a plan, the phases give it and the ETA). Never
        moves the bar back. Returns True when the user asked to cancel (or the job row is gone)."""
        phase: dict[str, Any] | None = None
        if self.tracker is not None:
            cur = self.tracker.current
            eta = self.tracker.eta()
            phase = {"eta_s": eta, "phases": self.tracker.log()}
            if cur is not None:
                phase.update(phase=cur.label, phase_done=cur.done, phase_total=cur.total, phase_unit=cur.unit)
            if progress is None:
                progress = self.tracker.progress()
        self._shown = max(self._shown, progress if progress is not None else self._shown)
        self._written = time.monotonic()
        self._cancel = jobs.report_progress(
            db_session=self.db, job_id=self.job.id, progress=self._shown, phase=phase, **values
        )
        return self._cancel

    def phase(self, name: str) -> Progress:
        """The progress hook of phase ``name`` for the core's loops: records ``done / total``, writes it at
        most every :data:`PHASE_WRITE_S` seconds, and answers False (stop) once a cancel was requested."""

        def hook(done: int, total: int) -> bool:
            assert self.tracker is not None, "declare the phases with plan() first"
            self.tracker.update(name, done, total)
            if time.monotonic() - self._written >= PHASE_WRITE_S or done >= total:
                self.progress()
            return not self._cancel

        return hook

    def cancel_hook(self) -> Progress:
        """A progress hook that only listens for a cancel (read at most every :data:`PHASE_WRITE_S`
        seconds), for loops whose progress is reported elsewhere (an explain job's chunks)."""
        last = [time.monotonic()]

        def hook(done: int, total: int) -> bool:
            if time.monotonic() - last[0] >= PHASE_WRITE_S:
                last[0] = time.monotonic()
                self._cancel = jobs.is_cancel_requested(db_session=self.db, job_id=self.job.id)
                self.db.commit()  # end the read transaction: the chunk's rows are written later
            return not self._cancel

        return hook

    def end_phase(self, name: str) -> bool:
        """Mark phase ``name`` finished and report; True when a cancel was requested."""
        if self.tracker is not None:
            self.tracker.finish(name)
        return self.progress()

    def check_cancel(self) -> None:
        """Raise :class:`JobCancelled` if cancellation was requested (between phases of a body)."""
        if jobs.is_cancel_requested(db_session=self.db, job_id=self.job.id):
            raise JobCancelled("cancelled on request")


Body = Callable[[JobContext], dict[str, Any] | None]
"""A job body: returns the job's result, or None when another participant finishes the job."""
