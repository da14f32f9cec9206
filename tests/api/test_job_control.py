"""Jobs over HTTP that explain their waits and never outlive their project (issues 13 and 15): a project
with unfinished jobs cannot be deleted (409, nothing changes), a queued job says where it stands and
whom it waits behind, the eval cap is a retrain setting, and a retrain's phases and expected duration
are known before it starts. Every test runs on SQLite and on PostgreSQL (see dbfixtures)."""

from __future__ import annotations

import pytest
from apihelpers import Api
from xmd.jobs import service as jobs
from xmd.jobs.models import JobStatus


def _feedback(api: Api, project) -> None:
    r = api.put(f"/api/projects/{project['id']}/task-feedback", json={"word": "spielberg", "action": "remove"})
    assert r.status_code == 200, r.text


def test_a_project_with_a_running_job_is_not_deleted(api: Api, project, db):
    _feedback(api, project)
    jid = api.post(f"/api/projects/{project['id']}/jobs/retrain", json={}).json()["id"]
    assert jobs.mark_running(db_session=db, job_id=jid, worker_host="test:1")
    r = api.delete(f"/api/projects/{project['id']}")
    assert r.status_code == 409, r.text
    assert jid in r.json()["detail"] and "cancel" in r.json()["detail"]
    assert api.get(f"/api/projects/{project['id']}").status_code == 200
    assert api.get(f"/api/jobs/{jid}").json()["status"] == "running"
    assert api.post(f"/api/jobs/{jid}/cancel", role="annotator").json()["cancel_requested"] is True
    assert api.delete(f"/api/projects/{project['id']}").status_code == 409  # still running until it stops
    assert jobs.mark_cancelled(db_session=db, job_id=jid)
    assert api.delete(f"/api/projects/{project['id']}").status_code == 204
    assert api.get(f"/api/jobs/{jid}").status_code == 404


def test_a_queued_job_says_whom_it_waits_behind(api: Api, project, db):
    _feedback(api, project)
    first = api.post(f"/api/projects/{project['id']}/jobs/retrain", json={}).json()["id"]
    jobs.mark_running(db_session=db, job_id=first, worker_host="test:1")
    second = api.post(f"/api/projects/{project['id']}/jobs/retrain", json={}).json()["id"]
    explain = api.post(f"/api/projects/{project['id']}/jobs/explain", json={}).json()["id"]
    running = api.get(f"/api/jobs/{first}", role="viewer").json()
    assert running["queue_position"] is None and running["waiting_behind"] is None
    got = api.get(f"/api/jobs/{second}", role="viewer").json()
    assert got["queue_position"] == 1
    assert got["waiting_behind"] == {
        "id": first,
        "kind": "retrain",
        "status": "running",
        "project_id": project["id"],
        "project_name": "demo",
    }
    # one queue here (the settings give retrains no queue of their own): the explain is second in line
    assert api.get(f"/api/jobs/{explain}").json()["queue_position"] == 2
    listed = {j["id"]: j for j in api.get(f"/api/projects/{project['id']}/jobs").json()["items"]}
    assert listed[second]["queue_position"] == 1 and listed[explain]["waiting_behind"]["id"] == first
    # with a retrain queue of its own, an explain waits behind nothing
    places = jobs.queue_info(
        db_session=db, job_ids=[explain], queue_of=lambda kind: "long" if kind == "retrain" else "short"
    )
    assert places[explain] == {"position": 1, "running_in_queue": 0, "behind": None}


def test_eval_cap_is_a_retrain_setting(api: Api, project, db):
    _feedback(api, project)
    r = api.post(f"/api/projects/{project['id']}/jobs/retrain", json={"eval_max_examples": 5})
    assert r.status_code == 422, r.text
    job = api.post(f"/api/projects/{project['id']}/jobs/retrain", json={}).json()
    assert job["params"]["eval_max_examples"] == 2000
    job = api.post(f"/api/projects/{project['id']}/jobs/retrain", json={"eval_max_examples": 25}).json()
    assert job["params"]["eval_max_examples"] == 25


