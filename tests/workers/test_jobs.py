"""Jobs end to end through real Celery workers: retrain (progress, loss curve, new version), cancel,
evaluate, explain shared by two workers, and a worker killed mid-retrain.

Runs on SQLite + the embedded broker and on PostgreSQL + Redis (see conftest.py). Jobs are created
and sent exactly as the API does (``jobs.service.create`` + ``xmd.jobs.queue.enqueue``).
"""

from __future__ import annotations

import hashlib
import math
import time
from pathlib import Path

import pytest
from sqlalchemy import select
from workerstack import Stack
from xmd.explanations.models import WordAggregate
from xmd.explanations.service import explained_counts
from xmd.feedback import service as feedback_store
from xmd.jobs import service as jobs
from xmd.jobs.models import JobStatus
from xmd.versions import service as models
from xmd.versions.models import ModelStatus, ModelVersion

RETRAIN = {"epochs": 2, "batch_size": 4, "lr": 1e-3, "max_length": 32, "lam": 1.0}
#: A retrain that outlasts the test (50 epochs is the bound; one example a step: 24 x 50 = 1,200 steps).
LONG_RUN = {"epochs": 50, "batch_size": 1}


@pytest.fixture(scope="module")
def seeded(stack: Stack, tiny_model_dir: Path) -> dict:
    return stack.seed_project(tiny_model_dir)


@pytest.fixture(scope="module")
def two_workers(stack: Stack) -> Stack:
    """Two worker processes (concurrency 1 each) on both queues of the stack."""
    live = len([w for w in stack.workers if w.poll() is None])
    if live < 2:
        stack.start_workers([f"w{len(stack.workers) + 1 + i}" for i in range(2 - live)])
    return stack


