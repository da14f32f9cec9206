"""``GET /projects/{id}/consensus`` is bounded (issue 32 §7) on SQLite and PostgreSQL: its marks are paged
like every list (``{items, total, offset, limit}``), the scan stops at ``window.SCAN_CAP`` rows on a whole
example and says so (``capped``), a dataset filter narrows it, and in blind mode an annotator gets the
counts but not the marks."""

from __future__ import annotations

from typing import Any

import pytest
from apihelpers import Api
from xmd.feedback import window
from xmd.users import service as users_service
from xmd.users.models import Role


@pytest.fixture()
def marked(api: Api, db, project) -> dict[str, Any]:
    """Three people's marks: train examples a (word 0 removed by two, word 1 added), b (word 2 removed), c
    (word 0: one adds, one removes, a tie), the eval set's first example d (word 1 removed), a task word."""
    user = users_service.create_user(db_session=db, name="second-annotator", role=Role.ANNOTATOR)
    api.tokens["annotator2"] = users_service.create_token(db_session=db, user=user)[1]
    a, b, c = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": 3}).json()["items"]
    d = api.get(f"/api/datasets/{project['clean']['id']}/examples", params={"limit": 1}).json()["items"][0]
    plan = [
        (a, 0, "remove", "admin"),
        (a, 0, "remove", "annotator"),
        (a, 1, "add", "annotator2"),
        (b, 2, "remove", "admin"),
        (c, 0, "add", "annotator2"),
        (c, 0, "remove", "annotator"),
        (d, 1, "remove", "admin"),
    ]
    for ex, i, action, role in plan:
        r = api.put(f"/api/examples/{ex['id']}/feedback", role=role, json={"word_index": i, "action": action})
        assert r.status_code == 200, r.text
    task = {"word": "plot", "action": "remove"}
    assert api.put(f"/api/projects/{project['id']}/task-feedback", role="annotator", json=task).is_success
    return {"a": a, "b": b, "c": c, "d": d}


def _get(api: Api, project: dict[str, Any], role: str = "viewer", **params: Any) -> Any:
    return api.get(f"/api/projects/{project['id']}/consensus", role=role, params=params)


def test_the_consensus_marks_are_paged_and_link_their_examples(api: Api, project, marked):
    a, b, d = marked["a"], marked["b"], marked["d"]
    r = _get(api, project, limit=2)
    assert r.status_code == 200, r.text
    out = r.json()
    assert (out["policy"], out["instance"], out["task"], out["conflicts"]) == ("union", 4, 1, 1)
    assert (out["total"], out["offset"], out["limit"], out["capped"], out["hidden"]) == (5, 0, 2, False, False)
    assert out["examples"] == 4 and out["contributors"] == {"admin-user": 3, "annotator-user": 3, "second-annotator": 2}
    first = [(m["example_id"], m["word_index"], m["action"]) for m in out["items"]]
    assert first == [(a["id"], 0, "remove"), (a["id"], 1, "add")]  # by example, then position
    assert {(m["example_ext_id"], m["dataset_id"], m["level"]) for m in out["items"]} == {
        (a["ext_id"], project["train"]["id"], "instance")
    }
    rest = _get(api, project, offset=2, limit=10).json()["items"]
    assert [(m["example_id"], m["word_index"]) for m in rest[:2]] == [(b["id"], 2), (d["id"], 1)]
    assert [(m["level"], m["word"], m["action"], m["scope"]) for m in rest[2:]] == [("task", "plot", "remove", "all")]
    counts = _get(api, project, limit=0).json()  # the counts only, as the Conflicts screen asks
    assert counts["items"] == [] and counts["total"] == 5 and counts["instance"] == 4
    clean = _get(api, project, dataset_id=project["clean"]["id"]).json()
    assert [(m["example_id"], m["level"]) for m in clean["items"]] == [(d["id"], "instance"), (None, "task")]


def test_the_scan_stops_at_its_cap_on_a_whole_example(api: Api, project, marked, monkeypatch):
    """Example a holds the first three rows: a cap of 3 reads a whole and none of b (the fourth row); a cap
    of 5 would cut c (rows five and six), so it stops after b; ``capped`` says there was more."""
    a, b = marked["a"], marked["b"]
    monkeypatch.setattr(window, "SCAN_CAP", 3)
    out = _get(api, project).json()
    assert (out["capped"], out["examples"], out["instance"], out["conflicts"]) == (True, 1, 2, 0)
    assert [(m["example_id"], m["word_index"]) for m in out["items"] if m["level"] == "instance"] == [
        (a["id"], 0),
        (a["id"], 1),
    ]
    monkeypatch.setattr(window, "SCAN_CAP", 5)  # a (3 rows) and b (1): c's two rows would pass the cap
    out = _get(api, project).json()
    assert (out["capped"], out["examples"], out["instance"]) == (True, 2, 3)
    assert max(m["example_id"] for m in out["items"] if m["example_id"]) == b["id"]
    monkeypatch.setattr(window, "SCAN_CAP", 7)  # every instance row: nothing more
    assert _get(api, project).json()["capped"] is False


def test_blind_mode_shows_an_annotator_the_counts_not_the_marks(api: Api, project, marked):
    r = api.put(f"/api/projects/{project['id']}/team/settings", json={"policy": "union", "blind": True})
    assert r.status_code == 200, r.text
    blind = _get(api, project, role="annotator").json()
    assert (blind["hidden"], blind["items"], blind["total"], blind["instance"]) == (True, [], 0, 4)
    for role in ("viewer", "reviewer", "admin"):
        seen = _get(api, project, role=role).json()
        assert seen["hidden"] is False and seen["total"] == 5, role


def test_bad_paging_or_dataset_is_a_clear_4xx(api: Api, project, marked):
    assert _get(api, project, limit=1001).status_code == 422
    assert _get(api, project, offset=-1).status_code == 422
    r = _get(api, project, dataset_id=999_999)
    assert r.status_code == 404 and "999999" in r.json()["detail"], r.text
    assert api.get("/api/projects/999999/consensus").status_code == 404