def test_retrain_estimate_names_the_phases_and_uses_the_last_measured_rates(api: Api, project, db):
    _feedback(api, project)
    body = {"eval_max_examples": 25, "batch_size": 8, "epochs": 2}
    r = api.post(f"/api/projects/{project['id']}/jobs/retrain/estimate", json=body, role="viewer")
    assert r.status_code == 200, r.text
    est = r.json()
    assert est["expected_s"] is None and est["measured_before"] is False
    by_name = {p["name"]: p for p in est["phases"]}
    assert by_name["measure_before:clean"] == {**by_name["measure_before:clean"], "label": "measuring v1 on clean"}
    assert by_name["measure_before:clean"]["total"] == 25  # 40 examples, capped at 25
    assert by_name["train"]["total"] == 10 and by_name["train"]["unit"] == "steps"  # 40 / 8 x 2 epochs
    assert by_name["measure_after:clean"]["label"] == "measuring v2 on clean"

    # a finished retrain that measured 0.01 s per eval example, 0.02 per explained one, 0.1 per trained one
    done = jobs.create(db_session=db, kind="retrain", project_id=project["id"], params={})
    jobs.mark_running(db_session=db, job_id=done.id)
    log = [
        {"name": "measure_before:clean", "kind": "measure", "done": 100, "total": 100, "scale": 1, "seconds": 1.0},
        {"name": "shares_before:grad_x_input", "kind": "shares_grad_x_input", "done": 50, "scale": 1, "seconds": 1.0},
        {"name": "shares_before:occlusion", "kind": "shares_occlusion", "done": 50, "scale": 1, "seconds": 1.0},
        {"name": "train", "kind": "train", "done": 10, "total": 10, "scale": 4, "seconds": 4.0},
        {"name": "save", "kind": "save", "done": 1, "total": 1, "scale": 1, "seconds": 2.0},
    ]
    jobs.report_progress(db_session=db, job_id=done.id, progress=50, phase={"phases": log})
    assert jobs.finish(db_session=db, job_id=done.id, result={})
    assert jobs.get(db_session=db, job_id=done.id).status is JobStatus.SUCCEEDED
    est = api.post(f"/api/projects/{project['id']}/jobs/retrain/estimate", json=body).json()
    assert est["measured_before"] is True
    by_name = {p["name"]: p for p in est["phases"]}
    assert by_name["measure_before:clean"]["expected_s"] == 25 * 0.01
    assert by_name["train"]["expected_s"] == 10 * 8 * 0.1  # 10 steps of 8 examples at 0.1 s each
    # explained examples: at most the 40 training examples, twice per method (before and after)
    expected = 2 * 25 * 0.01 + 2 * 40 * (0.02 + 0.02) + 8.0 + 2.0
    assert abs(est["expected_s"] - expected) < 1e-6

    # with controls the new version is ready after the same phases as without them; the controls follow
    # it as jobs (issue 30 §5): λ = 0 for seed 0, then the debug run and λ = 0 for seeds 1 and 2 = 5 runs,
    # each training, measuring and saving one model; the estimate says both waits
    cmp = api.post(
        f"/api/projects/{project['id']}/jobs/retrain/estimate", json={**body, "controls": ["lambda0"], "seeds": 3}
    ).json()
    assert cmp["phases"] == est["phases"] and abs(cmp["expected_s"] - expected) < 1e-6
    assert cmp["control_runs"] == 5 and abs(cmp["controls_s"] - 5 * (8.0 + 25 * 0.01 + 2.0)) < 1e-6
    assert abs(cmp["until_controls_s"] - (expected + cmp["controls_s"])) < 1e-6
    strip = api.post(
        f"/api/projects/{project['id']}/jobs/retrain/estimate", json={**body, "controls": ["strip"]}
    ).json()  # the parent predicts the eval sets without the words: inference only
    assert strip["control_runs"] == 1 and abs(strip["controls_s"] - 25 * 0.01) < 1e-6
    assert est["controls_s"] is None and est["control_runs"] == 0


def _succeeded(db, kind: str, project_id: int, log: list[dict]) -> None:
    """A finished job of ``kind`` whose phase log is ``log``."""
    job = jobs.create(db_session=db, kind=kind, project_id=project_id, params={})
    jobs.mark_running(db_session=db, job_id=job.id)
    jobs.report_progress(db_session=db, job_id=job.id, progress=50, phase={"phases": log})
    assert jobs.finish(db_session=db, job_id=job.id, result={})


