"""Issue 30 §6: the first explanation of a training set fills the ranking as it goes — each chunk's
explanations and aggregates are committed with the chunk, so the words route answers with a ranking
"built from 8 of 40" while the job runs, not an empty one until it ends — and the words page carries the
minimum count chosen from the data (a word seen twice cannot top a small set's suspicion list)."""

from __future__ import annotations

from typing import Any

import pytest
from apihelpers import Api
from xmd.core.suspicion import default_min_count
from xmd.explanations import flows
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import JobStatus
from xmd.jobs.runner import execute


def test_the_ranking_fills_chunk_by_chunk_while_the_job_runs(
    api: Api, project: dict[str, Any], db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid = project["id"]
    seen: list[tuple[int, int, bool, int]] = []
    chunk = flows._explain_chunk

    def and_read(*args: Any, **kw: Any) -> Any:
        nxt = chunk(*args, **kw)
        page = api.get(f"/api/projects/{pid}/words", role="viewer", params={"min_count": 1}).json()
        cov = page["coverage"]
        seen.append((cov["explained"], cov["total"], cov["complete"], len(page["items"])))
        return nxt

    monkeypatch.setattr(flows, "_explain_chunk", and_read)
    monkeypatch.setattr(flows, "BEFORE_HELPERS", [])  # no retrain calibration: only the chunks matter here
    r = api.post(f"/api/projects/{pid}/jobs/explain", json={"dataset_id": project["train"]["id"], "chunk_size": 8})
    assert r.status_code == 202, r.text
    jid = r.json()["id"]
    assert jobs.mark_running(db_session=db, job_id=jid, worker_host="test:1")
    job = jobs.get_or_raise(db_session=db, job_id=jid)
    ctx = JobContext(job=job, db=db, settings=api.settings, factory=api.client.app.state.session_factory)
    execute(ctx, flows.explain_job)
    db.expire_all()
    assert jobs.get_or_raise(db_session=db, job_id=jid).status is JobStatus.SUCCEEDED
    assert [s[:3] for s in seen] == [(8, 40, False), (16, 40, False), (24, 40, False), (32, 40, False), (40, 40, True)]
    assert all(n > 0 for *_, n in seen)  # never an empty ranking once a chunk is in
    assert seen[0][3] < seen[-1][3]  # and it grows


def test_the_first_chunk_is_ranked_before_the_retrain_calibration_runs(
    api: Api, project: dict[str, Any], db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project's first explain job also times a retrain's work (seconds to minutes): the first chunk goes
    before it, so the ranking is not empty meanwhile, and the progress the chunk made is not reset."""
    pid = project["id"]
    at_calibration: list[tuple[int, float]] = []

    def calibration(ctx: JobContext, version: Any, dataset: Any) -> None:
        page = api.get(f"/api/projects/{pid}/words", role="viewer", params={"min_count": 1}).json()
        job = api.get(f"/api/jobs/{ctx.job.id}").json()
        at_calibration.append((page["coverage"]["explained"], job["progress"]))

    monkeypatch.setattr(flows, "BEFORE_HELPERS", [calibration])
    r = api.post(f"/api/projects/{pid}/jobs/explain", json={"dataset_id": project["train"]["id"], "chunk_size": 8})
    assert r.status_code == 202, r.text
    jid = r.json()["id"]
    assert jobs.mark_running(db_session=db, job_id=jid, worker_host="test:1")
    job = jobs.get_or_raise(db_session=db, job_id=jid)
    ctx = JobContext(job=job, db=db, settings=api.settings, factory=api.client.app.state.session_factory)
    execute(ctx, flows.explain_job)
    db.expire_all()
    assert jobs.get_or_raise(db_session=db, job_id=jid).status is JobStatus.SUCCEEDED
    assert at_calibration == [(8, 20.0)]  # once, with one chunk of five in


def test_the_words_page_carries_a_minimum_count_chosen_from_the_labels(api: Api, project: dict[str, Any]) -> None:
    pid, did = project["id"], project["train"]["id"]
    before = api.get(f"/api/projects/{pid}/words", role="viewer").json()
    assert before["min_count_default"] == 2  # nothing explained: no label share to choose from
    examples = api.get(f"/api/datasets/{did}/examples", params={"limit": 100}).json()["items"]
    for ex in examples:
        assert api.get(f"/api/examples/{ex['id']}/explanation").status_code == 200
    labels = [ex["label"] for ex in examples]
    prior = [labels.count(i) / len(labels) for i in range(2)]
    page = api.get(f"/api/projects/{pid}/words", role="viewer").json()
    assert page["min_count_default"] == default_min_count(prior) >= 4
    # below it no word can pass the skew test: the suspicion list from it starts with words seen often
    top = api.get(
        f"/api/projects/{pid}/words",
        params={"sort": "suspicion", "min_count": page["min_count_default"], "limit": 5},
    ).json()["items"]
    assert top and all(w["count"] >= page["min_count_default"] for w in top)
