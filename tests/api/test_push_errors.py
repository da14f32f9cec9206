"""A push's error says what happened and what to do, never the HTTP client's exception (issue 30 §6):
a Hub that does not answer, no token at all; and the loopback Hub (tests/hubserver.py) takes the same
push. The push body runs in this process as a worker runs it, with the token the API sealed for it."""

from __future__ import annotations

import dataclasses
import socket
from typing import Any

import pytest
from apihelpers import Api
from hubserver import HubServer
from huggingface_hub import constants as hf_constants
from xmd.jobs import secrets as job_secrets
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import JobStatus
from xmd.jobs.runner import execute
from xmd.versions.hub import push_job

TOKEN = "hf_test_write"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _push(api: Api, db: Any, project: dict[str, Any], endpoint: str, token: str | None) -> Any:
    """Start a push through the API, then run its body with the pads the message would carry."""
    version_id = api.get(f"/api/projects/{project['id']}/versions").json()["items"][0]["id"]
    body = {"version_id": version_id, "repo_id": "tester/pushed", **({"token": token} if token else {})}
    r = api.post(f"/api/projects/{project['id']}/jobs/push", json=body)
    assert r.status_code == 202, r.text
    job_id = r.json()["id"]
    pads = next(p for j, p in api.sent if j.id == job_id)
    assert jobs.mark_running(db_session=db, job_id=job_id, worker_host="test:1")
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    settings = dataclasses.replace(api.settings, hf_endpoint=endpoint)
    ctx = JobContext(
        job=job,
        db=db,
        settings=settings,
        factory=api.client.app.state.session_factory,
        secrets=job_secrets.unseal(db, job_id, pads),
    )
    execute(ctx, push_job)
    db.expire_all()
    return jobs.get_or_raise(db_session=db, job_id=job_id)


@pytest.fixture()
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests run under HF_HUB_OFFLINE=1, which huggingface_hub reads at import: switch it on here."""
    monkeypatch.setattr(hf_constants, "is_offline_mode", lambda: False)


def test_an_unreachable_hub_is_said_in_words(api: Api, db, project, online) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    job = _push(api, db, project, endpoint, TOKEN)
    assert job.status is JobStatus.FAILED
    assert job.error.startswith(f"could not reach the Hugging Face Hub at {endpoint} (the connection was refused")
    assert "nothing was pushed" in job.error and "push again" in job.error
    assert "ConnectError" not in job.error and "Errno" not in job.error and TOKEN not in job.error
    assert api.get(f"/api/jobs/{job.id}").json()["error"] == job.error  # what the Deploy screen shows


def test_without_a_token_the_error_says_what_to_do(api: Api, db, project, online, monkeypatch) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    hub = HubServer().start()
    try:
        job = _push(api, db, project, hub.url, None)
        assert job.status is JobStatus.FAILED
        assert "no Hugging Face token, so nothing was pushed" in job.error
        assert "enter a write token in the push form" in job.error and "HF_TOKEN" in job.error
        assert "huggingface.co/settings/tokens" in job.error
        assert [r for r in hub.requests if r[0] != "HEAD"] == []  # nothing was sent to the Hub
        # the same push with the token reaches the loopback Hub
        job = _push(api, db, project, hub.url, TOKEN)
        assert job.status is JobStatus.SUCCEEDED, job.error
        assert "tester/pushed" in hub.repos
    finally:
        hub.stop()


def test_a_worker_with_the_hub_switched_off_says_so(api: Api, db, project, monkeypatch) -> None:
    monkeypatch.setattr(hf_constants, "is_offline_mode", lambda: True)
    job = _push(api, db, project, f"http://127.0.0.1:{_closed_port()}", TOKEN)
    assert job.status is JobStatus.FAILED
    assert job.error.startswith("the Hugging Face Hub is switched off for this worker (HF_HUB_OFFLINE is set)")
    assert "OfflineModeIsEnabled" not in job.error


def test_the_hub_check_says_whether_the_server_has_a_token(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    assert api.get("/api/health/hub", role="viewer").json() == {"hub": "offline", "token": "missing"}
    monkeypatch.setenv("HF_TOKEN", "hf_secret_value")
    r = api.get("/api/health/hub", role="viewer")
    assert r.json() == {"hub": "offline", "token": "set"} and "hf_secret_value" not in r.text