def test_before_any_retrain_the_estimate_uses_the_calibration_of_the_projects_explain_job(api: Api, project, db):
    """A project's first explain job times a retrain's kinds of work (xmd.core.calibrate); until a retrain
    has run, the estimate prices training between the step without feedback and the step where every row
    has it, by the share of training rows with feedback: here every row, since the task word's count is
    unknown (the version was never explained)."""
    _feedback(api, project)
    body = {"eval_max_examples": 25, "batch_size": 8, "epochs": 2}
    url = f"/api/projects/{project['id']}/jobs/retrain/estimate"
    est = api.post(url, json=body).json()
    assert (est["expected_s"], est["rates_from"]) == (None, None)
    timings = [
        ("train_plain", 10, 1.0),
        ("train_feedback", 10, 3.0),
        ("train_erasure", 10, 1.4),
        ("measure", 20, 0.2),
        ("shares_grad_x_input", 10, 0.2),
        ("shares_occlusion", 2, 0.2),
        ("train_plain_bf16", 10, 0.5),  # a GPU-like device: the default trains float32, bf16 takes half
        ("train_feedback_bf16", 10, 1.5),
    ]
    log = [
        {"name": f"calibrate:{k}", "kind": k, "done": n, "total": n, "scale": 1, "seconds": s} for k, n, s in timings
    ]
    _succeeded(db, "explain", project["id"], log)
    est = api.post(url, json=body, role="viewer").json()
    assert (est["rates_from"], est["measured_before"]) == ("calibration", False)
    by_name = {p["name"]: p for p in est["phases"]}
    assert by_name["train"]["expected_s"] == pytest.approx(10 * 8 * 0.3)  # 10 steps of 8, all rows at 0.3 s
    assert by_name["measure_before:clean"]["expected_s"] == pytest.approx(25 * 0.01)
    # saving was never timed: a minor phase, left out; the rest as timed
    expected = 2 * 25 * 0.01 + 2 * 40 * (0.02 + 0.1) + 10 * 8 * 0.3
    assert est["expected_s"] == pytest.approx(expected)
    # the screen's speed settings change the price: the attribution term (0.16 s of the 0.3) every 4th batch
    est = api.post(url, json={**body, "attribution_every": 4}).json()
    train = {p["name"]: p for p in est["phases"]}["train"]["expected_s"]
    assert train == pytest.approx(10 * 8 * (0.1 + 0.04 + 0.16 / 4))
    # ... and so does bf16 (mixed_precision), by what the calibration's bf16 steps cost
    est = api.post(url, json={**body, "mixed_precision": True}).json()
    assert {p["name"]: p for p in est["phases"]}["train"]["expected_s"] == pytest.approx(10 * 8 * 0.15)
    est = api.post(url, json={**body, "mixed_precision": False}).json()  # float32: the default's own rate here
    assert {p["name"]: p for p in est["phases"]}["train"]["expected_s"] == pytest.approx(10 * 8 * 0.3)
    # CUDA graphs: this calibration timed no graphed step (a CPU, say), so eager steps price them, and it says so
    est = api.post(url, json={**body, "cuda_graphs": True}).json()
    assert {p["name"]: p for p in est["phases"]}["train"]["expected_s"] == pytest.approx(10 * 8 * 0.3)
    assert est["graphs_priced"] is False
    # ... a calibration that timed graphed steps (a GPU) prices them: 0.04 / 0.12 s per example against 0.1 / 0.3
    graphed = [("train_plain_graphs", 10, 0.4), ("train_feedback_graphs", 10, 1.2)]
    log += [
        {"name": f"calibrate:{k}", "kind": k, "done": n, "total": n, "scale": 1, "seconds": s} for k, n, s in graphed
    ]
    _succeeded(db, "explain", project["id"], log)
    est = api.post(url, json={**body, "cuda_graphs": True}).json()
    assert {p["name"]: p for p in est["phases"]}["train"]["expected_s"] == pytest.approx(10 * 8 * 0.12)
    assert est["graphs_priced"] is True
    est = api.post(url, json=body).json()
    assert {p["name"]: p for p in est["phases"]}["train"]["expected_s"] == pytest.approx(10 * 8 * 0.3)
    assert est["graphs_priced"] is False  # not asked for

    # the project's own retrain, once it has run, comes first
    retrain = [{"name": "train", "kind": "train", "done": 10, "total": 10, "scale": 4, "seconds": 4.0}]
    _succeeded(db, "retrain", project["id"], retrain)
    est = api.post(url, json=body).json()
    assert (est["rates_from"], est["measured_before"]) == ("retrain", True)
    assert {p["name"]: p for p in est["phases"]}["train"]["expected_s"] == pytest.approx(10 * 8 * 0.1)
    # ... and a setting changed since that retrain scales its training rate by what the calibration says
    # the two settings cost (every row with feedback here: 0.1 + 0.04 + 0.16 / 4 against 0.3)
    est = api.post(url, json={**body, "attribution_every": 4}).json()
    train = {p["name"]: p for p in est["phases"]}["train"]["expected_s"]
    assert (est["rates_from"], train) == ("retrain", pytest.approx(10 * 8 * 0.1 * 0.18 / 0.3))
    est = api.post(url, json={**body, "mixed_precision": True}).json()  # that retrain ran the default (float32 here)
    assert {p["name"]: p for p in est["phases"]}["train"]["expected_s"] == pytest.approx(10 * 8 * 0.1 * 0.5)
    # that retrain took eager steps: graphed ones cost 0.12 / 0.3 of them by the calibration
    est = api.post(url, json={**body, "cuda_graphs": True}).json()
    assert {p["name"]: p for p in est["phases"]}["train"]["expected_s"] == pytest.approx(10 * 8 * 0.1 * 0.4)


def test_a_removed_retrain_setting_is_a_422_and_starts_nothing(api: Api, project, db):
    """A setting removed on its measurements (docs/settings.md) is no field of the request any more: the
    estimate and the retrain both refuse it by name instead of ignoring it, on either database."""
    _feedback(api, project)
    bad = {"attribution_gate": True}
    base = f"/api/projects/{project['id']}/jobs/retrain"
    before = len(jobs.list_jobs(db_session=db, project_id=project["id"]))
    for url in (f"{base}/estimate", base):
        r = api.post(url, json=bad)
        assert r.status_code == 422 and "attribution_gate" in r.text, r.text
    assert len(jobs.list_jobs(db_session=db, project_id=project["id"])) == before
