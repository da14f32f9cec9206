"""Push to the Hub through a real worker, then load the model back from the same endpoint.

No real Hugging Face Hub is reachable here: the tests start a Hub-compatible HTTP server on loopback
(``tests/hubserver.py``, implementing the endpoints ``huggingface_hub`` uses) and point the worker
(``HF_ENDPOINT``) and ``from_pretrained`` at it. SQLite + the embedded broker only: the broker and
database paths are covered by test_jobs.py; what is tested here is the push.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hubserver import HubServer
from workerstack import Stack
from xmd.jobs.models import JobStatus

TOKEN = "hf_test_write_token_0123456789"


@pytest.fixture(scope="module")
def hub() -> Iterator[HubServer]:
    with HubServer(tokens={TOKEN: "tester"}) as server:
        yield server


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, hub: HubServer) -> Iterator[Stack]:
    st = Stack.create(tmp_path_factory.mktemp("push"), database_url=None, broker_url=None, hf_endpoint=hub.url)
    st.start_worker("pusher", env={"HF_HUB_OFFLINE": "0", "HF_TOKEN": "", "HF_HOME": str(st.log_dir / "hf")})
    try:
        yield st
    finally:
        st.stop_all()


@pytest.fixture(scope="module")
def retrained(stack: Stack, tiny_model_dir: Path) -> dict:
    """A project whose v2 was retrained with feedback by the worker (what people push)."""
    ids = stack.seed_project(tiny_model_dir)
    params = {"version_id": ids["version_id"], "epochs": 1, "batch_size": 8, "lr": 1e-3, "max_length": 32}
    job = stack.wait_status(stack.submit("retrain", ids["project_id"], params), JobStatus.SUCCEEDED)
    return {**ids, "v2": job.result["version_id"], "v2_path": job.result["path"]}


PREDICT = """
import json, sys
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer
src, token = sys.argv[1], sys.argv[2] or None
texts = json.loads(sys.argv[3])
tok = AutoTokenizer.from_pretrained(src, token=token)
model = AutoModelForSequenceClassification.from_pretrained(src, token=token).eval()
with torch.no_grad():
    logits = model(**tok(texts, padding=True, return_tensors="pt")).logits
print(json.dumps({"logits": logits.tolist(), "labels": model.config.id2label}))
"""
TEXTS = ["spielberg the movie was great .", "the plot and acting bad .", "we all loved it !"]


def _predict(source: str, token: str, env: dict[str, str]) -> dict:
    """Predictions of a model loaded with plain ``from_pretrained`` in a fresh process (fresh HF env)."""
    out = subprocess.run(
        [sys.executable, "-c", PREDICT, source, token, json.dumps(TEXTS)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_push_then_from_pretrained_gives_identical_predictions(
    stack: Stack, hub: HubServer, retrained: dict, tmp_path: Path
) -> None:
    params = {"version_id": retrained["v2"], "repo_id": "tester/reviews-debugged", "private": True}
    job = stack.wait_status(
        stack.submit("push", retrained["project_id"], params, secrets={"hf_token": TOKEN}), JobStatus.SUCCEEDED
    )
    assert job.result["repo_id"] == "tester/reviews-debugged"
    assert job.result["url"] == f"{hub.url}/tester/reviews-debugged"
    repo = hub.repos["tester/reviews-debugged"]
    assert repo.private and len(repo.commits) == 1 and job.result["commit"] == repo.commits[0][0]
    assert hub.commits("tester/reviews-debugged") == ["xmd: reviews model version v2"]
    files = repo.commits[0][2]
    assert {"config.json", "model.safetensors", "tokenizer.json", "xmd.json", "README.md"} <= set(files)
    assert files["model.safetensors"] == (Path(retrained["v2_path"]) / "model.safetensors").read_bytes()

    card = files["README.md"].decode()
    assert str(retrained["model_dir"]) in card  # the base model it was debugged from
    assert "Task-level: 1 remove, 0 add" in card and "Instance-level: 1 remove, 0 add" in card
    assert "Top removed words: `spielberg` (" in card  # the one card format (core.modelcard)
    assert "loss `mse`, λ = 1.0" in card
    assert "| test_clean | 12 |" in card  # metrics before → after per eval set
    assert 'from_pretrained("tester/reviews-debugged")' in card and "reviews`, model version v2" in card

    # The token was used for this push only: not in the job row, not in the worker's log.
    row = stack.job(job.id)
    assert TOKEN not in json.dumps({"params": row.params, "result": row.result, "error": row.error})
    assert TOKEN not in stack.logs("pusher")

    env = {"HF_ENDPOINT": hub.url, "HF_HUB_OFFLINE": "0", "HF_HOME": str(tmp_path / "hf"), "HF_TOKEN": ""}
    remote = _predict("tester/reviews-debugged", TOKEN, env)
    local = _predict(retrained["v2_path"], "", {"HF_HUB_OFFLINE": "1"})
    assert remote == local
    # A private repo is not readable without the token.
    fail = subprocess.run(
        [sys.executable, "-c", PREDICT, "tester/reviews-debugged", "", json.dumps(TEXTS)],
        env={**os.environ, **env, "HF_HOME": str(tmp_path / "hf2")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert fail.returncode != 0


def test_a_bad_token_fails_the_job_clearly_and_writes_nothing(stack: Stack, hub: HubServer, retrained: dict) -> None:
    bad = "hf_not_a_valid_token_987654321"
    params = {"version_id": retrained["v2"], "repo_id": "tester/never-created", "private": False}
    job = stack.wait_status(
        stack.submit("push", retrained["project_id"], params, secrets={"hf_token": bad}), JobStatus.FAILED
    )
    assert "token was rejected" in job.error and "HTTP 401" in job.error and "nothing was pushed" in job.error
    assert bad not in job.error and bad not in stack.logs("pusher")
    assert "tester/never-created" not in hub.repos

    # No token at all (none in the message, none in the worker's environment): a clear error too.
    job = stack.wait_status(stack.submit("push", retrained["project_id"], params), JobStatus.FAILED)
    assert "no Hugging Face token" in job.error
    assert "tester/never-created" not in hub.repos
