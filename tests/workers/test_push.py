"""Push to the Hub through a real worker, then load the model back from the same endpoint.

No real Hugging Face Hub is reachable here: the tests start a Hub-compatible HTTP server on loopback
(``tests/hubserver.py``, implementing the endpoints ``huggingface_hub`` uses) and point the worker
(``HF_ENDPOINT``) and ``from_pretrained`` at it. SQLite + the embedded broker for the push itself
(the broker and database paths are covered by test_jobs.py); that the token persists nowhere is
checked on both pairs (SQLite + embedded broker, PostgreSQL + Redis).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from dbfixtures import pg_schema_url
from hubserver import HubServer
from sqlalchemy import select
from workerstack import REDIS_URL, Stack
from xmd.jobs.models import JobSecret, JobStatus
from xmd.tables import metadata

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
        st.stop_all(grace=0)


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
    assert "ER objective: `both`, λ = 1.0" in card
    assert "| test_clean | 12 |" in card  # metrics before → after per eval set
    ran_bf16 = json.loads(files["xmd.json"])["history"]["bf16"]  # auto: bf16 where the worker's CPU computes it
    assert ("- Precision: bf16 autocast" if ran_bf16 else "- Precision: float32") in card
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


def _forms(secret: str) -> list[bytes]:
    """``secret`` as raw bytes, hex, and base64 at each of the three alignments it can have inside a
    longer base64 text (kombu stores message bodies base64-encoded): the characters that depend on
    the neighbours are cut off."""
    raw = secret.encode()
    out = [raw, raw.hex().encode()]
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + raw)
        start = (k * 8 + 5) // 6  # characters touched by the k prefix bytes
        stop = (len(raw) + k) // 3 * 4  # whole groups only: the tail depends on what follows
        out.append(enc[start:stop])
    return out


def _files_holding(root: Path, secret: str) -> list[str]:
    """Every file under ``root`` (SQLite WAL/journal files and broker.db included) holding ``secret``
    in any of its :func:`_forms`."""
    forms = _forms(secret)
    return [str(p) for p in root.rglob("*") if p.is_file() and any(f in p.read_bytes() for f in forms)]


def _redis_bytes(r: redis.Redis, key: bytes) -> bytes:
    """A key and its values as stored (DUMP may compress them, so read them by type)."""
    kind = r.type(key)
    values: list = {
        b"string": lambda: [r.get(key)],
        b"list": lambda: r.lrange(key, 0, -1),
        b"hash": lambda: [x for kv in r.hgetall(key).items() for x in kv],
        b"set": lambda: list(r.smembers(key)),
        b"zset": lambda: r.zrange(key, 0, -1),
    }.get(kind, lambda: [])()
    return b"\n".join([key, *(v for v in values if v)])


def test_the_token_forms_find_a_base64_encoded_message() -> None:
    """The scan is not blind: a Celery-like message body, base64-encoded at any offset, is found."""
    for pad in ("", "a", "ab", "abc"):
        body = base64.b64encode(json.dumps({"x": pad, "secrets": {"hf_token": TOKEN}}).encode())
        assert any(f in body for f in _forms(TOKEN)), pad


def test_the_token_persists_nowhere_after_a_push(stack: Stack, hub: HubServer, retrained: dict) -> None:
    """Embedded broker + SQLite: the broker keeps every message in ``broker.db``; no byte sequence of
    the token may be in it, in the database file or anywhere else under the data dir after the push."""
    params = {"version_id": retrained["v2"], "repo_id": "tester/no-trace", "private": False}
    job = stack.wait_status(
        stack.submit("push", retrained["project_id"], params, secrets={"hf_token": TOKEN}), JobStatus.SUCCEEDED
    )
    assert "tester/no-trace" in hub.repos and job.result["repo_id"] == "tester/no-trace"
    data_dir = stack.settings.data_dir
    assert (data_dir / "broker.db").is_file()
    assert _files_holding(data_dir, TOKEN) == []
    with stack.factory() as db:  # the sealed half was deleted when the worker read it
        assert db.scalars(select(JobSecret)).all() == []


@pytest.fixture(scope="module")
def pg_stack(tmp_path_factory: pytest.TempPathFactory, hub: HubServer) -> Iterator[Stack]:
    """PostgreSQL + Redis (production's pair), pushing to the same loopback Hub."""
    redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()  # unreachable Redis: an error, not a skip
    with pg_schema_url() as url:
        st = Stack.create(
            tmp_path_factory.mktemp("pgpush"), database_url=url, broker_url=REDIS_URL, hf_endpoint=hub.url
        )
        st.start_worker("pgpusher", env={"HF_HUB_OFFLINE": "0", "HF_TOKEN": "", "HF_HOME": str(st.log_dir / "hf")})
        try:
            yield st
        finally:
            st.stop_all()


def test_the_token_persists_nowhere_on_postgresql_and_redis(pg_stack: Stack, hub: HubServer, tiny_model_dir: Path):
    """Production's pair: after the push, neither any Redis key (messages, results, Celery's
    bookkeeping) nor any row of the database holds the token."""
    ids = pg_stack.seed_project(tiny_model_dir)
    params = {"version_id": ids["version_id"], "repo_id": "tester/pg-no-trace", "private": False}
    job = pg_stack.wait_status(
        pg_stack.submit("push", ids["project_id"], params, secrets={"hf_token": TOKEN}), JobStatus.SUCCEEDED
    )
    assert job.result["repo_id"] == "tester/pg-no-trace" and "tester/pg-no-trace" in hub.repos
    r = redis.Redis.from_url(REDIS_URL)
    keys = list(r.scan_iter(count=1000))
    assert keys, "the Redis broker left no key at all: nothing was checked"
    forms = _forms(TOKEN)
    assert [k for k in keys if any(f in _redis_bytes(r, k) for f in forms)] == []
    with pg_stack.factory() as db:
        assert db.scalars(select(JobSecret)).all() == []
        dumped = [repr(row) for table in metadata.sorted_tables for row in db.execute(select(table)).all()]
    assert dumped and not [d for d in dumped if TOKEN in d]
    assert _files_holding(pg_stack.settings.data_dir, TOKEN) == []
