"""Starting jobs and ending abandoned ones, for every kind alike: the domains check what their kinds
need before calling :func:`start` (e.g. :func:`xmd.explanations.flows.start_explain`) and register
their bodies (:mod:`xmd.jobs.kinds`); the stale-job sweep that cleans up after a dead worker is
:func:`sweep`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any, Protocol

from sqlalchemy.orm import Session

from xmd.db.base import utcnow
from xmd.http.pagination import page
from xmd.jobs import kinds, service
from xmd.jobs import secrets as job_secrets
from xmd.jobs.context import process_alive
from xmd.jobs.models import Job, JobStatus
from xmd.jobs.queue import Enqueue, QueueUnavailableError
from xmd.jobs.schemas import JobPage, job_out, worker_notice_out
from xmd.jobs.supervision import WorkerNotices, notices


class Owner(Protocol):
    """What a job belongs to (a project): only its id is read."""

    id: int


def start(
    db: Session,
    enqueue: Enqueue,
    project: Owner | None,
    kind: str,
    params: dict[str, Any],
    secrets: dict[str, str] | None = None,
) -> Job:
    """Create the job row, commit it, then send it; if the broker refuses, the row says so (failed).
    A job of no project (``project=None``: the demo's set-up) is listed by ``GET /api/jobs``."""
    project_id = project.id if project is not None else None
    job = service.create(db_session=db, kind=kind, project_id=project_id, params=params)
    pads = job_secrets.seal(db, job.id, secrets)  # the message carries pads only (xmd.jobs.secrets)
    try:
        enqueue(job, pads)
    except Exception as exc:  # the broker is down or refused: say so on the row and to the caller
        job_secrets.discard(db, job.id)
        service.fail(db_session=db, job_id=job.id, error=f"could not reach the job queue: {type(exc).__name__}: {exc}")
        raise QueueUnavailableError(
            f"the job queue is unavailable ({type(exc).__name__}); job {job.id} was marked failed"
        ) from exc
    return service.get_or_raise(db_session=db, job_id=job.id)


def fail_abandoned(db: Session, kind: str, *, stale_after_s: float, error: str) -> list[str]:
    """Fail the unfinished jobs of ``kind`` that nobody works on any more, at the start of a server that
    runs them itself: queued ones (an earlier server queued them and stopped) and running ones whose
    worker is gone (its process is dead, or on another host, silent for ``stale_after_s``). A running job
    whose worker still lives is left alone. Returns the ids failed; each row says ``error``."""
    failed = []
    for job in service.list_jobs(db_session=db, kind=kind, limit=500):
        if job.status.finished:
            continue
        if job.status is JobStatus.RUNNING:
            alive = process_alive(job.worker_host)
            last = job.heartbeat_at or job.started_at or job.created_at
            if alive or (alive is None and utcnow() - last < timedelta(seconds=stale_after_s)):
                continue
        if service.fail(db_session=db, job_id=job.id, error=error):
            failed.append(job.id)
    return failed


def abandon(db: Session, job_id: str, *, error: str) -> bool:
    """Stop an unfinished job for good, saying why (the server that runs it is stopping): its worker
    stops at its next step (the cancel flag), and the row says ``error``. False if it had finished."""
    job = service.get(db_session=db, job_id=job_id)
    if job is None or job.status.finished:
        return False
    if job.status is JobStatus.RUNNING:
        service.request_cancel(db_session=db, job_id=job_id)
    return service.fail(db_session=db, job_id=job_id, error=error)


def sweep(db: Session, *, stale_after_s: float) -> dict[str, list]:
    """Fail running jobs whose heartbeat is older than ``stale_after_s`` (their worker died without a
    word), and whatever the domains clean up after them (:func:`xmd.jobs.kinds.on_cleanup`: the model
    versions they left half-made, under ``"versions"``)."""
    stale = service.mark_stale_as_failed(db_session=db, older_than=timedelta(seconds=stale_after_s))
    stale += fail_lost(db)
    job_secrets.expire(db)
    return {"jobs": stale, **kinds.clean_up(db)}


LOST = (
    "the worker running this job ({host}) was lost (killed or crashed) before it finished; nothing it started "
    "was kept (the model version it began from, the feedback and earlier results are unchanged). Start the "
    "job again to retry."
)


def fail_lost(db: Session) -> list[str]:
    """Fail at once the running jobs whose worker process is known dead (it ran on this host and its pid
    is gone): no need to wait ``stale_after_s`` for their heartbeat to age."""
    lost = []
    for job in service.list_jobs(db_session=db, status=JobStatus.RUNNING, limit=500):
        if process_alive(job.worker_host) is False and service.fail(
            db_session=db, job_id=job.id, error=LOST.format(host=job.worker_host)
        ):
            lost.append(job.id)
    return lost


def jobs_page(
    db: Session,
    queue_of: Callable[[str], str],
    filters: dict[str, Any],
    offset: int,
    limit: int,
    workers: WorkerNotices | None = None,
) -> JobPage:
    """A page of jobs (``filters``: project_id, status, kind) with their queue places: a queued job says
    whom it waits behind (``queue_of``: a kind's queue under the app's settings); ``workers``: what
    ``xmd serve``'s supervisor did lately (a worker died, was restarted), shown above the list."""
    rows = service.list_jobs(db_session=db, offset=offset, limit=limit, **filters)
    total = service.count_jobs(db_session=db, **filters)
    queued = [j.id for j in rows if j.status is JobStatus.QUEUED]
    places = service.queue_info(db_session=db, job_ids=queued, queue_of=queue_of) if queued else {}
    items = [job_out(j, places.get(j.id)) for j in rows]
    return JobPage(**page(items, total, offset, limit), workers=[worker_notice_out(e) for e in notices(workers)])
