"""Feedback as a Hugging Face dataset (issue 32 §6): export, ``load_from_disk``, import into another
project (the same consensus comes back, the reviewers' decisions included), and a push beside the model to
the tests' loopback Hub: into a dataset repository of its own, which the model's card links."""

from __future__ import annotations

import io
import tarfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from apihelpers import Api, demo_csv
from datasets import DatasetDict, load_from_disk
from hubserver import HubServer
from huggingface_hub import constants as hf_constants
from xmd.jobs import secrets as job_secrets
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import Job, JobStatus
from xmd.jobs.runner import execute
from xmd.teamwork.hub import push_feedback_job, save_archive
from xmd.users import service as users_service
from xmd.users.models import Role
from xmd.versions.hub import push_job

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


def _copy_project(api: Api, tiny_model_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Another project with the same training set (ids and texts): where an export is imported."""
    r = api.client.post("/api/projects", headers=api.h(), json={"name": "copy", "model_path": str(tiny_model_dir)})
    other = r.json()
    r = api.post(
        f"/api/projects/{other['id']}/datasets",
        files={"file": ("train.csv", demo_csv(), "text/csv")},
        data={"name": "train", "role": "train", "id_column": "id"},
    )
    return other, r.json()


def _run(api: Api, db, url: str, body: dict[str, Any], job_body: Callable[[JobContext], Any], ok: bool = True) -> Job:
    """Start a job through the API, then run its body here as a worker would, with its sealed token."""
    r = api.post(url, json=body)
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
    execute(ctx, job_body)
    db.expire_all()
    done = jobs.get_or_raise(db_session=db, job_id=job.id)
    assert (done.status is JobStatus.SUCCEEDED) is ok, done.error
    return done


def test_export_import_round_trip(api: Api, project, db, tmp_path: Path, tiny_model_dir: Path):
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
    other, ds = _copy_project(api, tiny_model_dir)
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


def test_the_push_goes_to_a_dataset_repo_of_its_own_and_the_model_card_links_it(
    api: Api, project, db, tmp_path: Path, monkeypatch
):
    """The model is on the Hub first; the feedback goes to ``<model repo>-feedback`` (a dataset repo) and
    the model repo gets a new README.md only, linking it; a later push of the model keeps the link."""
    _annotate(api, project, db)
    exported = api.get(f"/api/projects/{project['id']}/feedback/dataset", params={"policy": "majority"}).content
    ex = _load(exported, tmp_path / "a")["examples"]
    pid = project["id"]
    version_id = api.get(f"/api/projects/{pid}/versions").json()["items"][0]["id"]
    model = {"version_id": version_id, "repo_id": "tester/demo-model", "token": TOKEN}
    fb = {"repo_id": "tester/demo-model", "token": TOKEN, "policy": "majority"}
    with HubServer(tokens={TOKEN: "tester"}) as server, warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)  # the tests run offline; this Hub is loopback
        monkeypatch.setattr(hf_constants, "is_offline_mode", lambda: False)
        _run(api, db, f"/api/projects/{pid}/jobs/push", model, push_job)
        before = dict(server.repos["tester/demo-model"].commits[-1][2])
        done = _run(api, db, f"/api/projects/{pid}/jobs/push-feedback", fb, push_feedback_job)
        assert done.result["repo_id"] == "tester/demo-model-feedback" and done.result["repo_type"] == "dataset"
        assert done.result["model_card"] == "linked"
        data = server.datasets["tester/demo-model-feedback"]
        assert data.repo_type == "dataset" and data.private  # private unless asked otherwise
        pushed = data.commits[-1][2]
        after = server.repos["tester/demo-model"].commits[-1][2]
        # the model repo: the same files, a new README.md, nothing else (no data file)
        assert set(after) == set(before) and [p for p in after if after[p] != before[p]] == ["README.md"]
        assert not any(p.startswith("feedback/") or p.endswith(".arrow") for p in after)
        card = after["README.md"].decode()
        assert "datasets:\n- tester/demo-model-feedback\n" in card
        assert f"[`tester/demo-model-feedback`]({server.url}/datasets/tester/demo-model-feedback)" in card
        # the model pushed again: its new card keeps the link; the feedback pushed again: nothing to link
        _run(api, db, f"/api/projects/{pid}/jobs/push", model, push_job)
        card = server.repos["tester/demo-model"].commits[-1][2]["README.md"].decode()
        assert card.count("## Feedback dataset") == 1 and "- tester/demo-model-feedback" in card
        n_model = len(server.repos["tester/demo-model"].commits)
        done = _run(api, db, f"/api/projects/{pid}/jobs/push-feedback", fb, push_feedback_job)
        assert (
            done.result["model_card"] == "already linked" and len(server.repos["tester/demo-model"].commits) == n_model
        )
        assert len(data.commits) == 2 and "tester/demo-model-feedback" not in server.repos
    assert not [w for w in warned if "data file" in str(w.message)]  # huggingface_hub's model-repo warning
    assert {"dataset_dict.json", "README.md", "reviews/state.json"} <= set(pushed)
    assert "[`tester/demo-model`]" in pushed["README.md"].decode()  # the dataset's card names its model
    for path, blob in pushed.items():
        (tmp_path / "hub" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "hub" / path).write_bytes(blob)
    hubbed = load_from_disk(str(tmp_path / "hub"))  # the repository's snapshot is the saved dataset
    assert hubbed["examples"]["consensus"] == ex["consensus"] and hubbed["examples"]["id"] == ex["id"]


def test_a_feedback_push_without_the_model_on_the_hub_makes_no_model_repo(api: Api, project, db, monkeypatch):
    """The dataset goes up alone; the model's first push then links it (and the id's length is checked
    up front: the dataset's id is the model's and ``-feedback``, at most 96 characters on the Hub)."""
    _annotate(api, project, db)
    pid = project["id"]
    long = {"repo_id": "tester/" + "m" * 81, "token": TOKEN}
    assert api.post(f"/api/projects/{pid}/jobs/push-feedback", json=long).status_code == 422
    with HubServer(tokens={TOKEN: "tester"}) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(hf_constants, "is_offline_mode", lambda: False)
        fb = {"repo_id": "tester/later", "token": TOKEN, "private": False}
        done = _run(api, db, f"/api/projects/{pid}/jobs/push-feedback", fb, push_feedback_job)
        assert done.result["model_card"] == "no model repository" and server.repos == {}
        assert not server.datasets["tester/later-feedback"].private
        version_id = api.get(f"/api/projects/{pid}/versions").json()["items"][0]["id"]
        model = {"version_id": version_id, "repo_id": "tester/later", "token": TOKEN}
        _run(api, db, f"/api/projects/{pid}/jobs/push", model, push_job)
        card = server.repos["tester/later"].commits[-1][2]["README.md"].decode()
        assert "- tester/later-feedback" in card and f"{server.url}/datasets/tester/later-feedback" in card


def test_a_feedback_push_with_a_rejected_token_says_so_in_words(api: Api, project, db, monkeypatch):
    """The Hub's refusal reads as the model push's does: what to do, not the client's exception."""
    _annotate(api, project, db)
    with HubServer(tokens={TOKEN: "tester"}) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(hf_constants, "is_offline_mode", lambda: False)
        fb = {"repo_id": "tester/m", "token": "hf_not_a_token_of_this_hub"}
        done = _run(api, db, f"/api/projects/{project['id']}/jobs/push-feedback", fb, push_feedback_job, ok=False)
    assert "token was rejected" in done.error and "nothing was pushed" in done.error, done.error
    assert "HfHubHTTPError" not in done.error and "Traceback" not in done.error, done.error
    assert server.datasets == {}


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


