"""Feedback as a Hugging Face dataset (issue 32 §6): export, ``load_from_disk``, import into another
project (the same consensus comes back), and a push beside the model to the tests' loopback Hub."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

from apihelpers import Api, demo_csv
from datasets import load_from_disk
from hubserver import HubServer
from huggingface_hub import constants as hf_constants
from xmd.jobs import secrets as job_secrets
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import JobStatus
from xmd.jobs.runner import execute
from xmd.teamwork.hub import push_feedback_job
from xmd.users import service as users_service
from xmd.users.models import Role

TOKEN = "hf_test_write"


def _load(blob: bytes, into: Path) -> Any:
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        tar.extractall(into, filter="data")
    return load_from_disk(str(into / "feedback"))


def _annotate(api: Api, project: dict[str, Any], db) -> dict[str, int]:
    ids = {}
    for name in ("ann1", "ann2", "ann3"):
        user = users_service.create_user(db_session=db, name=name, role=Role.ANNOTATOR)
        api.tokens[name] = users_service.create_token(db_session=db, user=user)[1]
        ids[name] = user.id
    body = {"name": "q", "annotators": list(ids.values()), "overlap": 3, "dataset_id": project["train"]["id"]}
    q = api.post(f"/api/projects/{project['id']}/queues", json=body).json()
    items = api.get(f"/api/queues/{q['id']}/items", role="ann1", params={"limit": 6}).json()["items"]
    eids = [i["example_id"] for i in items]
    plan = [
        ("ann1", 0, 0, "remove"),
        ("ann2", 0, 0, "remove"),
        ("ann3", 0, 1, "add"),
        ("ann1", 1, 2, "add"),
        ("ann2", 1, 2, "remove"),
        ("ann1", 2, 1, "remove"),
        ("ann2", 2, 1, "remove"),
        ("ann3", 2, 1, "remove"),
    ]
    for who, k, i, action in plan:
        r = api.put(f"/api/examples/{eids[k]}/feedback", role=who, json={"word_index": i, "action": action})
        assert r.status_code == 200, r.text
    for who in ids:
        for eid in eids[:5]:
            api.put(f"/api/queues/{q['id']}/items/{eid}", role=who, json={"status": "done"})
    for who, word in (("ann1", "spielberg"), ("ann2", "spielberg"), ("ann3", "oscar")):
        api.put(f"/api/projects/{project['id']}/task-feedback", role=who, json={"word": word, "action": "remove"})
    return ids


def test_export_import_round_trip_and_push(api: Api, project, db, tmp_path: Path, tiny_model_dir: Path, monkeypatch):
    _annotate(api, project, db)
    r = api.get(f"/api/projects/{project['id']}/feedback/dataset", params={"policy": "majority"})
    assert r.status_code == 200, r.text
    dd = _load(r.content, tmp_path / "a")
    ex = dd["examples"]
    assert len(ex) == 5 and set(ex.column_names) >= {"id", "text", "label", "words", "annotators", "marks", "consensus"}
    assert all(row["annotators"] == ["ann1", "ann2", "ann3"] for row in ex)
    by_id = {row["id"]: row for row in ex}
    n_marked = sum(1 for row in ex for m in row["marks"] for c in m if c)
    assert n_marked == 8
    # majority of 3: positions 0 (remove x2) and 1 of the third example (remove x3); not the 1-vs-1 add/remove
    kept = sorted((row["id"], j, c) for row in ex for j, c in enumerate(row["consensus"]) if c)
    assert len(kept) == 2 and {c for *_, c in kept} == {1}
    task = dd["task_words"]
    assert sorted(zip(task["annotator"], task["word"], task["consensus"], strict=True)) == [
        ("ann1", "spielberg", "remove"),
        ("ann2", "spielberg", "remove"),
        ("ann3", "oscar", "none"),
    ]
    # into another project with the same training set: the same consensus comes back
    r = api.client.post("/api/projects", headers=api.h(), json={"name": "copy", "model_path": str(tiny_model_dir)})
    other = r.json()
    r = api.post(
        f"/api/projects/{other['id']}/datasets",
        files={"file": ("train.csv", demo_csv(), "text/csv")},
        data={"name": "train", "role": "train", "id_column": "id"},
    )
    ds = r.json()
    blob = api.get(f"/api/projects/{project['id']}/feedback/dataset", params={"policy": "majority"}).content
    files = {"file": ("fb.tar.gz", blob, "application/gzip")}
    r = api.post(f"/api/projects/{other['id']}/feedback/dataset", files=files, data={"dataset_id": ds["id"]})
    assert r.status_code == 200, r.text
    assert r.json()["annotators"] == ["ann1", "ann2", "ann3"] and r.json()["examples"] == 5
    back = _load(
        api.get(f"/api/projects/{other['id']}/feedback/dataset", params={"policy": "majority"}).content, tmp_path / "b"
    )
    assert {row["id"]: (row["marks"], row["consensus"]) for row in back["examples"]} == {
        i: (row["marks"], row["consensus"]) for i, row in by_id.items()
    }
    assert sorted(back["task_words"]["consensus"]) == sorted(task["consensus"])
    # the agreement of the copy equals the original's
    a = api.get(f"/api/projects/{project['id']}/agreement").json()
    b = api.get(f"/api/projects/{other['id']}/agreement").json()
    assert (a["alpha"], a["n_tokens"]) == (b["alpha"], b["n_tokens"]) and a["n_examples"] == 5
    # a wrong dataset (other texts) is refused, naming the example
    bad = api.post(
        f"/api/projects/{other['id']}/feedback/dataset", files=files, data={"dataset_id": project["clean"]["id"]}
    )
    assert bad.status_code == 404 or bad.status_code == 422
    junk = {"file": ("fb.tar.gz", b"not an archive", "application/gzip")}
    r = api.post(f"/api/projects/{other['id']}/feedback/dataset", files=junk, data={"dataset_id": ds["id"]})
    assert r.status_code == 422 and "archive" in r.json()["detail"]
    # push beside the model, to the loopback Hub
    with HubServer(tokens={TOKEN: "tester"}) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)  # the tests run offline; this Hub is loopback
        r = api.post(
            f"/api/projects/{project['id']}/jobs/push-feedback",
            json={"repo_id": "tester/demo-model", "token": TOKEN, "policy": "majority"},
        )
        assert r.status_code == 202, r.text
        job, secrets = api.sent[-1]
        assert jobs.mark_running(db_session=db, job_id=job.id, worker_host="test:1")
        ctx = JobContext(
            job=jobs.get_or_raise(db_session=db, job_id=job.id),
            db=db,
            settings=api.settings,
            factory=api.client.app.state.session_factory,
            secrets=job_secrets.unseal(db, job.id, secrets),
        )
        execute(ctx, push_feedback_job)
        db.expire_all()
        done = jobs.get_or_raise(db_session=db, job_id=job.id)
        assert done.status is JobStatus.SUCCEEDED, done.error
        pushed = server.repos["tester/demo-model"].commits[-1][2]
    assert "feedback/dataset_dict.json" in pushed
    for path, data in pushed.items():
        (tmp_path / "hub" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "hub" / path).write_bytes(data)
    hubbed = load_from_disk(str(tmp_path / "hub" / "feedback"))
    assert hubbed["examples"]["consensus"] == ex["consensus"]


def test_an_export_by_the_reviewed_policy_carries_the_reviewers_decisions(api: Api, project, db, tmp_path: Path):
    """With policy ``reviewed`` the consensus column holds what a reviewer settled and nothing else (it was
    a 422 before); the people's own marks are exported as they are."""
    _annotate(api, project, db)
    url = f"/api/projects/{project['id']}/conflicts"
    conflict = api.get(url, role="reviewer").json()["items"][0]  # the 1-vs-1 add/remove, position 2
    _, example_id, position = conflict["key"].split(":")
    r = api.post(f"{url}/decide", role="reviewer", json={"key": conflict["key"], "decision": "edit", "action": "add"})
    assert r.status_code == 200, r.text
    r = api.get(f"/api/projects/{project['id']}/feedback/dataset", params={"policy": "reviewed"})
    assert r.status_code == 200, r.text
    dd = _load(r.content, tmp_path / "r")
    ex = dd["examples"]
    kept = [(row["id"], j, c) for row in ex for j, c in enumerate(row["consensus"]) if c]
    assert kept == [(conflict["example_ext_id"], int(position), 2)]  # 2: add, the reviewer's edit
    assert sum(1 for row in ex for m in row["marks"] for c in m if c) == 8  # everyone's marks, unchanged
    assert set(dd["task_words"]["consensus"]) == {"none"}  # no task word was reviewed
    assert int(example_id) > 0
