"""The Words page with several people (issue 32), on SQLite and PostgreSQL: each word's task feedback is
the project's consensus under its policy (what a retrain trains on), the reader's own apart, with a head
count per action; in blind mode an annotator's words carry their own marks only, counts included."""

from __future__ import annotations

from typing import Any

import pytest
from apihelpers import Api
from xmd.feedback import team
from xmd.projects import service as projects_service
from xmd.users import service as users_service
from xmd.users.models import Role


@pytest.fixture()
def two(api: Api, db) -> Api:
    """A second annotator, ``annotator2`` (the fixture made one user per role)."""
    user = users_service.create_user(db_session=db, name="second-annotator", role=Role.ANNOTATOR)
    api.tokens["annotator2"] = users_service.create_token(db_session=db, user=user)[1]
    return api


def _ranked(api: Api, project: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """Four explained training examples, and three words of the ranking."""
    exs = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": 4}).json()["items"]
    for ex in exs:
        assert api.get(f"/api/examples/{ex['id']}/explanation").status_code == 200
    words = [
        w["word"] for w in api.get(f"/api/projects/{project['id']}/words", params={"min_count": 1}).json()["items"]
    ]
    assert len(words) >= 3
    return exs, words[:3]


def _task(api: Api, project: dict[str, Any], word: str, action: str, role: str) -> None:
    r = api.put(f"/api/projects/{project['id']}/task-feedback", role=role, json={"word": word, "action": action})
    assert r.status_code == 200, r.text


def _settings(api: Api, project: dict[str, Any], **body: Any) -> None:
    assert api.put(f"/api/projects/{project['id']}/team/settings", json=body).status_code == 200


def _page(api: Api, project: dict[str, Any], role: str) -> dict[str, Any]:
    r = api.get(f"/api/projects/{project['id']}/words", role=role, params={"min_count": 1, "limit": 500})
    assert r.status_code == 200, r.text
    return r.json()


def _shown(page: dict[str, Any], words: list[str]) -> dict[str, dict[str, Any]]:
    """word → (its feedback as (action, votes), its reader's own actions, its head count per action)."""
    items = {w["word"]: w for w in page["items"]}
    return {
        w: {
            "feedback": [(f["action"], f["votes"]) for f in items[w]["feedback"]],
            "mine": [f["action"] for f in items[w]["mine"]],
            "votes": items[w]["votes"],
        }
        for w in words
    }


def _consensus_words(db, project: dict[str, Any]) -> dict[str, str]:
    """The task words of the consensus a retrain trains on (``team.consensus_of``, project-wide)."""
    db.expire_all()
    proj = projects_service.get_or_raise(db_session=db, project_id=project["id"])
    return {
        f.word: str(getattr(f.action, "value", f.action))
        for f in team.consensus_of(db_session=db, project=proj).feedback.task
    }


def _page_words(page: dict[str, Any]) -> dict[str, str]:
    return {w["word"]: f["action"] for w in page["items"] for f in w["feedback"]}


def test_the_words_feedback_and_counts_follow_the_consensus_policy(two: Api, project, db):
    """Four people: two annotators mark task words, the admin and the reviewer only instance words (people
    too: they left the task words alone). Word one: removed by one annotator; two: by both; three: removed
    by one, added by the other."""
    api = two
    exs, (one, two_, three) = _ranked(api, project)
    for role in ("admin", "reviewer"):
        r = api.put(f"/api/examples/{exs[0]['id']}/feedback", role=role, json={"word_index": 0, "action": "remove"})
        assert r.status_code == 200, r.text
    _task(api, project, one, "remove", "annotator")
    _task(api, project, two_, "remove", "annotator")
    _task(api, project, two_, "remove", "annotator2")
    _task(api, project, three, "remove", "annotator")
    _task(api, project, three, "add", "annotator2")
    heads = {one: {"add": 0, "remove": 1}, two_: {"add": 0, "remove": 2}, three: {"add": 1, "remove": 1}}

    page = _page(api, project, "annotator2")  # union: anyone's mark counts; an add/remove tie keeps neither
    assert page["marks"] == {"shown": "consensus", "policy": "union", "k": None, "people": None}
    assert _shown(page, [one, two_, three]) == {
        one: {"feedback": [("remove", 1)], "mine": [], "votes": heads[one]},
        two_: {"feedback": [("remove", 2)], "mine": ["remove"], "votes": heads[two_]},
        three: {"feedback": [], "mine": ["add"], "votes": heads[three]},
    }
    assert _page_words(page) == _consensus_words(db, project)

    _settings(api, project, policy="majority")  # more than half of 4 people: nobody's word is kept
    page = _page(api, project, "viewer")
    assert page["marks"] == {"shown": "consensus", "policy": "majority", "k": None, "people": 4}
    assert _page_words(page) == _consensus_words(db, project) == {}
    assert _shown(page, [two_])[two_] == {"feedback": [], "mine": [], "votes": heads[two_]}

    _settings(api, project, policy="at_least_k", k=2)
    page = _page(api, project, "annotator")
    assert _page_words(page) == _consensus_words(db, project) == {two_: "remove"}
    assert _shown(page, [one])[one] == {"feedback": [], "mine": ["remove"], "votes": heads[one]}  # own, apart

    _settings(api, project, policy="reviewed")  # only what a reviewer decided
    assert _page_words(_page(api, project, "admin")) == {}
    key = f"t:{three}::all"
    r = api.post(
        f"/api/projects/{project['id']}/conflicts/decide",
        role="reviewer",
        json={"key": key, "decision": "accept", "action": "add"},
    )
    assert r.status_code == 200, r.text
    page = _page(api, project, "admin")
    assert _page_words(page) == _consensus_words(db, project) == {three: "add"}
    assert _shown(page, [three])[three]["feedback"] == [("add", 1)]


def test_in_blind_mode_an_annotators_words_do_not_reveal_the_others_marks(two: Api, project):
    """A (``annotator``) removes two words; B (``annotator2``) removes one of them. In blind mode B's page
    shows B's own mark and count, nothing of A's, even after B marks an example done."""
    api = two
    exs, (one, two_, _) = _ranked(api, project)
    _task(api, project, one, "remove", "annotator")
    _task(api, project, two_, "remove", "annotator")
    _task(api, project, two_, "remove", "annotator2")
    _settings(api, project, blind=True)
    nothing = {"add": 0, "remove": 0}

    def b_sees() -> dict[str, Any]:
        page = _page(api, project, "annotator2")
        assert page["marks"] == {"shown": "own", "policy": "union", "k": None, "people": None}
        return _shown(page, [one, two_])

    own = {
        one: {"feedback": [], "mine": [], "votes": nothing},
        two_: {"feedback": [("remove", 1)], "mine": ["remove"], "votes": {"add": 0, "remove": 1}},
    }
    assert b_sees() == own
    assert api.post(f"/api/examples/{exs[0]['id']}/done", role="annotator2").status_code == 200
    assert b_sees() == own  # a task word belongs to no example: done on one shows nothing more
    # the others see the team's consensus and counts; outside blind mode, so does B
    for role in ("viewer", "reviewer", "admin"):
        page = _page(api, project, role)
        assert page["marks"]["shown"] == "consensus"
        assert _shown(page, [two_])[two_]["votes"] == {"add": 0, "remove": 2}
    _settings(api, project, blind=False)
    assert _shown(_page(api, project, "annotator2"), [one])[one] == {
        "feedback": [("remove", 1)],
        "mine": [],
        "votes": {"add": 0, "remove": 1},
    }


def test_a_page_reads_its_own_words_and_shows_what_the_whole_ranking_shows(two: Api, project, db):
    """The page reads only its words' task rows; a word's consensus, head count and the majority's people
    are those of the whole ranking (the rows of other words do not enter a word's consensus)."""
    api = two
    exs, (one, two_, three) = _ranked(api, project)
    r = api.put(f"/api/examples/{exs[0]['id']}/feedback", role="reviewer", json={"word_index": 0, "action": "remove"})
    assert r.status_code == 200, r.text
    for word, role in ((one, "annotator"), (two_, "annotator"), (two_, "annotator2"), (three, "annotator2")):
        _task(api, project, word, "remove", role)
    for policy in ({"policy": "union"}, {"policy": "majority"}, {"policy": "at_least_k", "k": 2}):
        _settings(api, project, **policy)
        whole = _page(api, project, "annotator")
        r = api.get(
            f"/api/projects/{project['id']}/words",
            role="annotator",
            params={"min_count": 1, "limit": 500, "search": two_},
        )
        assert r.status_code == 200, r.text
        alone = r.json()
        assert one not in {w["word"] for w in alone["items"]}  # a page without the other marked words
        assert alone["marks"] == whole["marks"], policy
        assert _shown(alone, [two_]) == _shown(whole, [two_]), policy
    assert whole["marks"]["k"] == 2 and _shown(whole, [two_])[two_]["feedback"] == [("remove", 2)]
