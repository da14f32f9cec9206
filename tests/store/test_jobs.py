"""Jobs: lifecycle, progress and the loss curve, cancellation, dead workers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from xmd.db import ConflictError, NotFoundError
from xmd.db.base import utcnow
from xmd.jobs import service as jobs
from xmd.jobs.models import Job, JobStatus
from xmd.projects import service as projects


@pytest.fixture()
def project(db):
    return projects.create(db_session=db, name="p", labels=["a", "b"], model_source="m")


def test_lifecycle_progress_and_metrics(db, project, session_factory):
    job = jobs.create(db_session=db, kind="retrain", project_id=project.id, params={"epochs": 2})
    assert len(job.id) == 36 and job.status is JobStatus.QUEUED and job.kind == "retrain"
    assert job.progress == 0.0 and job.cancel_requested is False

    # The worker has its own session; the API's session sees its writes at once.
    with session_factory() as w:
        assert jobs.mark_running(db_session=w, job_id=job.id, worker_host="gpu-1")
        assert not jobs.mark_running(db_session=w, job_id=job.id)  # only from queued
        for step in range(1, 6):
            cancel = jobs.report_progress(
                db_session=w,
                job_id=job.id,
                progress=step * 20,
                step=step,
                total_steps=5,
                epoch=step / 5,
                task_loss=1.0 / step,
                er_loss=0.5 / step,
                loss=1.5 / step,
                lr=1e-5,
            )
            assert cancel is False
        jobs.report_progress(db_session=w, job_id=job.id, progress=250)  # clamped, no loss → no point

    j = jobs.get_or_raise(db_session=db, job_id=job.id)
    assert j.status is JobStatus.RUNNING and j.worker_host == "gpu-1" and j.progress == 100.0
    assert (j.step, j.total_steps, j.epoch) == (5, 5, 1.0) and j.started_at <= j.heartbeat_at
    points = jobs.metrics(db_session=db, job_id=job.id)
    assert [p.step for p in points] == [1, 2, 3, 4, 5]
    assert points[2].loss == pytest.approx(0.5) and points[0].lr == pytest.approx(1e-5)
    assert [p.step for p in jobs.metrics(db_session=db, job_id=job.id, after_id=points[2].id)] == [4, 5]

    with session_factory() as w:
        assert jobs.finish(db_session=w, job_id=job.id, result={"model_version_id": 3})
        assert not jobs.fail(db_session=w, job_id=job.id, error="too late")  # finished jobs stay finished
    j = jobs.get_or_raise(db_session=db, job_id=job.id)
    assert j.status is JobStatus.SUCCEEDED and j.result == {"model_version_id": 3} and j.finished_at is not None
    assert j.error is None
    assert [x.id for x in jobs.list_jobs(db_session=db, project_id=project.id, status="succeeded")] == [job.id]
    with pytest.raises(NotFoundError):
        jobs.get_or_raise(db_session=db, job_id="nope")


def test_fail_and_cancel(db, project, session_factory):
    queued = jobs.create(db_session=db, kind="explain", project_id=project.id)
    assert jobs.request_cancel(db_session=db, job_id=queued.id).status is JobStatus.CANCELLED
    with session_factory() as w:
        assert not jobs.mark_running(db_session=w, job_id=queued.id)  # a cancelled job never starts
    with pytest.raises(ConflictError):
        jobs.request_cancel(db_session=db, job_id=queued.id)

    running = jobs.create(db_session=db, kind="retrain", project_id=project.id)
    with session_factory() as w:
        jobs.mark_running(db_session=w, job_id=running.id)
        assert jobs.is_cancel_requested(db_session=w, job_id=running.id) is False
    j = jobs.request_cancel(db_session=db, job_id=running.id)
    assert j.status is JobStatus.RUNNING and j.cancel_requested
    with session_factory() as w:
        assert jobs.report_progress(db_session=w, job_id=running.id, progress=10) is True
        assert jobs.heartbeat(db_session=w, job_id=running.id) is True
        assert jobs.mark_cancelled(db_session=w, job_id=running.id)
    assert jobs.get_or_raise(db_session=db, job_id=running.id).status is JobStatus.CANCELLED

    broken = jobs.create(db_session=db, kind="evaluate")
    assert broken.project_id is None
    assert jobs.fail(db_session=db, job_id=broken.id, error="model not found: runs/base")
    b = jobs.get_or_raise(db_session=db, job_id=broken.id)
    assert b.status is JobStatus.FAILED and b.error == "model not found: runs/base"


def test_stale_jobs_are_failed(db, project, session_factory):
    alive = jobs.create(db_session=db, kind="retrain", project_id=project.id)
    dead = jobs.create(db_session=db, kind="retrain", project_id=project.id)
    queued = jobs.create(db_session=db, kind="push", project_id=project.id)
    with session_factory() as w:
        jobs.mark_running(db_session=w, job_id=dead.id)
        jobs.mark_running(db_session=w, job_id=alive.id)
        jobs.report_progress(db_session=w, job_id=alive.id, progress=10)
    # The "dead" worker's last heartbeat was 10 minutes ago.
    db.execute(update(Job).where(Job.id == dead.id).values(heartbeat_at=utcnow() - timedelta(minutes=10)))
    db.commit()

    assert jobs.mark_stale_as_failed(db_session=db, older_than=timedelta(minutes=5)) == [dead.id]
    d = jobs.get_or_raise(db_session=db, job_id=dead.id)
    assert d.status is JobStatus.FAILED and "stopped reporting" in d.error and d.finished_at is not None
    assert jobs.get_or_raise(db_session=db, job_id=alive.id).status is JobStatus.RUNNING
    # A worker that comes back late cannot flip the job back.
    with session_factory() as w:
        assert not jobs.finish(db_session=w, job_id=dead.id, result={})
    # Only running jobs are swept: an hour from now, the live one is stale too, the queued one is not.
    later = jobs.mark_stale_as_failed(db_session=db, older_than=timedelta(minutes=5), now=utcnow() + timedelta(hours=1))
    assert later == [alive.id]
    assert jobs.get_or_raise(db_session=db, job_id=queued.id).status is JobStatus.QUEUED


def test_reports_of_several_workers_out_of_order_never_move_the_bar_back(db, project, session_factory):
    """Two workers of one explain job report their chunks after their commits, in either order: with
    ``forward_only`` the later chunk's step and progress stay; without it (the control) they go back."""
    job = jobs.create(db_session=db, kind="explain", project_id=project.id, params={})
    with session_factory() as w:
        assert jobs.mark_running(db_session=w, job_id=job.id, worker_host="w1")
        for forward_only, expected in ((True, (24, 100.0)), (False, (23, 95.0))):
            jobs.report_progress(db_session=w, job_id=job.id, progress=100.0, step=24, total_steps=24)
            jobs.report_progress(
                db_session=w, job_id=job.id, progress=95.0, step=23, total_steps=24, forward_only=forward_only
            )
            row = w.get(Job, job.id, populate_existing=True)
            assert (row.step, row.progress) == expected
