"""Jobs that explain their waits and stop when asked, through real Celery workers (issues 13 and 15):
a retrain reports each phase with its own progress and an ETA, eval sets are capped per job (the cap
is in the result), a cancel is honoured within seconds during the pre-training evaluation and
inside an explain chunk, and short jobs do not wait behind a retrain.

Runs on SQLite + the embedded broker and on PostgreSQL + Redis (see conftest.py).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch
from workerstack import Stack, demo_examples
from xmd.core.types import Example
from xmd.datasets import service as datasets
from xmd.jobs import service as jobs
from xmd.jobs.models import Job, JobStatus
from xmd.jobs.queue import queue_for
from xmd.versions import service as models
from xmd.versions.models import ModelStatus

RETRAIN = {"epochs": 2, "batch_size": 4, "lr": 1e-3, "max_length": 32, "lam": 1.0}
#: A retrain that outlasts the test (50 epochs is the bound; one example a step: 24 x 50 = 1,200 steps).
LONG_RUN = {"epochs": 50, "batch_size": 1}
LONG = " and the plot and acting were what we all expected from the story" * 8


@pytest.fixture(scope="module")
def seeded(stack: Stack, tiny_model_dir: Path) -> dict:
    if not any(w.poll() is None for w in stack.workers):
        stack.start_workers(["p1"])
    return stack.seed_project(tiny_model_dir, name="phases")


def _watch(st: Stack, job_id: str, timeout: float = 120) -> list[Job]:
    """Every state of the job row seen while polling it until it finishes."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = st.job(job_id)
        seen.append(job)
        if job.status.finished:
            return seen
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish in {timeout} s\n{st.all_logs()}")


def test_retrain_names_its_phases_with_their_progress_and_caps_eval_sets(stack: Stack, seeded: dict) -> None:
    st = stack
    params = {**RETRAIN, "eval_max_examples": 10, "version_id": seeded["version_id"]}
    job_id = st.submit("retrain", seeded["project_id"], params)
    seen = _watch(st, job_id)
    job = seen[-1]
    assert job.status is JobStatus.SUCCEEDED, f"{job.error}\n{st.all_logs()}"
    names = [p["name"] for p in job.phases]
    assert names == [
        "measure_before:test_clean",
        "shares_before:grad_x_input",
        "shares_before:occlusion",
        "train",
        "measure_after:test_clean",
        "shares_after:grad_x_input",
        "shares_after:occlusion",
        "save",
    ]
    by_name = {p["name"]: p for p in job.phases}
    assert by_name["measure_before:test_clean"]["label"] == "measuring v1 on test_clean"
    assert (
        by_name["measure_after:test_clean"]["label"].startswith("measuring v")
        and "v1" not in (by_name["measure_after:test_clean"]["label"])
    )
    assert by_name["measure_before:test_clean"]["total"] == 10  # the cap, not the set's 12
    assert by_name["train"]["total"] == by_name["train"]["done"] == 12 and by_name["train"]["unit"] == "steps"
    assert all(p["seconds"] is not None and p["done"] >= p["total"] for p in job.phases)
    running = [j for j in seen if j.status is JobStatus.RUNNING and j.phase]
    assert running, "no phase was ever shown while the job ran"
    assert {j.phase for j in running} <= {p["label"] for p in job.phases}
    assert any(j.phase == "training" and j.phase_unit == "steps" and j.eta_s is not None for j in running)
    progress = [j.progress for j in seen if j.status is JobStatus.RUNNING]
    assert progress == sorted(progress), "the bar never moves back"
    assert job.eta_s is None and job.phase is None
    metrics = job.result["metrics_before"]["test_clean"]
    assert (metrics["n"], metrics["n_total"], metrics["capped"], metrics["cap"]) == (10, 12, True, 10)


def test_expected_rates_come_from_the_last_retrain(stack: Stack, seeded: dict) -> None:
    """A second retrain knows its ETA from the first one's measured rates before it measures any."""
    from xmd.jobs.phases import expected, rates
    from xmd.retrain.plan import retrain_plan

    with stack.factory() as db:
        log = jobs.last_phases(db_session=db, kind="retrain", project_id=seeded["project_id"])
    assert log, "the first test's retrain left no phase log"
    prior = rates(log)
    assert {"measure", "train", "save"} <= set(prior) and all(v > 0 for v in prior.values())
    plan = retrain_plan(
        parent=1,
        child=3,
        eval_sizes={"test_clean": 12},
        eval_cap=10,
        total_steps=24,
        examples_per_step=4,
        n_share=24,
    )
    twice = expected(plan, prior)
    assert twice is not None and twice > 0
    # twice the training steps cost more, by the measured training rate
    plan[3].total = 48
    assert expected(plan, prior) == pytest.approx(twice + prior["train"] * 24 * 4)


