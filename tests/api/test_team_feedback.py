"""Several people on one project (issue 32 §1, §4), on SQLite and PostgreSQL: each one's marks are their
own (a reset clears one's own), the consensus by each policy on hand-worked marks, blind mode on every
route that reads marks, and a reviewer's conflicts and decisions."""

from __future__ import annotations

from typing import Any

import pytest
from apihelpers import Api
from xmd.core.feedback import FeedbackSet
from xmd.core.types import Action, InstanceFeedback
from xmd.feedback import service, team
from xmd.projects import service as projects_service
from xmd.users import service as users_service
from xmd.users.models import Role


@pytest.fixture()
def two(api: Api, db) -> Api:
    """A second annotator, ``annotator2`` (the fixture made one user per role)."""
    user = users_service.create_user(db_session=db, name="second-annotator", role=Role.ANNOTATOR)
    api.tokens["annotator2"] = users_service.create_token(db_session=db, user=user)[1]
    return api


def examples(api: Api, project: dict[str, Any], n: int = 2) -> list[dict[str, Any]]:
    return api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": n}).json()["items"]


def mark(api: Api, ex: dict[str, Any], i: int, action: str, role: str) -> Any:
    r = api.put(f"/api/examples/{ex['id']}/feedback", role=role, json={"word_index": i, "action": action})
    assert r.status_code == 200, r.text
    return r.json()


def listed(api: Api, project: dict[str, Any], role: str = "admin", **params: Any) -> list[tuple[str, str, int]]:
    r = api.get(f"/api/projects/{project['id']}/feedback", role=role, params=params)
    assert r.status_code == 200, r.text
    rows = [(f["updated_by"], f["action"], f["word_index"]) for f in r.json()["items"]]
    return sorted(rows, key=lambda t: (t[0], t[1], -1 if t[2] is None else t[2]))