def _decide_some(api: Api, project: dict[str, Any]) -> list[dict[str, Any]]:
    """The reviewer settles three keys: edits the 1-vs-1 instance tie to add, rejects the next instance
    conflict, accepts a task word's removal."""
    url = f"/api/projects/{project['id']}/conflicts"
    found = api.get(url, role="reviewer", params={"limit": 50}).json()["items"]
    inst = [c for c in found if c["level"] == "instance"]
    task = next(c for c in found if c["level"] == "task" and c["word"] == "spielberg")
    bodies = [
        {"key": inst[0]["key"], "decision": "edit", "action": "add"},
        {"key": inst[1]["key"], "decision": "reject"},
        {"key": task["key"], "decision": "accept"},
    ]
    for body in bodies:
        r = api.post(f"{url}/decide", role="reviewer", json=body)
        assert r.status_code == 200, r.text
    return bodies


def _settled(api: Api, pid: int) -> list[tuple[Any, ...]]:
    """Every decided key of a project, by what it names (not by database ids, which differ between projects)."""
    items = api.get(f"/api/projects/{pid}/conflicts", params={"include_decided": True, "limit": 200}).json()["items"]
    rows = [
        (c["level"], c["example_ext_id"], c["word_index"], c["word"], c["decision"], c["decided_action"]) for c in items
    ]
    return sorted((r for r in rows if r[4] is not None), key=repr)


