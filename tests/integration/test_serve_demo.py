"""``xmd serve --demo`` as a newcomer meets it (issue 15, first start): the UI and the API answer at once,
and the demo's set-up (the MiniLM fine-tune, the project, its datasets, the explain job) runs as a
``prepare_demo`` job that ``GET /api/jobs`` lists with its phase, steps and ETA. A server killed half-way
leaves a job that says so, and the next start resumes and ends with one whole demo project.

Small settings keep it quick: 320 training examples, and ``--demo-model`` points the fine-tune at a
small random BERT (``demo_standin_dir``) instead of MiniLM, so the 20 steps take seconds, not minutes,
yet last long enough to be watched and interrupted (18 steps are left when the server is killed). What
this test is about (the job, its phases and ETA, the crash and the resume, the terminal) does not depend
on which model is fine-tuned. The demo set-up with the real MiniLM is tested by
``tests/integration/test_serve.py`` (``prepare_demo``: the same ``prepare_baseline`` and
``install_demo``) and timed on a real first start by ``bench/first_start/first_start.py``."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import httpx
import pytest
from servehelpers import Serve, free_port, kill_workers, until, workers_of

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "frontend" / "dist" / "index.html"
N_TRAIN = 320
STEPS = 20  # count_steps(320, BASELINE_CONFIG): 10 batches of 32, 2 epochs; the crash comes after step 2


@pytest.mark.slow
def test_the_ui_answers_at_once_and_the_demo_is_prepared_as_a_job_that_survives_a_crash(
    tmp_path: Path, demo_standin_dir: Path
):
    data = tmp_path / "data"
    first = Serve(data, free_port(), N_TRAIN, model=demo_standin_dir)
    try:
        url = first.url_line()
        assert "&project=" not in url  # nothing to open yet: the project list shows the preparation
        first.wait_health()
        # the API and the UI answer while the preparation has not finished
        jobs = first.prep_jobs()
        assert len(jobs) == 1 and jobs[0]["status"] in ("queued", "running"), jobs
        assert jobs[0]["project_id"] is None
        assert [p["name"] for p in first.get("/api/projects")["items"]] == []
        ui = httpx.get(first.base + "/")
        if DIST.exists():
            assert ui.status_code == 200 and "<div id=" in ui.text
        else:
            assert ui.status_code == 404
        # ... and it is listed with its phase, steps and an ETA while it fine-tunes
        training = until(
            lambda: next(
                (
                    j
                    for j in first.prep_jobs()
                    if j["status"] == "running" and j["phase"] == "fine-tuning MiniLM" and (j["phase_done"] or 0) >= 2
                ),
                None,
            ),
            "the fine-tune's progress",
            first,
        )
        assert training["phase_total"] == STEPS and training["phase_unit"] == "steps"
        assert training["eta_s"] is not None and training["eta_s"] > 0
        assert 0 < training["progress"] < 100
        assert {p["name"] for p in training["phases"]} == {"data", "load", "train", "project", "datasets"}
        # the terminal follows the job: its line for the fine-tune, with the step (waited for here, where
        # 18 steps are left; a resumed fine-tune can end between two of the reporter's polls)
        until(lambda: "preparing the demo project: fine-tuning MiniLM, step" in first.terminal, "the step line", first)
        # a crash half-way: the server and its workers die without a word
        os.killpg(first.proc.pid, signal.SIGKILL)
        first.proc.wait(10)
        # its workers die with it, even on SIGKILL (they watch their parent: issue 31)
        until(lambda: not workers_of(data), "the embedded workers to die with the server", first)
    finally:
        first.stop()
        kill_workers(data)

    second = Serve(data, free_port(), N_TRAIN, model=demo_standin_dir)
    try:
        second.url_line()
        second.wait_health()
        jobs = second.prep_jobs()
        assert len(jobs) == 2, jobs
        old = next(j for j in jobs if j["id"] == training["id"])
        assert old["status"] == "failed" and "stopped before the demo project was ready" in old["error"]
        new = next(j for j in jobs if j["id"] != training["id"])
        done = until(
            lambda: next(
                (j for j in second.prep_jobs() if j["id"] == new["id"] and j["status"] not in ("queued", "running")),
                None,
            ),
            "the second preparation",
            second,
        )
        assert done["status"] == "succeeded", done
        # the data written before the crash was reused: no "writing the demo data" phase this time
        assert [p["name"] for p in done["phases"]] == ["load", "train", "project", "datasets"]
        projects = second.get("/api/projects")["items"]
        assert [p["name"] for p in projects] == ["demo: spielberg shortcut"]
        pid = projects[0]["id"]
        assert done["result"]["project_id"] == pid and done["result"]["explain_job_id"]
        # --demo-model reached the job: the demo's baseline is the stand-in fine-tuned, not MiniLM
        baseline = json.loads((data / "demo" / "models" / "baseline" / "config.json").read_text())
        standin = json.loads((demo_standin_dir / "config.json").read_text())
        assert (baseline["hidden_size"], baseline["num_hidden_layers"]) == (
            standin["hidden_size"],
            standin["num_hidden_layers"],
        )
        sets = {d["name"]: (d["role"], d["n_examples"]) for d in second.get(f"/api/projects/{pid}/datasets")["items"]}
        assert sets == {"train": ("train", N_TRAIN), "test_clean": ("eval", 400), "test_anti": ("eval", 400)}
        explain = second.get(f"/api/jobs/{done['result']['explain_job_id']}")
        assert explain["kind"] == "explain" and explain["project_id"] == pid
        until(lambda: "the demo project is ready" in second.terminal, "the terminal's ready line", second)
    finally:
        second.stop()

    # a third start finds the project whole: no new job, and the printed URL opens it
    third = Serve(data, free_port(), N_TRAIN, model=demo_standin_dir)
    try:
        assert f"&project={pid}" in third.url_line()
        third.wait_health()
        assert len(third.prep_jobs()) == 2
    finally:
        third.stop()
    # the terminal stayed quiet: the URL and the preparation's lines, no worker banner or traceback
    terminal = first.terminal + second.terminal + third.terminal
    assert "celery@" not in terminal and "Traceback" not in terminal and "Loading weights" not in terminal