def settings(api: Api, project: dict[str, Any], **body: Any) -> dict[str, Any]:
    r = api.put(f"/api/projects/{project['id']}/team/settings", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_each_persons_marks_are_their_own_and_a_reset_clears_only_ones_own(two: Api, project):
    api = two
    ex = examples(api, project, 1)[0]
    mark(api, ex, 0, "remove", "admin")
    out = mark(api, ex, 0, "reset", "annotator")  # the story: this used to empty the project
    assert out["current"] is None
    assert listed(api, project) == [("admin-user", "remove", 0)]
    mark(api, ex, 0, "add", "annotator")
    mark(api, ex, 0, "remove", "annotator2")
    assert listed(api, project) == [
        ("admin-user", "remove", 0),
        ("annotator-user", "add", 0),
        ("second-annotator", "remove", 0),
    ]
    mark(api, ex, 0, "reset", "annotator")
    assert listed(api, project) == [("admin-user", "remove", 0), ("second-annotator", "remove", 0)]
    key = f"i:{ex['id']}:0"
    events = api.get(f"/api/projects/{project['id']}/feedback/events", params={"key": key}).json()["items"]
    assert [(e["user"], e["action"]) for e in events] == [
        ("admin-user", "remove"),
        ("annotator-user", "reset"),
        ("annotator-user", "add"),
        ("second-annotator", "remove"),
        ("annotator-user", "reset"),
    ]
    # the example's marks, with names, for whoever reads them (not blind)
    marks = api.get(f"/api/examples/{ex['id']}/marks", role="annotator2").json()
    assert marks["hidden"] is False
    assert sorted((m["by"], m["mine"]) for m in marks["items"]) == [("admin-user", False), ("second-annotator", True)]


def test_team_settings_are_the_admins_and_change_no_marks(two: Api, project, db):
    api = two
    ex = examples(api, project, 1)[0]
    mark(api, ex, 1, "remove", "annotator")
    url = f"/api/projects/{project['id']}/team/settings"
    assert api.get(url, role="viewer").json() == {"policy": "union", "k": None, "blind": False}
    for role in ("viewer", "annotator", "reviewer"):
        assert api.put(url, role=role, json={"policy": "majority"}).status_code == 403
    assert api.put(url, json={"policy": "at_least_k"}).status_code == 422  # k is needed
    assert api.put(url, json={"policy": "sometimes"}).status_code == 422
    assert settings(api, project, policy="at_least_k", k=2, blind=True) == {
        "policy": "at_least_k",
        "k": 2,
        "blind": True,
    }
    assert settings(api, project, policy="majority", k=5) == {"policy": "majority", "k": None, "blind": False}
    assert listed(api, project) == [("annotator-user", "remove", 1)]


def _consensus(db, project: dict[str, Any]) -> dict[tuple[str, int], str]:
    db.expire_all()
    proj = projects_service.get_or_raise(db_session=db, project_id=project["id"])
    c = team.consensus_of(db_session=db, project=proj, dataset_id=project["train"]["id"])
    return {(f.example_id, f.word_index): str(getattr(f.action, "value", f.action)) for f in c.feedback.instance}


def test_consensus_by_each_policy_on_hand_worked_marks(two: Api, project, db):
    """Three people saw example A: word 0 removed by two of them, word 1 added by one, word 2 removed by
    one and added by another. Only the admin saw example B (word 0 removed)."""
    api = two
    a, b, c = examples(api, project, 3)
    mark(api, a, 0, "remove", "admin")
    mark(api, a, 0, "remove", "annotator")
    mark(api, a, 1, "add", "annotator2")
    mark(api, a, 2, "remove", "annotator")
    mark(api, a, 2, "add", "annotator2")
    mark(api, b, 0, "remove", "admin")
    A, B = a["ext_id"], b["ext_id"]
    union = {(A, 0): "remove", (A, 1): "add", (B, 0): "remove"}  # word 2 of A: one each way, a tie: neither
    assert _consensus(db, project) == union
    settings(api, project, policy="majority")  # more than half of those who saw it: 2 of 3 on A, 1 of 1 on B
    assert _consensus(db, project) == {(A, 0): "remove", (B, 0): "remove"}
    settings(api, project, policy="at_least_k", k=2)
    assert _consensus(db, project) == {(A, 0): "remove"}
    settings(api, project, policy="at_least_k", k=1)
    assert _consensus(db, project) == union
    settings(api, project, policy="reviewed")
    assert _consensus(db, project) == {}
    decide = f"/api/projects/{project['id']}/conflicts/decide"
    assert api.post(decide, role="reviewer", json={"key": f"i:{a['id']}:2", "decision": "accept"}).status_code == 422
    r = api.post(decide, role="reviewer", json={"key": f"i:{a['id']}:2", "decision": "accept", "action": "remove"})
    assert r.status_code == 200, r.text
    api.post(decide, role="reviewer", json={"key": f"i:{a['id']}:1", "decision": "reject"})
    api.post(decide, role="reviewer", json={"key": f"i:{a['id']}:0", "decision": "edit", "action": "add"})
    assert _consensus(db, project) == {(A, 2): "remove", (A, 0): "add"}
    summary = api.get(f"/api/projects/{project['id']}/consensus", role="viewer").json()
    assert summary["policy"] == "reviewed" and summary["instance"] == 2 and summary["reviewed"] == 3
    assert summary["contributors"] == {"admin-user": 2, "annotator-user": 2, "second-annotator": 2}
    # someone who marked an example done without marking it counts as having seen it: with the reviewer
    # done on A (and a contributor, by a mark on a third example), majority needs 3 of 4 on A
    assert api.post(f"/api/examples/{a['id']}/done", role="reviewer").status_code == 200
    mark(api, c, 3, "add", "reviewer")
    settings(api, project, policy="majority")
    assert _consensus(db, project) == {(B, 0): "remove", (c["ext_id"], 3): "add"}


def test_one_persons_consensus_is_their_feedback_as_given(api: Api, project, db):
    """Union with a single annotator: exactly the set the retrain read before (order, resets, sources)."""
    a, b = examples(api, project, 2)
    mark(api, a, 0, "remove", "annotator")
    mark(api, b, 1, "add", "annotator")
    mark(api, a, 0, "add", "annotator")  # changed their mind: later wins
    mark(api, b, 1, "reset", "annotator")
    mark(api, a, 2, "remove", "annotator")
    assert api.put(
        f"/api/projects/{project['id']}/task-feedback", role="annotator", json={"word": "plot", "action": "remove"}
    ).is_success
    db.expire_all()
    proj = projects_service.get_or_raise(db_session=db, project_id=project["id"])
    old = service.to_feedback_set(db_session=db, project=proj, dataset_id=project["train"]["id"])
    new = team.consensus_of(db_session=db, project=proj, dataset_id=project["train"]["id"]).feedback
    assert new.to_dict() == old.to_dict() and len(new.instance) == 2 and len(new.task) == 1


def test_blind_mode_hides_the_others_marks_on_every_route_until_done(two: Api, project):
    api = two
    a, b = examples(api, project, 2)
    mark(api, a, 0, "remove", "admin")
    mark(api, b, 0, "add", "admin")
    mark(api, a, 1, "add", "annotator")
    task = {"word": "plot", "action": "remove"}
    assert api.put(f"/api/projects/{project['id']}/task-feedback", json=task).is_success  # the admin's
    settings(api, project, blind=True)
    pid = project["id"]
    own = [("annotator-user", "add", 1)]

    def annotator_reads() -> dict[str, Any]:
        events = api.get(f"/api/projects/{pid}/feedback/events", role="annotator").json()
        history = api.get(
            f"/api/projects/{pid}/feedback/events", role="annotator", params={"key": f"i:{a['id']}:0"}
        ).json()
        return {
            "list": listed(api, project, "annotator"),
            "events": sorted(e["user"] for e in events["items"]),
            "history": [e["user"] for e in history["items"]],
            "export": api.get(f"/api/projects/{pid}/feedback/export", role="annotator").json(),
            "marks": api.get(f"/api/examples/{a['id']}/marks", role="annotator").json(),
            "with_feedback": {
                e["id"]: e["n_feedback"]
                for e in api.get(
                    f"/api/datasets/{project['train']['id']}/examples", role="annotator", params={"has_feedback": True}
                ).json()["items"]
            },
            "count_b": api.get(f"/api/examples/{b['id']}", role="annotator").json()["n_feedback"],
        }

    seen = annotator_reads()
    assert seen["list"] == own and seen["events"] == ["annotator-user"] and seen["history"] == []
    assert [(f["word_index"], f["action"]) for f in seen["export"]["instance"]] == [(1, "add")]
    assert seen["export"]["task"] == []
    assert seen["marks"]["hidden"] is True and seen["marks"]["done"] is False
    assert seen["with_feedback"] == {a["id"]: 1} and seen["count_b"] == 0  # not even the others' counts
    assert [m["by"] for m in seen["marks"]["items"]] == ["annotator-user"]
    # a viewer, a reviewer and the admin see everyone's
    for role in ("viewer", "reviewer", "admin"):
        assert len(listed(api, project, role)) == 4
    # the second annotator sees nothing of anyone's yet
    assert listed(api, project, "annotator2") == []

    assert api.post(f"/api/examples/{a['id']}/done", role="annotator").json() == {"example_id": a["id"], "done": True}
    seen = annotator_reads()
    assert seen["list"] == [("admin-user", "remove", 0), *own]  # example A's, not B's, not the task word
    assert seen["history"] == ["admin-user"] and seen["events"] == ["admin-user", "annotator-user"]
    assert seen["marks"]["done"] is True and seen["marks"]["hidden"] is False and len(seen["marks"]["items"]) == 2
    assert seen["with_feedback"] == {a["id"]: 2} and seen["count_b"] == 0
    assert len(seen["export"]["instance"]) == 1  # the export in blind mode is one's own, done or not
    settings(api, project, blind=False)
    assert len(listed(api, project, "annotator")) == 4


def test_blind_mode_on_the_explanation_and_the_words(two: Api, project):
    api = two
    ex = examples(api, project, 1)[0]
    word = api.get(f"/api/examples/{ex['id']}/explanation").json()["words"][2]
    mark(api, ex, 0, "remove", "admin")
    mark(api, ex, 1, "add", "annotator")
    api.put(f"/api/projects/{project['id']}/task-feedback", json={"word": word, "action": "remove"})
    settings(api, project, blind=True)
    exp = api.get(f"/api/examples/{ex['id']}/explanation", role="annotator").json()
    assert [(m["word_index"], m["by"], m["mine"]) for m in exp["marks"]] == [(1, "annotator-user", True)]
    words_url = f"/api/projects/{project['id']}/words"
    shown = api.get(words_url, role="annotator", params={"search": word}).json()["items"]
    assert shown and all(not w["feedback"] for w in shown)
    shown = api.get(words_url, role="viewer", params={"search": word}).json()["items"]
    assert any(w["feedback"] for w in shown)
    exp = api.get(f"/api/examples/{ex['id']}/explanation", role="annotator2").json()
    assert exp["marks"] == []
    settings(api, project, blind=False)
    exp = api.get(f"/api/examples/{ex['id']}/explanation", role="annotator").json()
    assert sorted((m["level"], m["by"], m["mine"]) for m in exp["marks"]) == [
        ("instance", "admin-user", False),
        ("instance", "annotator-user", True),
        ("task", "admin-user", False),
    ]


def test_conflicts_most_disputed_first_and_the_reviewers_decisions_are_logged(two: Api, project):
    api = two
    a, b = examples(api, project, 2)
    mark(api, a, 0, "remove", "admin")  # A0: remove, add, none → dispute 2/3
    mark(api, a, 0, "add", "annotator")
    mark(api, a, 1, "remove", "annotator2")  # A1: remove by one of three → 2/3 said none: dispute 1/3
    mark(api, a, 3, "remove", "admin")  # A3: all three remove → no conflict
    mark(api, a, 3, "remove", "annotator")
    mark(api, a, 3, "remove", "annotator2")
    mark(api, b, 0, "remove", "admin")  # B: one rater only → no conflict
    url = f"/api/projects/{project['id']}/conflicts"
    for role in ("viewer", "annotator"):
        assert api.get(url, role=role).status_code == 403
    page = api.get(url, role="reviewer").json()
    assert page["total"] == 2 and page["capped"] is False
    first, second = page["items"]
    assert first["key"] == f"i:{a['id']}:0" and first["example_ext_id"] == a["ext_id"] and first["raters"] == 3
    assert first["votes"] == {"add": ["annotator-user"], "remove": ["admin-user"], "none": ["second-annotator"]}
    assert first["dispute"] == pytest.approx(2 / 3) and second["dispute"] == pytest.approx(1 / 3)
    assert api.get(url, role="reviewer", params={"offset": 1, "limit": 1}).json()["items"][0]["key"] == second["key"]

    decide = f"{url}/decide"
    assert api.post(decide, role="annotator", json={"key": first["key"], "decision": "reject"}).status_code == 403
    assert api.post(decide, role="reviewer", json={"key": "i:1:999", "decision": "reject"}).status_code == 404
    assert api.post(decide, role="reviewer", json={"key": first["key"], "decision": "edit"}).status_code == 422
    r = api.post(decide, role="reviewer", json={"key": first["key"], "decision": "edit", "action": "remove"})
    assert r.json()["reviewer"] == "reviewer-user" and r.json()["action"] == "remove"
    assert api.get(url, role="reviewer").json()["total"] == 1
    decided = api.get(url, role="reviewer", params={"include_decided": True}).json()["items"]
    assert decided[0]["decision"] == "edit" and decided[0]["decided_action"] == "remove"
    events = api.get(f"/api/projects/{project['id']}/feedback/events", params={"key": first["key"]}).json()["items"]
    assert (events[-1]["user"], events[-1]["source"], events[-1]["action"]) == (
        "reviewer-user",
        "review:edit",
        "remove",
    )
    # a decision changes nobody's marks
    assert len(listed(api, project)) == 7


def test_imported_annotators_are_people_of_their_own_and_simulated_stays_named(api: Api, project, db):
    """Two rationale files imported as two named annotators (``owner``): the majority keeps what both
    marked, and the consensus still says the marks were simulated (for the version and its card)."""
    a, b = examples(api, project, 2)
    proj = projects_service.get_or_raise(db_session=db, project_id=project["id"])
    src = "simulated:rationales:r"
    for owner, marks in (("import:r1", [(a, 0), (a, 1)]), ("import:r2", [(a, 0), (b, 2)])):
        fs = FeedbackSet(instance=[InstanceFeedback(ex["ext_id"], i, Action.REMOVE, src) for ex, i in marks])
        n = service.import_feedback_set(
            db_session=db, project=proj, feedback=fs, dataset_id=project["train"]["id"], owner=owner
        )
        assert n == 2
    settings(api, project, policy="majority")
    db.expire_all()
    proj = projects_service.get_or_raise(db_session=db, project_id=project["id"])
    people = team.marks_by_person(db_session=db, project=proj, dataset_id=project["train"]["id"])
    assert sorted(people) == ["import:r1", "import:r2"]
    c = team.consensus_of(db_session=db, project=proj, dataset_id=project["train"]["id"])
    # a: both saw it, word 0 by both (kept), word 1 by one of two (not); b: only r2 saw it (kept)
    assert sorted((f.example_id, f.word_index) for f in c.feedback.instance) == [(a["ext_id"], 0), (b["ext_id"], 2)]
    assert c.feedback.sources() == {f"consensus:majority of {src}": {"instance": 2, "task": 0}}