def test_an_import_brings_the_reviewers_decisions_back(api: Api, project, db, tmp_path: Path, tiny_model_dir: Path):
    """Under ``reviewed``, a round trip gives the same consensus: each decision comes back as its reviewer's
    (an event in the copy's history with the reviewer's name); an unknown reviewer or a review of a word the
    text lacks is a 422 that writes nothing; an export of before the ``reviews`` split imports its marks."""
    _annotate(api, project, db)
    _decide_some(api, project)
    pid = project["id"]
    assert api.put(f"/api/projects/{pid}/team/settings", json={"policy": "reviewed", "blind": False}).is_success
    blob = api.get(f"/api/projects/{pid}/feedback/dataset").content
    dd = _load(blob, tmp_path / "a")
    assert sorted(zip(dd["reviews"]["decision"], dd["reviews"]["reviewer"], strict=True)) == [
        ("accept", "reviewer-user"),
        ("edit", "reviewer-user"),
        ("reject", "reviewer-user"),
    ]
    other, ds = _copy_project(api, tiny_model_dir)
    oid = other["id"]

    def post(archive: bytes, name: str = "fb.tar.gz") -> Any:  # a queue is named after the file and the second
        files = {"file": (name, archive, "application/gzip")}
        return api.post(f"/api/projects/{oid}/feedback/dataset", files=files, data={"dataset_id": ds["id"]})

    def packed(d: Any, name: str) -> bytes:
        return save_archive(d, tmp_path / f"{name}.tar.gz").read_bytes()

    # bad reviews first: 422, and nothing of the import is written
    ghost = DatasetDict({**dd, "reviews": dd["reviews"].map(lambda r: {"reviewer": "ghost"})})
    r = post(packed(ghost, "ghost"))
    assert r.status_code == 422 and "ghost" in r.json()["detail"], r.text
    far = DatasetDict({**dd, "reviews": dd["reviews"].map(lambda r: {"word_index": 999 if r["id"] else None})})
    r = post(packed(far, "far"))
    assert r.status_code == 422 and "999" in r.json()["detail"], r.text
    assert api.get(f"/api/projects/{oid}/feedback/events").json()["total"] == 0
    # an export of before the reviews split: the marks come, no decision
    old = DatasetDict({k: v for k, v in dd.items() if k != "reviews"})
    r = post(packed(old, "old"), "old.tar.gz")
    assert r.status_code == 200 and r.json()["reviews"] == 0, r.text
    assert _settled(api, oid) == []
    # the whole export: the decisions come back, as the reviewer's
    r = post(blob)
    assert r.status_code == 200 and r.json()["reviews"] == 3, r.text
    assert _settled(api, oid) == _settled(api, pid) and len(_settled(api, pid)) == 3
    events = api.get(f"/api/projects/{oid}/feedback/events", params={"order": "desc", "limit": 3}).json()["items"]
    assert {(e["source"], e["user"]) for e in events} == {
        ("review:edit", "reviewer-user"),
        ("review:reject", "reviewer-user"),
        ("review:accept", "reviewer-user"),
    }
    assert api.put(f"/api/projects/{oid}/team/settings", json={"policy": "reviewed", "blind": False}).is_success
    mine, theirs = (api.get(f"/api/projects/{p}/consensus", params={"limit": 0}).json() for p in (pid, oid))
    assert (theirs["instance"], theirs["task"], theirs["reviewed"]) == (mine["instance"], mine["task"], 3)
    assert (mine["instance"], mine["task"]) == (1, 1)  # the edit and the accepted task word; the reject keeps none
    back = _load(api.get(f"/api/projects/{oid}/feedback/dataset").content, tmp_path / "b")
    assert {r["id"]: r["consensus"] for r in back["examples"]} == {r["id"]: r["consensus"] for r in dd["examples"]}
    assert sorted(back["task_words"]["consensus"]) == sorted(dd["task_words"]["consensus"])
    assert "remove" in dd["task_words"]["consensus"]  # the accepted task word is in the consensus, both sides
