"""The user's path through the API with a real worker: upload data, give feedback, start a retrain
with one request, watch its progress rise through the job route, find the new version with metrics and
compare it with the base. SQLite + embedded broker, and PostgreSQL + Redis (conftest.py)."""

from __future__ import annotations

import time
from pathlib import Path

import torch
from apihelpers import demo_csv
from fastapi.testclient import TestClient
from workerstack import Stack
from xmd.app import create_app
from xmd.core.modeling import native_bf16
from xmd.db import make_engine
from xmd.users import service as users


def test_retrain_through_the_api_with_a_real_worker(stack: Stack, tiny_model_dir: Path) -> None:
    if not [w for w in stack.workers if w.poll() is None]:
        stack.start_worker("api-w1")
    with stack.factory() as db:
        admin = users.create_user(db_session=db, name="api-admin", role="admin")
        token = users.create_token(db_session=db, user=admin)[1]
    h = {"Authorization": f"Bearer {token}"}
    engine = make_engine(stack.database_url)
    with TestClient(create_app(stack.settings, engine=engine, serve_ui=False)) as c:
        p = c.post("/api/projects", headers=h, json={"name": "api-roundtrip", "model_path": str(tiny_model_dir)})
        assert p.status_code == 201, p.text
        pid = p.json()["id"]
        for name, role, split in (("train", "train", "train"), ("clean", "eval", "test_clean")):
            r = c.post(
                f"/api/projects/{pid}/datasets",
                headers=h,
                files={"file": (f"{name}.csv", demo_csv(n=24, split=split))},
                data={"name": name, "role": role, "id_column": "id"},
            )
            assert r.status_code == 201, r.text
        assert c.put(f"/api/projects/{pid}/task-feedback", headers=h, json={"word": "spielberg", "action": "remove"})
        r = c.post(
            f"/api/projects/{pid}/jobs/retrain",
            headers=h,
            json={"epochs": 2, "batch_size": 4, "lr": 1e-3, "max_length": 32, "mixed_precision": True},
        )
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        seen: list[float] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            job = c.get(f"/api/jobs/{job_id}", headers=h).json()
            if job["status"] == "running":
                seen.append(job["progress"])
            if job["status"] in ("succeeded", "failed", "cancelled"):
                break
            time.sleep(0.1)
        assert job["status"] == "succeeded", (job, stack.all_logs())
        assert len(seen) >= 2 and seen == sorted(seen) and seen[-1] > seen[0]
        metrics = c.get(f"/api/jobs/{job_id}/metrics", headers=h).json()["items"]
        assert len(metrics) == job["total_steps"] == 12 and all(m["er_loss"] is not None for m in metrics)
        versions = c.get(f"/api/projects/{pid}/versions", headers=h).json()["items"]
        assert [(v["version"], v["kind"], v["status"]) for v in versions] == [
            (1, "base", "ready"),
            (2, "debugged", "ready"),
        ]
        new = versions[1]
        assert new["id"] == job["result"]["version_id"] and set(new["metrics"]) == {"clean"}
        assert new["retrain"]["shares_before"] is not None
        # bf16 was asked for; the version says whether this worker's CPU computes it (else float32 ran)
        assert new["config"]["train"]["mixed_precision"] is True
        assert new["config"]["bf16"] is native_bf16(torch.device("cpu"))
        cmp = c.get(f"/api/projects/{pid}/compare", headers=h, params={"a": versions[0]["id"], "b": new["id"]})
        assert cmp.status_code == 200 and cmp.json()["metrics"]["clean"]["accuracy"]["after"] is not None
        assert c.get(f"/api/projects/{pid}", headers=h).json()["latest_version_id"] == new["id"]
    engine.dispose()
