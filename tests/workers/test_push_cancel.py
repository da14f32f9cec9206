"""Cancelling a push mid-upload (issue 13, unbounded jobs): the job ends within seconds and nothing is
published — the upload abandoned on cancel does not go on to commit once its files are up.

No real Hugging Face Hub is reachable here: a Hub-compatible server on loopback (``tests/hubserver.py``)
made slow (each preupload call held for seconds, the time a real Hub takes to receive a model's
weights) lets the test cancel while the files are going up. A real worker on SQLite + the embedded
broker; the same push without a cancel is the control (it commits on the same slow Hub).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hubserver import HubServer
from workerstack import Stack
from xmd.jobs import service as jobs
from xmd.jobs.models import JobStatus

TOKEN = "hf_test_write_token_cancel_42"
UPLOAD_S = 5.0


@pytest.fixture(scope="module")
def slow_hub() -> Iterator[HubServer]:
    with HubServer(tokens={TOKEN: "tester"}) as server:
        server.delays["preupload"] = UPLOAD_S
        yield server


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, slow_hub: HubServer) -> Iterator[Stack]:
    st = Stack.create(
        tmp_path_factory.mktemp("pushcancel"), database_url=None, broker_url=None, hf_endpoint=slow_hub.url
    )
    st.start_worker("pusher", env={"HF_HUB_OFFLINE": "0", "HF_TOKEN": "", "HF_HOME": str(st.log_dir / "hf")})
    try:
        yield st
    finally:
        st.stop_all(grace=0)


def _until(cond, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return False


def _answered(hub: HubServer, verb: str, repo: str) -> bool:
    return any(m == "POST" and verb in path and repo in path for m, path, _ in list(hub.requests))


def test_a_push_cancelled_mid_upload_ends_within_seconds_and_publishes_nothing(
    stack: Stack, slow_hub: HubServer, tiny_model_dir: Path
) -> None:
    ids = stack.seed_project(tiny_model_dir)
    repo = "tester/cancelled-push"
    params = {"version_id": ids["version_id"], "repo_id": repo, "private": False}
    job_id = stack.submit("push", ids["project_id"], params, secrets={"hf_token": TOKEN})
    assert _until(lambda: ("preupload", repo) in slow_hub.started, 90), stack.all_logs()
    time.sleep(0.5)  # mid-upload: the Hub is still receiving the files
    with stack.factory() as db:
        jobs.request_cancel(db_session=db, job_id=job_id)
    start = time.monotonic()
    job = stack.wait_finished(job_id, timeout=30)
    took = time.monotonic() - start
    assert job.status is JobStatus.CANCELLED, (job.status, job.error)
    assert took < UPLOAD_S - 1, f"the cancel took {took:.1f} s: it waited for the upload"
    assert job.result is None  # nothing claims a pushed commit
    # The abandoned upload gets its answer from the Hub; it must not go on to commit.
    assert _until(lambda: _answered(slow_hub, "preupload", repo), UPLOAD_S + 30)
    time.sleep(3.0)  # what the commit took to follow, before
    assert not _answered(slow_hub, "commit", repo), slow_hub.requests
    assert slow_hub.repos[repo].commits == []  # the repo (created first) shows no files at all
    assert stack.job(job_id).status is JobStatus.CANCELLED


def test_the_same_push_without_a_cancel_commits_on_the_slow_hub(
    stack: Stack, slow_hub: HubServer, tiny_model_dir: Path
) -> None:
    """The control: on the same slow Hub, a push nobody cancels waits for the upload and commits once."""
    ids = stack.seed_project(tiny_model_dir, name="control")
    repo = "tester/completed-push"
    params = {"version_id": ids["version_id"], "repo_id": repo, "private": False}
    start = time.monotonic()
    job = stack.wait_status(
        stack.submit("push", ids["project_id"], params, secrets={"hf_token": TOKEN}), JobStatus.SUCCEEDED, 120
    )
    assert time.monotonic() - start >= UPLOAD_S
    assert len(slow_hub.repos[repo].commits) == 1 and job.result["commit"] == slow_hub.repos[repo].commits[0][0]