def test_a_scoped_retrain_plans_the_prediction_it_runs_first(stack: Stack, seeded: dict) -> None:
    """A task feedback scoped to the correctly predicted examples makes the parent predict the training set
    first: the job's plan has that phase, at the measuring rate (the estimate plans it too,
    tests/api/test_retrain_settings.py), and it runs to its end."""
    from xmd.feedback import service as feedback_store
    from xmd.projects import service as projects

    def scoped(action: str) -> None:
        with stack.factory() as db:
            project = projects.get_or_raise(db_session=db, project_id=seeded["project_id"])
            feedback_store.set_feedback(db_session=db, project=project, action=action, word="film", scope="correct")

    scoped("remove")
    params = {**RETRAIN, "epochs": 1, "version_id": seeded["version_id"]}
    try:
        job_id = stack.submit("retrain", seeded["project_id"], params)
        job = _watch(stack, job_id)[-1]
    finally:
        scoped("reset")  # the module's other tests keep the seeded feedback only
    assert job.status is JobStatus.SUCCEEDED, f"{job.error}\n{stack.all_logs()}"
    first = job.phases[0]
    assert (first["name"], first["kind"]) == ("predict", "measure"), job.phases
    assert first["label"].startswith("predicting v") and "scoped task feedback" in first["label"]
    assert first["done"] == first["total"] > 0 and first["seconds"] is not None
    assert [p["name"] for p in job.phases].count("predict") == 1


def test_cancel_is_honoured_within_seconds_during_the_evaluation_before_training(
    stack: Stack, seeded: dict, tiny_model_dir: Path
) -> None:
    st = stack
    with st.factory() as db:
        from xmd.projects import service as projects

        project = projects.get_or_raise(db_session=db, project_id=seeded["project_id"])
        big = [
            Example(id=e.id, text=e.text + LONG, label=e.label) for e in demo_examples(8000, prefix="b", shortcut=False)
        ]
        ds = datasets.add_dataset(db_session=db, project=project, name="big_eval", role="eval", examples=big)
    # The cap raised to the whole set, so the evaluation lasts long enough (seconds) to be cancelled inside.
    params = {**RETRAIN, "max_length": 128, "version_id": seeded["version_id"], "eval_dataset_ids": [ds.id]}
    params["eval_max_examples"] = 8000
    job_id = st.submit("retrain", seeded["project_id"], params)
    job = st.wait(job_id, lambda j: j.status.finished or (j.phase or "").startswith("measuring v1 on big_eval"))
    assert job.status is JobStatus.RUNNING, f"the job ended before its evaluation: {job.error}"
    asked = time.monotonic()
    with st.factory() as db:
        jobs.request_cancel(db_session=db, job_id=job_id)
    job = st.wait_finished(job_id, timeout=60)
    took = time.monotonic() - asked
    assert job.status is JobStatus.CANCELLED, job.error
    # bound for a loaded CI host; that it stopped inside the phase is checked on the counts below
    assert took < 20.0, f"cancel took {took:.1f} s during the evaluation"
    assert job.phase == "measuring v1 on big_eval" and job.phase_done < job.phase_total == 8000  # the cap asked for
    with st.factory() as db:
        child = next(
            v
            for v in models.list_versions(db_session=db, project_id=seeded["project_id"])
            if v.config.get("job_id") == job_id
        )
        assert child.status is ModelStatus.CANCELLED
        datasets.delete_dataset(db_session=db, dataset=datasets.get_or_raise(db_session=db, dataset_id=ds.id))


def test_cancel_stops_an_explain_job_inside_a_chunk(stack: Stack, seeded: dict) -> None:
    st = stack
    with st.factory() as db:
        from xmd.projects import service as projects

        project = projects.get_or_raise(db_session=db, project_id=seeded["project_id"])
        big = [
            Example(id=e.id, text=e.text + LONG, label=e.label) for e in demo_examples(8000, prefix="x", shortcut=True)
        ]
        ds = datasets.add_dataset(db_session=db, project=project, name="big_train", role="train", examples=big)
    # one chunk that takes seconds even on a quiet machine (3,000 examples at 128 tokens took under two there,
    # and the chunk ended before the cancel was read); a cancel ends it early, so the test stays short
    params = {"version_id": seeded["version_id"], "dataset_id": ds.id, "method": "grad_x_input", "chunk_size": 8000}
    # the worker loads the model once (seconds on a busy machine): a small explain of the same version first
    warm = st.submit("explain", seeded["project_id"], {**params, "dataset_id": seeded["train_id"]})
    st.wait_status(warm, JobStatus.SUCCEEDED, timeout=120)
    job_id = st.submit("explain", seeded["project_id"], {**params, "max_length": 256})
    st.wait(job_id, lambda j: j.status.finished or bool((j.result or {}).get("claims")))
    time.sleep(1.0)  # inside the one chunk
    assert st.job(job_id).result.get("claims"), "the chunk is claimed: the worker is explaining it"
    asked = time.monotonic()
    with st.factory() as db:
        jobs.request_cancel(db_session=db, job_id=job_id)
    job = st.wait_finished(job_id, timeout=60)
    took = time.monotonic() - asked
    assert job.status is JobStatus.CANCELLED, job.error
    assert took < 20.0, f"cancel took {took:.1f} s inside an explain chunk\n{st.all_logs()[-3000:]}"
    assert not (job.result or {}).get("done"), "the chunk was finished although the job was cancelled"


