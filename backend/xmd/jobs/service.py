"""Jobs: created by the API (queued), driven by one worker (running → succeeded | failed | cancelled).

State changes are single guarded UPDATEs (``WHERE status = …``) committed at once, so the API, a
worker and the stale-job sweeper never overwrite each other's transitions, and a worker's progress
is visible to the UI the moment it is reported. A job whose worker died is failed by
:func:`mark_stale_as_failed` ("nothing is lost": the row says what happened).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, column, func, insert, select, table, update
from sqlalchemy.orm import Session

from xmd.db.base import utcnow
from xmd.db.errors import ConflictError, found
from xmd.jobs import kinds
from xmd.jobs.models import Job, JobMetric, JobStatus

ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)
PROJECTS = table("projects", column("id"), column("name"))
"""The table a job's ``project_id`` refers to, by name as its foreign key does: jobs imports no domain."""
PHASE_COLUMNS = ("phase", "phase_done", "phase_total", "phase_unit", "eta_s", "phases")


def get(*, db_session: Session, job_id: str) -> Job | None:
    """Job by id, freshly read (another process may have changed it), or None."""
    return db_session.get(Job, job_id, populate_existing=True)


def get_or_raise(*, db_session: Session, job_id: str) -> Job:
    """Job by id; NotFoundError if there is none."""
    return found(get(db_session=db_session, job_id=job_id), f"job {job_id}")