def _dir_digest(path: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(path.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(path).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def _feedback_state(stack: Stack, project_id: int) -> list[tuple]:
    with stack.factory() as db:
        rows = feedback_store.list_feedback(db_session=db, project_id=project_id, limit=1000)
        return sorted((f.key, f.action.value, f.last_event_id) for f in rows)


def test_retrain_reports_progress_and_makes_a_new_version(two_workers: Stack, seeded: dict) -> None:
    st = two_workers
    params = {**RETRAIN, "version_id": seeded["version_id"], "train_dataset_ids": [], "eval_dataset_ids": []}
    job_id = st.submit("retrain", seeded["project_id"], params)
    seen: list[float] = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        job = st.job(job_id)
        if job.status is JobStatus.RUNNING:
            seen.append(job.progress)
        if job.status.finished:
            break
        time.sleep(0.05)
    job = st.wait_status(job_id, JobStatus.SUCCEEDED)
    assert seen and seen == sorted(seen), f"progress must only rise while running: {seen}"
    assert job.progress == 100.0 and job.worker_host and job.started_at <= job.finished_at
    assert job.step == job.total_steps == 12  # 24 examples / batch 4 x 2 epochs
    assert job.epoch == pytest.approx(2.0)

    with st.factory() as db:
        points = jobs.metrics(db_session=db, job_id=job_id)
        assert [p.step for p in points] == list(range(1, 13))
        assert all(p.loss is not None and p.task_loss is not None and p.er_loss is not None for p in points)
        assert all(math.isfinite(p.loss) for p in points)
        child = models.get_or_raise(db_session=db, model_version_id=job.result["version_id"])
        parent = models.get_or_raise(db_session=db, model_version_id=seeded["version_id"])
        assert child.status is ModelStatus.READY and child.parent_id == parent.id and child.version == 2
        assert child.path == str(st.settings.models_dir / f"p{seeded['project_id']}" / "v2")
        assert set(child.metrics) == {"test_clean"} and child.metrics["test_clean"]["n"] == 12
        assert child.feedback_snapshot["counts"]["task"]["remove"] == 1
        assert child.config["job_id"] == job_id and child.config["er"]["lam"] == 1.0
        assert parent.status is ModelStatus.READY and parent.path == str(seeded["model_dir"])
    assert job.result["version"] == 2 and set(job.result["metrics_after"]) == {"test_clean"}
    assert set(job.result["metrics_before"]) == {"test_clean"} and job.result["shares_after"]
    assert (Path(child.path) / "model.safetensors").is_file() and (Path(child.path) / "README.md").is_file()

    # The retrain started explaining the training set under the new version, as a job of its own (issue 15)
    (follow,) = job.result["explain_jobs"]
    assert follow["dataset_id"] == seeded["train_id"] and follow["method"] == "grad_x_input"
    explained = st.wait_status(follow["job_id"], JobStatus.SUCCEEDED)
    assert explained.params["version_id"] == child.id and explained.result["n_explained"] == 24
    with st.factory() as db:
        counts = explained_counts(db_session=db, project_id=seeded["project_id"], model_version_id=child.id)
        assert [(d, n) for d, *_, n in counts] == [(seeded["train_id"], 24)]

    # Evaluate the new version: metrics land in the version, keyed by eval set name.
    ev = st.submit("evaluate", seeded["project_id"], {"version_id": child.id, "dataset_ids": [seeded["eval_id"]]})
    ev_job = st.wait_status(ev, JobStatus.SUCCEEDED)
    measured = ev_job.result["metrics"]["test_clean"]  # same weights, same numbers (the retrain adds its cap)
    assert measured == {k: child.metrics["test_clean"][k] for k in measured}


def test_cancel_stops_a_running_retrain(two_workers: Stack, seeded: dict) -> None:
    st = two_workers
    before = _feedback_state(st, seeded["project_id"])
    params = {**RETRAIN, **LONG_RUN, "version_id": seeded["version_id"]}
    job_id = st.submit("retrain", seeded["project_id"], params)
    st.wait(job_id, lambda j: j.status is JobStatus.RUNNING and (j.step or 0) >= 3)
    with st.factory() as db:
        jobs.request_cancel(db_session=db, job_id=job_id)
    job = st.wait_status(job_id, JobStatus.CANCELLED, timeout=30)
    assert job.step < job.total_steps == 1200 and job.finished_at is not None
    with st.factory() as db:
        versions = models.list_versions(db_session=db, project_id=seeded["project_id"])
        child = next(v for v in versions if v.config.get("job_id") == job_id)
        assert child.status is ModelStatus.CANCELLED  # not "failed": nothing went wrong (issue 30 §6)
    assert not Path(child.path).exists() and not list(Path(child.path).parent.glob(f".{Path(child.path).name}.*"))
    assert _feedback_state(st, seeded["project_id"]) == before


def test_a_job_cancelled_while_queued_never_runs(two_workers: Stack, seeded: dict) -> None:
    st = two_workers
    with st.factory() as db:
        job = jobs.create(
            db_session=db, kind="evaluate", project_id=seeded["project_id"], params={"version_id": seeded["version_id"]}
        )
        jobs.request_cancel(db_session=db, job_id=job.id)
    from xmd.jobs.queue import enqueue

    enqueue(st.settings, job)  # the message arrives after the cancel (as when the API cancels a queued job)
    later = st.submit("evaluate", seeded["project_id"], {"version_id": seeded["version_id"]})
    st.wait_status(later, JobStatus.SUCCEEDED)
    time.sleep(1.5)  # the cancelled job's message was sent first; give its worker time to drop it
    cancelled = st.job(job.id)
    assert cancelled.status is JobStatus.CANCELLED and cancelled.started_at is None and cancelled.worker_host is None


def _aggregates(stack: Stack, version_id: int, method: str) -> dict[str, tuple]:
    with stack.factory() as db:
        rows = db.scalars(
            select(WordAggregate).where(WordAggregate.model_version_id == version_id, WordAggregate.method == method)
        )
        return {r.word: (r.count, list(r.label_counts), r.sum_share, r.sum_signed, r.importance) for r in rows}


def test_two_workers_share_an_explain_job_with_the_aggregates_of_one(
    two_workers: Stack, seeded: dict, tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = two_workers
    with st.factory() as db:
        from xmd.projects import service as projects

        project = projects.get_or_raise(db_session=db, project_id=seeded["project_id"])
        reference = models.create_base(db_session=db, project=project, path=str(tiny_model_dir), name="reference")
        ref_id, shared_id = reference.id, seeded["version_id"]
    # One example per chunk: enough chunks that the second worker joins before the first is done.
    params = {"dataset_id": seeded["train_id"], "method": "integrated_gradients", "chunk_size": 1}

    # One worker: this test process runs the job body itself, with no helpers.
    for key, value in {**st.settings.to_env(), "XMD_EXPLAIN_FANOUT": "0"}.items():
        monkeypatch.setenv(key, value)
    from xmd.explanations.flows import explain_job
    from xmd.jobs.runner import run_job

    with st.factory() as db:
        ref_job = jobs.create(
            db_session=db, kind="explain", project_id=seeded["project_id"], params={**params, "version_id": ref_id}
        )
    assert run_job(ref_job.id, explain_job) is not None
    ref = st.job(ref_job.id)
    assert ref.status is JobStatus.SUCCEEDED and len(ref.result["workers"]) == 1

    # Two workers: the job's worker plans 24 chunks and sends helpers; both workers take chunks.
    job_id = st.submit("explain", seeded["project_id"], {**params, "version_id": shared_id})
    job = st.wait_status(job_id, JobStatus.SUCCEEDED)
    assert job.result["n_explained"] == 24 and job.result["chunks"] == 24
    if st.settings.broker_url:  # Redis delivers the helper messages at once: both workers take chunks
        assert len(job.result["workers"]) == 2, f"one worker did every chunk: {job.result}"
    else:  # the embedded broker polls every second; the first worker may finish before the other looks
        assert 1 <= len(job.result["workers"]) <= 2, job.result
    assert job.step == job.total_steps == 24
    # Every chunk's phase seconds were summed into the result (bench/worker_scaling/worker_scaling.py reads them).
    timing = job.result["chunk_s"]
    assert timing["chunks"] >= 24 and len(timing["sum"]) == len(timing["phases"]) == 7
    assert all(s >= 0 for s in timing["sum"]) and timing["sum"][timing["phases"].index("explain")] > 0

    one, two = _aggregates(st, ref_id, params["method"]), _aggregates(st, shared_id, params["method"])
    assert one.keys() == two.keys() and len(one) > 10
    for word, (count, labels, share, signed, importance) in one.items():
        count2, labels2, share2, signed2, importance2 = two[word]
        assert (count, labels) == (count2, labels2), word
        # Same explanations; only the order of the float additions differs between the runs.
        assert share == pytest.approx(share2, rel=1e-9, abs=1e-12), word
        assert signed == pytest.approx(signed2, rel=1e-9, abs=1e-12), word
        assert importance == pytest.approx(importance2, abs=2e-9), word


def test_a_worker_killed_mid_retrain_fails_the_job_and_keeps_everything_else(two_workers: Stack, seeded: dict) -> None:
    st = two_workers
    with st.factory() as db:
        parent = models.get_or_raise(db_session=db, model_version_id=seeded["version_id"])
        parent_row = (parent.status, parent.path, dict(parent.metrics), parent.version)
    parent_files = _dir_digest(Path(parent.path))
    feedback = _feedback_state(st, seeded["project_id"])

    job_id = st.submit("retrain", seeded["project_id"], {**RETRAIN, **LONG_RUN, "version_id": parent.id})
    job = st.wait(job_id, lambda j: j.status is JobStatus.RUNNING and (j.step or 0) >= 3)
    host = job.worker_host.rsplit(":", 1)[1]
    victim = next(w for w in st.workers if w.poll() is None and _owns(w.pid, int(host)))
    st.kill(victim)  # SIGKILL the whole worker: main process and pool child, no goodbye

    # The surviving worker's sweeper sees the heartbeat stop and fails the job.
    job = st.wait_status(job_id, JobStatus.FAILED, timeout=60)
    assert "heartbeat" in job.error or "lost" in job.error
    child = _child_of(st, seeded["project_id"], job_id)
    deadline = time.monotonic() + 10  # the sweeper fails the job, then the version it was building
    while child.status is ModelStatus.TRAINING and time.monotonic() < deadline:
        time.sleep(0.2)
        child = _child_of(st, seeded["project_id"], job_id)
    assert child.status is ModelStatus.FAILED
    with st.factory() as db:
        parent = models.get_or_raise(db_session=db, model_version_id=seeded["version_id"])
        assert (parent.status, parent.path, dict(parent.metrics), parent.version) == parent_row
    assert not Path(child.path).exists(), "a half-made model must not appear under the version's path"
    assert not list(Path(child.path).parent.glob(f".{Path(child.path).name}.partial-*")), "partial dir left behind"
    assert _dir_digest(Path(parent.path)) == parent_files
    assert _feedback_state(st, seeded["project_id"]) == feedback

    # The stack still works: a new worker takes the next job.
    st.start_worker("w-after-kill")
    ev = st.submit("evaluate", seeded["project_id"], {"version_id": seeded["version_id"]})
    st.wait_status(ev, JobStatus.SUCCEEDED)


def _child_of(stack: Stack, project_id: int, job_id: str) -> ModelVersion:
    with stack.factory() as db:
        versions = models.list_versions(db_session=db, project_id=project_id)
        return next(v for v in versions if v.config.get("job_id") == job_id)


def _owns(main_pid: int, child_pid: int) -> bool:
    """Whether ``child_pid`` is ``main_pid`` or one of its pool children."""
    if main_pid == child_pid:
        return True
    try:
        stat = Path(f"/proc/{child_pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return int(stat[1]) == main_pid