def test_short_jobs_do_not_wait_behind_a_retrain(stack: Stack, seeded: dict) -> None:
    """``xmd serve``'s layout: one worker for the retrain queue, one for the rest. A queued job says
    where it stands and whom it waits behind."""
    st = stack
    st.stop_all(grace=0)  # the module's idle workers
    st.start_workers(["long"], queues=[st.settings.retrain_queue])
    st.start_workers(["short"], queues=[st.settings.default_queue])
    params = {**RETRAIN, **LONG_RUN, "version_id": seeded["version_id"]}
    first = st.submit("retrain", seeded["project_id"], params)
    st.wait(first, lambda j: j.status is JobStatus.RUNNING and (j.step or 0) >= 2)
    second = st.submit("retrain", seeded["project_id"], params)
    evaluate = st.submit("evaluate", seeded["project_id"], {"version_id": seeded["version_id"]})
    with st.factory() as db:
        places = jobs.queue_info(db_session=db, job_ids=[second], queue_of=lambda kind: queue_for(st.settings, kind))
    assert places[second]["position"] == 1
    assert places[second]["behind"]["id"] == first and places[second]["behind"]["project_name"] == "phases"
    done = st.wait_status(evaluate, JobStatus.SUCCEEDED, timeout=60)
    assert st.job(first).status is JobStatus.RUNNING and done.finished_at is not None
    assert st.job(second).status is JobStatus.QUEUED
    with st.factory() as db:
        for job_id in (second, first):
            jobs.request_cancel(db_session=db, job_id=job_id)
    assert st.wait_finished(first, timeout=30).status is JobStatus.CANCELLED


def test_a_projects_first_explain_job_times_a_retrain_so_the_first_retrain_has_an_expected_duration(
    stack: Stack, tiny_model_dir: Path
) -> None:
    """Before any retrain of a project, its first explain job times a few batches of each kind of a
    retrain's work (xmd.core.calibrate) into its phase log; the estimate then has an expected duration,
    from that calibration, with training priced by the share of rows with feedback (the task word's
    explained examples plus the one with instance feedback). Only the first explain job calibrates."""
    from xmd.core.calibrate import FP32_KINDS, KINDS
    from xmd.core.modeling import native_bf16
    from xmd.projects import service as projects
    from xmd.retrain import estimate as job_flows
    from xmd.retrain.schemas import RetrainIn

    if not any(w.poll() is None for w in stack.workers):
        stack.start_workers(["p1"])
    seeded = stack.seed_project(tiny_model_dir, name="calibrated")
    explain = {"version_id": seeded["version_id"], "dataset_id": seeded["train_id"], "method": "grad_x_input"}
    first = stack.wait_finished(stack.submit("explain", seeded["project_id"], explain), timeout=120)
    assert first.status is JobStatus.SUCCEEDED, f"{first.error}\n{stack.all_logs()}"
    # the worker's CPU: where it computes bf16 the default trains bf16, and float32 steps are timed as well
    kinds = [*KINDS[:3], *(FP32_KINDS if native_bf16(torch.device("cpu")) else ()), *KINDS[3:]]
    assert [p["name"] for p in first.phases] == [f"calibrate:{k}" for k in kinds]
    assert all(p["done"] > 0 and p["seconds"] > 0 for p in first.phases)
    assert first.result["n_explained"] == 24 and first.phase is None

    with stack.factory() as db:
        project = projects.get_or_raise(db_session=db, project_id=seeded["project_id"])
        body = RetrainIn(**RETRAIN, version_id=seeded["version_id"])
        est = job_flows.estimate_retrain(db, project, body)
        mv = models.get(db_session=db, model_version_id=seeded["version_id"])
        share = job_flows.feedback_share(db, project, mv, [seeded["train_id"]], 24)
    assert est["rates_from"] == "calibration" and est["measured_before"] is False
    assert est["expected_s"] is not None and est["expected_s"] > 0
    n_shortcut = sum("spielberg" in e.text.lower() for e in demo_examples(24, prefix="t", shortcut=True))
    assert 0 < n_shortcut < 23
    assert share == pytest.approx((n_shortcut + 1) / 24)

    again = stack.wait_finished(stack.submit("explain", seeded["project_id"], explain), timeout=120)
    assert again.status is JobStatus.SUCCEEDED and again.phases is None  # calibrated once per project
