"""Retrain with controls and seeds through the API and a real worker (issues 14 and 30 §5): feedback imported
from a word list (tagged with its source), one retrain request with λ = 0 and deletion controls; the
debugged version is ready when the retrain ends, and every control arm × seed follows it as a job that
makes a ready model version of its own, named after the debug version, and fills in the comparison stored
on the debugged version. SQLite + embedded broker, and PostgreSQL + Redis (conftest.py). Tiny model, 1 seed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import torch
from apihelpers import demo_csv
from fastapi.testclient import TestClient
from workerstack import Stack
from xmd.app import create_app
from xmd.core.followup import BASIS_FILE
from xmd.core.modeling import use_bf16
from xmd.db import make_engine
from xmd.projects import service as projects
from xmd.users import service as users
from xmd.versions import hub
from xmd.versions import service as models


def _wait(c: TestClient, h: dict, job_id: str, stack: Stack, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = c.get(f"/api/jobs/{job_id}", headers=h).json()
        if job["status"] in ("succeeded", "failed", "cancelled"):
            return job
        time.sleep(0.2)
    return job


def test_retrain_with_controls_makes_a_version_per_arm_and_a_comparison(stack: Stack, tiny_model_dir: Path) -> None:
    if not [w for w in stack.workers if w.poll() is None]:
        stack.start_worker("ctl-w1")
    with stack.factory() as db:
        admin = users.create_user(db_session=db, name="ctl-admin", role="admin")
        token = users.create_token(db_session=db, user=admin)[1]
    h = {"Authorization": f"Bearer {token}"}
    engine = make_engine(stack.database_url)
    with TestClient(create_app(stack.settings, engine=engine, serve_ui=False)) as c:
        p = c.post("/api/projects", headers=h, json={"name": "controls", "model_path": str(tiny_model_dir)})
        assert p.status_code == 201, p.text
        pid = p.json()["id"]
        ds = {}
        for name, role, split in (("train", "train", "train"), ("clean", "eval", "test_clean")):
            r = c.post(
                f"/api/projects/{pid}/datasets",
                headers=h,
                files={"file": (f"{name}.csv", demo_csv(n=16, split=split))},
                data={"name": name, "role": role, "id_column": "id"},
            )
            assert r.status_code == 201, r.text
            ds[name] = r.json()["id"]
        words = {"text": "spielberg\n", "name": "terms.txt", "action": "remove"}
        r = c.post(f"/api/projects/{pid}/feedback/import", headers=h, json={"dataset_id": ds["train"], "words": words})
        assert r.status_code == 200 and r.json()["imported"] == 1, r.text

        # deletion_base needs the project's base model, which this project does not record: 422, no job
        body = {"epochs": 1, "batch_size": 4, "lr": 1e-3, "max_length": 32, "seeds": 1}
        r = c.post(f"/api/projects/{pid}/jobs/retrain", headers=h, json={**body, "controls": ["deletion_base"]})
        assert r.status_code == 422 and "base model" in r.text
        assert c.get(f"/api/projects/{pid}/jobs", headers=h).json()["total"] == 0

        r = c.post(f"/api/projects/{pid}/jobs/retrain", headers=h, json={**body, "controls": ["lambda0", "deletion"]})
        assert r.status_code == 202, r.text
        job = _wait(c, h, r.json()["id"], stack)
        assert job["status"] == "succeeded", (job, stack.all_logs())
        assert job["progress"] == 100
        result = job["result"]
        # the version is ready when the retrain ends; its controls follow it as jobs (issue 30 §5)
        runs = result["controls"]
        assert [(x["arm"], x["seed"]) for x in runs] == [("lambda0", 0), ("deletion", 0)]
        for x in runs:
            done = _wait(c, h, x["job_id"], stack)
            assert done["kind"] == "retrain_control" and done["status"] == "succeeded", (done, stack.all_logs())

        versions = c.get(f"/api/projects/{pid}/versions", headers=h).json()["items"]
        got = sorted((v["name"], v["status"], v["config"].get("control")) for v in versions)
        assert got == [
            ("base", "ready", None),
            ("v2", "ready", None),
            ("v2 deletion seed 0", "ready", "deletion"),
            ("v2 λ=0 seed 0", "ready", "lambda0"),
        ]
        assert all(v["parent_id"] == versions[0]["id"] for v in versions[1:])  # every arm from the same parent
        assert {v["config"]["train"]["seed"] for v in versions[1:]} == {0}
        # every arm in the default's precision: bf16 where the worker's CPU computes it (auto), else float32
        assert [v["config"]["bf16"] for v in versions[1:]] == [use_bf16(None, torch.device("cpu"))] * 3
        v2 = next(v for v in versions if v["name"] == "v2")
        assert result["version_id"] == v2["id"]
        assert v2["controls"]["done"] == v2["controls"]["total"] == 2
        assert {x["arm"]: x["version_id"] for x in v2["controls"]["runs"]} == {
            v["config"]["control"]: v["id"] for v in versions if v["config"].get("control")
        }
        cmp = v2["config"]["comparison"]
        assert cmp["arms"] == ["debug", "lambda0", "deletion"] and cmp["seeds"] == [0]
        assert cmp["removed_words"] == ["spielberg"]
        clean = cmp["sets"]["clean"]
        assert set(clean["arms"]) == {"debug", "lambda0", "deletion"}
        assert set(clean["verdicts"]) >= {"accuracy", "macro_f1"}
        assert "predictions" not in clean  # per-example predictions stay in the control jobs' results
        vs = v2["config"]["vs_parent"]  # the debug version against its parent, as without controls
        assert vs == result["vs_parent"] and vs["names"] == ["v1", "v2"] and vs["positive"] == cmp["positive"]
        acc = vs["sets"]["clean"]["metrics"]["accuracy"]
        assert abs(acc["parent"] - clean["before"]["accuracy"]) < 1e-6
        assert abs(acc["new"] - clean["arms"]["debug"]["mean"]["accuracy"]) < 1e-6
        controls = [v for v in versions if v["config"].get("control")]
        assert all(v["config"]["vs_parent"] is None for v in controls)  # a control arm records none
        steps = {x["arm"]: x["steps"] for x in cmp["runs"]}
        assert steps["lambda0"] == steps["deletion"] > 0
        with stack.factory() as db:  # the basis the controls were compared against is stored with v2's files
            folder = models.files_of(stack.settings, models.get_or_raise(db_session=db, model_version_id=v2["id"]))
        basis = json.loads((folder / BASIS_FILE).read_text())
        assert basis["sets"]["clean"]["debug"]["0"] and basis["removed_words"] == ["spielberg"]
        # the debug version's snapshot and card say the feedback was simulated from a word list
        assert v2["feedback_snapshot"]["sources"] == {"simulated:words:terms.txt": {"instance": 0, "task": 1}}
        versions = [v2, next(v for v in controls if v["config"]["control"] == "lambda0")]
    with stack.factory() as db:  # the model card a push uploads: sources and the comparison; controls say so
        project = projects.get_or_raise(db_session=db, project_id=pid)
        cards = []
        for v in versions:
            mv = models.get_or_raise(db_session=db, model_version_id=v["id"])
            cards.append(hub.model_card(db, project, mv, "u/r", models.files_of(stack.settings, mv)))
        debug_card, control_card = cards
    assert "From `simulated:words:terms.txt`: 0 instance-level, 1 task-level" in debug_card
    assert "## Compared with controls" in debug_card and "| clean | accuracy |" in debug_card
    assert "A **control** (`lambda0`, seed 0)" in control_card and "debugged with [xmd]" not in control_card
    engine.dispose()


def test_deletion_base_runs_from_the_projects_recorded_base_model(stack: Stack, tiny_model_dir: Path) -> None:
    """The project records its base model (here the tiny model's folder, with a recipe of its own); the
    retrain job then trains the deletion_base arm from it with that recipe, as a version of its own."""
    if not [w for w in stack.workers if w.poll() is None]:
        stack.start_worker("ctl-w2")
    with stack.factory() as db:
        admin = users.get_by_name(db_session=db, name="ctl-admin") or users.create_user(
            db_session=db, name="ctl-admin", role="admin"
        )
        token = users.create_token(db_session=db, user=admin)[1]
    h = {"Authorization": f"Bearer {token}"}
    engine = make_engine(stack.database_url)
    base = {"model_path": str(tiny_model_dir), "recipe": {"epochs": 1, "batch_size": 8, "lr": 2e-3}}
    with TestClient(create_app(stack.settings, engine=engine, serve_ui=False)) as c:
        body = {"name": "controls-base", "model_path": str(tiny_model_dir), "base_model": base}
        p = c.post("/api/projects", headers=h, json=body)
        assert p.status_code == 201, p.text
        pid = p.json()["id"]
        ds = {}
        for name, role, split in (("train", "train", "train"), ("clean", "eval", "test_clean")):
            r = c.post(
                f"/api/projects/{pid}/datasets",
                headers=h,
                files={"file": (f"{name}.csv", demo_csv(n=16, split=split))},
                data={"name": name, "role": role, "id_column": "id"},
            )
            assert r.status_code == 201, r.text
            ds[name] = r.json()["id"]
        r = c.put(f"/api/projects/{pid}/task-feedback", headers=h, json={"word": "spielberg", "action": "remove"})
        assert r.status_code == 200, r.text
        body = {"epochs": 1, "batch_size": 4, "lr": 1e-3, "max_length": 32, "seeds": 1, "controls": ["deletion_base"]}
        r = c.post(f"/api/projects/{pid}/jobs/retrain", headers=h, json=body)
        assert r.status_code == 202, r.text
        job = _wait(c, h, r.json()["id"], stack)
        assert job["status"] == "succeeded", (job, stack.all_logs())
        (run,) = job["result"]["controls"]
        assert _wait(c, h, run["job_id"], stack)["status"] == "succeeded", stack.all_logs()
        versions = c.get(f"/api/projects/{pid}/versions", headers=h).json()["items"]
        got = [(v["version"], v["name"], v["status"], v["config"].get("control")) for v in versions]
        assert got == [
            (1, "base", "ready", None),
            (2, "v2", "ready", None),
            (3, "v2 deletion from base seed 0", "ready", "deletion_base"),
        ]
        cmp = versions[1]["config"]["comparison"]
        assert cmp["arms"] == ["debug", "deletion_base"]
        runs = {r["arm"]: r for r in cmp["runs"]}
        assert runs["deletion_base"]["base_model"] == str(tiny_model_dir)  # what the user gave
        base_train = runs["deletion_base"]["train"]
        assert (base_train["epochs"], base_train["batch_size"], base_train["lr"]) == (1, 8, 2e-3)  # the recipe
        # the recipe batches by 8 (the debug run by 4): 16 examples take 2 steps
        assert runs["deletion_base"]["steps"] == 2
        assert any("recipe" in n for n in cmp["notes"])
        assert "clean" in cmp["sets"] and "deletion_base" in cmp["sets"]["clean"]["arms"]
    engine.dispose()
