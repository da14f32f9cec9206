"""The retrain's advanced settings over HTTP (the Retrain screen's *Advanced* section): what a request sets
is what the job stores (the worker trains with the stored params), a value outside the core's option
metadata or a setting removed on its measurements (docs/settings.md) answers 422 and starts nothing, and
the expected-duration estimate plans the same phases as the job, so a task feedback scoped by itself adds
the prediction of the training set it costs. SQLite and PostgreSQL; jobs are recorded, not run
(tests/workers runs them)."""

from __future__ import annotations

from apihelpers import Api
from xmd.retrain.plan import needs_predictions, retrain_plan

ADVANCED = {
    "attribution_weight": 2.0,
    "attribution_every": 4,
    "attribution_rows": 6,  # not the default (8)
    "cuda_graphs": True,
    "grad_accum": 2,
}


def test_advanced_settings_reach_the_job_and_bad_ones_start_nothing(api: Api, project):
    pid = project["id"]
    r = api.put(f"/api/projects/{pid}/task-feedback", json={"word": "spielberg", "action": "remove"})
    assert r.status_code == 200, r.text
    for bad in (
        {"objective": "some"},
        {"attribution_every": 0},
        {"attribution_every": 65},
        {"attribution_rows": -1},
        {"lam": -1},
        {"early_stop": True},  # removed (docs/settings.md): refused by name, not ignored
        {"task_scope": "correct"},
    ):
        r = api.post(f"/api/projects/{pid}/jobs/retrain", json=bad)
        assert r.status_code == 422, (bad, r.text)
        r = api.post(f"/api/projects/{pid}/jobs/retrain/estimate", json=bad)
        assert r.status_code == 422, (bad, r.text)
    assert api.sent == []

    r = api.post(f"/api/projects/{pid}/jobs/retrain", json={"epochs": 1, **ADVANCED})
    assert r.status_code == 202, r.text
    params = api.sent[-1][0].params
    assert {k: params[k] for k in ADVANCED} == ADVANCED
    assert api.get(f"/api/jobs/{r.json()['id']}").json()["params"]["attribution_every"] == 4


def _phases(api: Api, pid: int, **body) -> list[dict]:
    r = api.post(f"/api/projects/{pid}/jobs/retrain/estimate", json=body, role="viewer")
    assert r.status_code == 200, r.text
    return r.json()["phases"]


def test_the_estimate_plans_the_prediction_a_scoped_task_feedback_needs(api: Api, project):
    pid = project["id"]
    r = api.put(f"/api/projects/{pid}/task-feedback", json={"word": "spielberg", "action": "remove"})
    assert r.status_code == 200, r.text
    plain = _phases(api, pid)
    assert "predict" not in [p["name"] for p in plain]

    # a task feedback scoped by itself is predicted first
    r = api.put(f"/api/projects/{pid}/task-feedback", json={"word": "great", "action": "remove", "scope": "incorrect"})
    assert r.status_code == 200, r.text
    scoped = _phases(api, pid)
    assert scoped[0] == {
        **scoped[0],
        "name": "predict",
        "label": "predicting v1 on the training set (scoped task feedback)",
        "total": 40,  # the training set
        "unit": "examples",
    }
    assert [p["name"] for p in scoped[1:]] == [p["name"] for p in plain]


_PLAN = {"parent": 1, "child": 2, "eval_sizes": {}, "eval_cap": 10, "total_steps": 4, "examples_per_step": 4}


def test_needs_predictions_follows_the_pipelines_rule():
    """``pipeline.feedback_targets`` predicts when a task feedback's scope, after ``with_task_scope``, is not all."""
    assert not needs_predictions([], "correct")
    assert not needs_predictions(["all", "all"], "all")
    assert needs_predictions(["all"], "incorrect")
    assert needs_predictions(["all", "correct"], "all")
    assert needs_predictions(["CORRECT"], "all")
    plan = retrain_plan(**_PLAN, n_share=8, n_predict=7)
    assert (plan[0].name, plan[0].kind, plan[0].total) == ("predict", "measure", 7)  # at the measuring rate
    assert "predict" not in [p.name for p in retrain_plan(**_PLAN, n_share=8)]