def list_jobs(
    *,
    db_session: Session,
    project_id: int | None = None,
    status: JobStatus | str | None = None,
    kind: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> list[Job]:
    """Jobs, newest first, optionally of one project, status or kind."""
    stmt = select(Job).where(*_job_filters(project_id, status, kind))
    stmt = stmt.order_by(Job.created_at.desc(), Job.id).offset(offset).limit(limit)
    return list(db_session.scalars(stmt.execution_options(populate_existing=True)))


def count_jobs(
    *,
    db_session: Session,
    project_id: int | None = None,
    status: JobStatus | str | None = None,
    kind: str | None = None,
) -> int:
    """How many jobs :func:`list_jobs` pages through with these filters."""
    where = _job_filters(project_id, status, kind)
    return int(db_session.scalar(select(func.count()).select_from(Job).where(*where)) or 0)


def _job_filters(project_id: int | None, status: JobStatus | str | None, kind: str | None) -> list[Any]:
    where: list[Any] = []
    if project_id is not None:
        where.append(Job.project_id == project_id)
    if status is not None:
        where.append(Job.status == JobStatus(status))
    if kind is not None:
        where.append(Job.kind == str(kind))
    return where


def create(
    *, db_session: Session, kind: str, project_id: int | None = None, params: dict[str, Any] | None = None
) -> Job:
    """A queued job of a registered ``kind`` (DataError otherwise); commit before enqueueing it, so the
    worker finds the row."""
    job = Job(kind=kinds.check(kind), project_id=project_id, params=dict(params or {}), status=JobStatus.QUEUED)
    db_session.add(job)
    db_session.commit()
    return job


def _transition(db_session: Session, job_id: str, allowed: tuple[JobStatus, ...], **values: Any) -> bool:
    res = db_session.execute(
        update(Job).where(Job.id == job_id, Job.status.in_(allowed)).values(**values),
        execution_options={"synchronize_session": False},
    )
    db_session.commit()
    return bool(res.rowcount)


def mark_running(*, db_session: Session, job_id: str, worker_host: str | None = None) -> bool:
    """queued → running; False if the job is no longer queued (e.g. cancelled before it started)."""
    now = utcnow()
    return _transition(
        db_session,
        job_id,
        (JobStatus.QUEUED,),
        status=JobStatus.RUNNING,
        started_at=now,
        heartbeat_at=now,
        worker_host=worker_host,
    )


def report_progress(
    *,
    db_session: Session,
    job_id: str,
    progress: float,
    step: int | None = None,
    total_steps: int | None = None,
    epoch: float | None = None,
    task_loss: float | None = None,
    er_loss: float | None = None,
    loss: float | None = None,
    lr: float | None = None,
    phase: Mapping[str, Any] | None = None,
    forward_only: bool = False,
) -> bool:
    """Update a running job's progress (0–100; also its heartbeat) and, when losses are given, append a
    point to its loss curve; ``phase`` sets the phase columns (``phase``, ``phase_done``, ``phase_total``,
    ``phase_unit``, ``eta_s``, ``phases``). Committed at once. Returns True if cancellation was requested
    (or the row is gone), so the loop reporting can stop. ``forward_only``: progress and step never move
    back (several workers of one job report out of order)."""
    now = utcnow()
    pct = min(100.0, max(0.0, float(progress)))
    values: dict[str, Any] = {"progress": pct, "heartbeat_at": now}
    if forward_only:
        values["progress"] = case((Job.progress > pct, Job.progress), else_=pct)
    if step is not None:
        values["step"] = case((Job.step > step, Job.step), else_=step) if forward_only else step
    if total_steps is not None:
        values["total_steps"] = total_steps
    if epoch is not None:
        values["epoch"] = epoch
    values.update({k: v for k, v in (phase or {}).items() if k in PHASE_COLUMNS})
    res = db_session.execute(
        update(Job).where(Job.id == job_id, Job.status == JobStatus.RUNNING).values(**values),
        execution_options={"synchronize_session": False},
    )
    if res.rowcount and any(v is not None for v in (task_loss, er_loss, loss, lr)):
        db_session.execute(
            insert(JobMetric).values(
                job_id=job_id,
                step=step or 0,
                epoch=epoch,
                task_loss=task_loss,
                er_loss=er_loss,
                loss=loss,
                lr=lr,
                at=now,
            )
        )
    db_session.commit()
    return is_cancel_requested(db_session=db_session, job_id=job_id)


def heartbeat(*, db_session: Session, job_id: str) -> bool:
    """Tell the sweeper the worker is alive without changing progress; returns is-cancel-requested."""
    db_session.execute(
        update(Job).where(Job.id == job_id, Job.status == JobStatus.RUNNING).values(heartbeat_at=utcnow()),
        execution_options={"synchronize_session": False},
    )
    db_session.commit()
    return is_cancel_requested(db_session=db_session, job_id=job_id)


def finish(*, db_session: Session, job_id: str, result: dict[str, Any] | None = None) -> bool:
    """running → succeeded with ``result``; False if the job was not running (e.g. already failed)."""
    now = utcnow()
    return _transition(
        db_session,
        job_id,
        (JobStatus.RUNNING,),
        status=JobStatus.SUCCEEDED,
        result=result,
        progress=100.0,
        phase=None,
        eta_s=None,
        finished_at=now,
        heartbeat_at=now,
    )


def fail(*, db_session: Session, job_id: str, error: str) -> bool:
    """queued/running → failed with an error message meant for the user; False if already finished."""
    now = utcnow()
    return _transition(db_session, job_id, ACTIVE, status=JobStatus.FAILED, error=error, finished_at=now, eta_s=None)


def mark_cancelled(*, db_session: Session, job_id: str) -> bool:
    """queued/running → cancelled (the worker acknowledging a cancel request); False if already finished."""
    now = utcnow()
    return _transition(db_session, job_id, ACTIVE, status=JobStatus.CANCELLED, finished_at=now, eta_s=None)


def request_cancel(*, db_session: Session, job_id: str) -> Job:
    """Ask a job to stop: a queued job is cancelled at once (no worker has it); a running one gets
    ``cancel_requested`` and its worker stops at its next progress report. ConflictError if finished."""
    job = get_or_raise(db_session=db_session, job_id=job_id)
    if job.status.finished:
        raise ConflictError(f"job {job_id} is already {job.status.value}")
    if not _transition(
        db_session,
        job_id,
        (JobStatus.QUEUED,),
        status=JobStatus.CANCELLED,
        cancel_requested=True,
        finished_at=utcnow(),
    ):
        _transition(db_session, job_id, (JobStatus.RUNNING,), cancel_requested=True)
    return get_or_raise(db_session=db_session, job_id=job_id)


def is_cancel_requested(*, db_session: Session, job_id: str) -> bool:
    """Whether someone asked this job to stop (read from the database, not the session cache); a job
    whose row is gone counts as cancelled, so its worker never works on for nobody."""
    flag = db_session.scalar(select(Job.cancel_requested).where(Job.id == job_id))
    return flag is None or bool(flag)


def mark_stale_as_failed(*, db_session: Session, older_than: timedelta, now: datetime | None = None) -> list[str]:
    """Fail running jobs whose last heartbeat (or start) is older than ``older_than``: their worker
    died without saying so. Returns the ids of the jobs failed."""
    now = now or utcnow()
    cutoff = now - older_than
    last_seen = func.coalesce(Job.heartbeat_at, Job.started_at, Job.created_at)
    stmt = (
        update(Job)
        .where(Job.status == JobStatus.RUNNING, last_seen < cutoff)
        .values(
            status=JobStatus.FAILED,
            finished_at=now,
            error=f"the worker stopped reporting (no heartbeat for more than {older_than}); the job was abandoned",
        )
        .returning(Job.id)
    )
    ids = list(db_session.execute(stmt, execution_options={"synchronize_session": False}).scalars())
    db_session.commit()
    return ids


def metrics(*, db_session: Session, job_id: str, after_id: int | None = None, limit: int = 10000) -> list[JobMetric]:
    """Loss-curve points of a job in order; ``after_id`` fetches only the points since the last poll."""
    stmt = select(JobMetric).where(JobMetric.job_id == job_id)
    if after_id is not None:
        stmt = stmt.where(JobMetric.id > after_id)
    return list(db_session.scalars(stmt.order_by(JobMetric.id).limit(limit)))


def last_phases(
    *, db_session: Session, kind: str, project_id: int | None = None, any_project: bool = True
) -> list[dict[str, Any]]:
    """The phase log of the latest succeeded job of ``kind`` (of the project when it has one, else of
    any project unless ``any_project`` is False): where expected durations come from. Empty when no
    such job reported phases."""
    return last_run(db_session=db_session, kind=kind, project_id=project_id, any_project=any_project)[0]


def last_run(
    *, db_session: Session, kind: str, project_id: int | None = None, any_project: bool = True
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """:func:`last_phases` and the parameters that job ran with (``{}`` when there is none)."""
    base = select(Job.phases, Job.params).where(
        Job.kind == kind, Job.status == JobStatus.SUCCEEDED, Job.phases.is_not(None)
    )
    order = (Job.finished_at.desc(), Job.id)
    own = [base.where(Job.project_id == project_id)] if project_id is not None else []
    for stmt in own + ([base] if any_project or project_id is None else []):
        row = db_session.execute(stmt.order_by(*order).limit(1)).first()
        if row is not None and row.phases:
            return list(row.phases), dict(row.params or {})
    return [], {}


def active_jobs(*, db_session: Session, project_id: int) -> list[Job]:
    """The project's queued and running jobs, oldest first."""
    stmt = select(Job).where(Job.project_id == project_id, Job.status.in_(ACTIVE)).order_by(Job.created_at, Job.id)
    return list(db_session.scalars(stmt))


def queue_info(*, db_session: Session, job_ids: list[str], queue_of: Callable[[str], str]) -> dict[str, dict]:
    """For each queued job of ``job_ids``: its position in its queue (1 = next) and the job it waits
    behind — the one its queue's worker runs (else the queued one just ahead) — with that job's project."""
    mine = [j for j in db_session.scalars(select(Job).where(Job.id.in_(job_ids))) if j.status is JobStatus.QUEUED]
    if not mine:
        return {}
    rows = db_session.execute(
        select(Job, PROJECTS.c.name)
        .outerjoin(PROJECTS, PROJECTS.c.id == Job.project_id)
        .where(Job.status.in_(ACTIVE))
        .order_by(Job.created_at, Job.id)
    ).all()
    out: dict[str, dict] = {}
    for job in mine:
        queue = queue_of(job.kind)
        same = [(j, name) for j, name in rows if queue_of(j.kind) == queue]
        ahead = [
            (j, name)
            for j, name in same
            if j.status is JobStatus.QUEUED and (j.created_at, j.id) < (job.created_at, job.id)
        ]
        running = [(j, name) for j, name in same if j.status is JobStatus.RUNNING]
        behind = running[0] if running else (ahead[-1] if ahead else None)
        out[job.id] = {
            "position": len(ahead) + 1,
            "running_in_queue": len(running),
            "behind": None
            if behind is None
            else {
                "id": behind[0].id,
                "kind": behind[0].kind,
                "status": behind[0].status.value,
                "project_id": behind[0].project_id,
                "project_name": behind[1],
            },
        }
    return out
