"""Work queues, Next, progress and the incremental agreement over HTTP (issue 32 §2, §3, §7), on SQLite
and PostgreSQL: the API's numbers against :func:`xmd.core.agreement.agreement` on the same marks."""

from __future__ import annotations

from typing import Any

import pytest
from apihelpers import Api
from xmd.core.agreement import AnnotatorMarks, agreement
from xmd.core.types import Action
from xmd.core.words import split_words
from xmd.users import service as users_service
from xmd.users.models import Role


def _people(api: Api, db, names: list[str]) -> dict[str, int]:
    """Annotator accounts with tokens (``api.tokens[name]``); name → user id."""
    out = {}
    for name in names:
        user = users_service.create_user(db_session=db, name=name, role=Role.ANNOTATOR)
        api.tokens[name] = users_service.create_token(db_session=db, user=user)[1]
        out[name] = user.id
    return out


def _queue(api: Api, project: dict[str, Any], ids: list[int], **kw: Any) -> dict[str, Any]:
    body = {
        "name": "q",
        "annotators": ids,
        "overlap": 2,
        "order": "random",
        "seed": 7,
        "dataset_id": project["train"]["id"],
        **kw,
    }
    r = api.post(f"/api/projects/{project['id']}/queues", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def test_queue_next_resumes_and_counts_progress(api: Api, project, db):
    ids = _people(api, db, ["ann1", "ann2", "ann3"])
    q = _queue(api, project, list(ids.values()))
    assert q["n_examples"] == 40 and q["left"] == 80 and len(q["progress"]) == 3
    assert "seed" in q["rule"]
    per = {p["user"]: p["left"] for p in q["progress"]}
    assert sorted(per.values()) == [26, 27, 27]  # 40 examples x 2, round robin over 3 people
    first = api.get(f"/api/queues/{q['id']}/next", role="ann1", params={"counts": True}).json()
    assert first["left"] == per["ann1"] and first["item"]["text"]
    eid = first["item"]["example_id"]
    # the same item until it is done or skipped (a reload resumes there)
    assert api.get(f"/api/queues/{q['id']}/next", role="ann1").json()["item"]["example_id"] == eid
    r = api.put(f"/api/queues/{q['id']}/items/{eid}", role="ann1", json={"status": "done"})
    assert r.status_code == 200 and r.json()["status"] == "done"
    second = api.get(f"/api/queues/{q['id']}/next", role="ann1", params={"counts": True}).json()
    assert second["item"]["rank"] > first["item"]["rank"] and second["done"] == 1
    api.put(f"/api/queues/{q['id']}/items/{second['item']['example_id']}", role="ann1", json={"status": "skipped"})
    prog = {p["user"]: p for p in api.get(f"/api/queues/{q['id']}").json()["progress"]}
    assert (prog["ann1"]["done"], prog["ann1"]["skipped"], prog["ann1"]["left"]) == (1, 1, per["ann1"] - 2)
    # the same seed gives the same order; another seed another one
    q2 = _queue(api, project, list(ids.values()), name="q2")
    q3 = _queue(api, project, list(ids.values()), name="q3", seed=8)
    walk = [api.get(f"/api/queues/{x['id']}/items", role="ann2", params={"limit": 10}).json() for x in (q, q2, q3)]
    order = [[i["example_id"] for i in w["items"]] for w in walk]
    assert order[0] == order[1] != order[2]
    # someone else's part: not theirs to mark, not theirs to list
    other = next(i for i in api.get(f"/api/queues/{q['id']}/items", params={"user_id": ids["ann2"]}).json()["items"])
    if other["example_id"] not in [
        i["example_id"]
        for i in api.get(f"/api/queues/{q['id']}/items", role="ann1", params={"limit": 100}).json()["items"]
    ]:
        r = api.put(f"/api/queues/{q['id']}/items/{other['example_id']}", role="ann1", json={"status": "done"})
        assert r.status_code == 404
    assert api.get(f"/api/queues/{q['id']}/items", role="ann1", params={"user_id": ids["ann2"]}).status_code == 422
    listed = api.get(f"/api/projects/{project['id']}/queues", role="viewer").json()
    assert listed["total"] == 3 and listed["items"][0]["name"] == "q"
    assert api.delete(f"/api/queues/{q3['id']}").status_code == 204


def _mark(api: Api, who: str, eid: int, i: int, action: str) -> None:
    r = api.put(f"/api/examples/{eid}/feedback", role=who, json={"word_index": i, "action": action})
    assert r.status_code == 200, r.text


def test_agreement_matches_the_core_and_follows_each_change(api: Api, project, db):
    ids = _people(api, db, ["ann1", "ann2", "ann3"])
    q = _queue(api, project, list(ids.values()), overlap=3)
    items = api.get(f"/api/queues/{q['id']}/items", role="ann1", params={"limit": 12}).json()["items"]
    examples = {i["example_id"]: api.get(f"/api/examples/{i['example_id']}").json() for i in items}
    marks: dict[str, dict[str, dict[int, Action]]] = {n: {} for n in ids}
    plan = [
        ("ann1", 0, 0, "remove"),
        ("ann2", 0, 0, "remove"),
        ("ann3", 0, 1, "add"),
        ("ann1", 1, 2, "add"),
        ("ann2", 1, 2, "remove"),
        ("ann3", 2, 0, "remove"),
        ("ann1", 3, 1, "remove"),
        ("ann2", 3, 1, "remove"),
        ("ann3", 3, 1, "remove"),
    ]
    eids = list(examples)
    for who, k, i, action in plan:
        _mark(api, who, eids[k], i, action)
        marks[who].setdefault(str(eids[k]), {})[i] = Action(action)
    for who in ids:
        for eid in eids[:10]:
            api.put(f"/api/queues/{q['id']}/items/{eid}", role=who, json={"status": "done"})

    def expected() -> dict[str, Any]:
        n_words = {str(e): len(split_words(examples[e]["text"])[0]) for e in eids}
        texts = {str(e): examples[e]["text"] for e in eids}
        seen = frozenset(str(e) for e in eids[:10])
        people = [AnnotatorMarks(n, marks[n], seen | frozenset(marks[n])) for n in ids]
        return agreement(people, n_words, texts=texts)

    def check() -> dict[str, Any]:
        got = api.get(f"/api/projects/{project['id']}/agreement", role="viewer", params={"limit": 50}).json()
        want = expected()
        assert (got["n_examples"], got["n_tokens"]) == (want["n_examples"], want["n_tokens"])
        assert got["alpha"] == pytest.approx(want["alpha"], abs=1e-9)
        assert got["fleiss_kappa"] == pytest.approx(want["fleiss_kappa"], abs=1e-9)
        assert [p["kappa"] for p in got["pairs"]] == pytest.approx([p["kappa"] for p in want["pairs"]], abs=1e-9)
        words = {w["word"]: w for w in got["per_word"]}
        for w in [w for w in want["per_word"] if w["marked"]]:  # the API lists the words someone marked
            assert words[w["word"]]["disputed"] == w["disputed"] and words[w["word"]]["marked"] == w["marked"]
            assert words[w["word"]]["alpha"] == pytest.approx(w["alpha"], abs=1e-9)
        return got

    first = check()
    assert first["n_examples"] == 10 and first["annotators"] == ["ann1", "ann2", "ann3"]
    # each change moves the numbers: a reset, a new mark, a person un-done
    _mark(api, "ann3", eids[0], 1, "reset")
    marks["ann3"][str(eids[0])].pop(1)
    _mark(api, "ann3", eids[0], 0, "remove")
    marks["ann3"][str(eids[0])][0] = Action.REMOVE
    assert check()["alpha"] > first["alpha"]
    # a deleted queue keeps who finished what (feedback_done): the agreement does not move
    assert api.delete(f"/api/queues/{q['id']}").status_code == 204
    assert api.get(f"/api/projects/{project['id']}/agreement").json()["alpha"] == check()["alpha"]
    # task-level words, with who
    for who, word in (("ann1", "spielberg"), ("ann2", "spielberg"), ("ann3", "oscar")):
        r = api.put(f"/api/projects/{project['id']}/task-feedback", role=who, json={"word": word, "action": "remove"})
        assert r.status_code == 200, r.text
    task = api.get(f"/api/projects/{project['id']}/agreement").json()["task"]
    assert task["n_words"] == 2 and len(task["pairs"]) == 3
    assert {w["word"]: w["ann3"] for w in task["words"]} == {"oscar": "remove", "spielberg": "none"}
    # blind mode: an annotator reads the numbers, not who set which task word
    url = f"/api/projects/{project['id']}/team/settings"
    assert api.put(url, json={"policy": "union", "blind": True}).status_code == 200
    blind = api.get(f"/api/projects/{project['id']}/agreement", role="ann1").json()["task"]
    assert blind["words"] == [] and blind["n_words"] == 2 and len(blind["pairs"]) == 3
    assert len(api.get(f"/api/projects/{project['id']}/agreement").json()["task"]["words"]) == 2  # the admin sees them


def test_team_routes_by_role(api: Api, project, db):
    """Who may do what: viewers read, annotators walk their own queue, only admins assign."""
    ids = _people(api, db, ["ann1"])
    body = {"name": "q", "annotators": [ids["ann1"]], "dataset_id": project["train"]["id"]}
    for role in [r.value for r in Role if r is not Role.ADMIN]:
        assert api.post(f"/api/projects/{project['id']}/queues", role=role, json=body).status_code == 403
    q = api.post(f"/api/projects/{project['id']}/queues", json=body).json()
    assert api.get(f"/api/queues/{q['id']}/next", role="viewer").status_code == 403
    assert api.get(f"/api/queues/{q['id']}/next", role="annotator").json()["item"] is None  # not theirs
    assert api.get(f"/api/queues/{q['id']}/next", role="ann1", params={"counts": True}).json()["left"] == 40
    assert api.get(f"/api/queues/{q['id']}/next", role="ann1").json()["left"] is None  # counts only when asked
    assert api.delete(f"/api/queues/{q['id']}", role="annotator").status_code == 403
    assert api.get(f"/api/projects/{project['id']}/agreement", role="viewer").status_code == 200
    assert api.get(f"/api/projects/{project['id']}/queues", role="viewer").status_code == 200
    assert api.get(f"/api/projects/{project['id']}/agreement").status_code == 200


def test_done_on_the_example_counts_as_seen_and_queue_done_reveals(api: Api, project, db):
    """The two "done"s agree: the example's Done button (blind mode) makes its reader a rater of it, and
    done in a queue is done with the example (the same row, ``feedback_done``)."""
    ids = _people(api, db, ["ann1", "ann2"])
    ex = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": 2}).json()["items"]
    _mark(api, "ann1", ex[0]["id"], 0, "remove")
    assert api.get(f"/api/projects/{project['id']}/agreement").json()["n_examples"] == 0  # one rater only
    assert api.post(f"/api/examples/{ex[0]['id']}/done", role="ann2").status_code == 200
    got = api.get(f"/api/projects/{project['id']}/agreement").json()
    assert got["n_examples"] == 1 and got["annotators"] == ["ann1", "ann2"]
    q = _queue(api, project, list(ids.values()))
    api.put(f"/api/queues/{q['id']}/items/{ex[1]['id']}", role="ann1", json={"status": "done"})
    from sqlalchemy import select
    from xmd.feedback.models import ExampleDone

    done = set(db.execute(select(ExampleDone.example_id, ExampleDone.user_id)).all())
    assert (ex[1]["id"], ids["ann1"]) in done


def test_orders_before_anything_is_explained(api: Api, project, db):
    """With no explanation stored yet, the suspicious and uncertain orders fall back to the dataset's order
    (their rules say so), and "the examples of these words" selects nothing: a 422 that says so."""
    ids = list(_people(api, db, ["ann1", "ann2"]).values())
    for order in ("suspicious", "uncertain"):
        q = _queue(api, project, ids, name=order, order=order)
        assert "first" in q["rule"]
        items = api.get(f"/api/queues/{q['id']}/items", role="ann1", params={"limit": 40}).json()["items"]
        assert [i["example_id"] for i in items] == sorted(i["example_id"] for i in items)
    body = {"name": "w", "annotators": ids, "words": ["spielberg"]}
    r = api.post(f"/api/projects/{project['id']}/queues", json=body)
    assert r.status_code == 422 and "no example" in r.json()["detail"]


def test_orders_follow_the_explanations(api: Api, project, db):
    """Explained: suspicious puts the top suspicious word's examples first, uncertain the least confident
    prediction first, and a words queue holds exactly the examples of the word."""
    did, pid = project["train"]["id"], project["id"]
    exps = {}
    for ex in api.get(f"/api/datasets/{did}/examples", params={"limit": 100}).json()["items"]:
        exps[ex["id"]] = api.get(f"/api/examples/{ex['id']}/explanation").json()
    ids = list(_people(api, db, ["ann1"]).values())
    top = api.get(f"/api/projects/{pid}/words", params={"sort": "suspicion", "limit": 1}).json()["items"][0]["word"]
    with_top = {e for e, x in exps.items() if top in [w.lower() for w in x["words"]]}
    q = _queue(api, project, ids, name="s", order="suspicious", overlap=1)
    walk = [
        i["example_id"]
        for i in api.get(f"/api/queues/{q['id']}/items", role="ann1", params={"limit": 40}).json()["items"]
    ]
    assert with_top and set(walk[: len(with_top)]) == with_top
    q = _queue(api, project, ids, name="u", order="uncertain", overlap=1)
    walk = [
        i["example_id"]
        for i in api.get(f"/api/queues/{q['id']}/items", role="ann1", params={"limit": 40}).json()["items"]
    ]
    confidence = [max(exps[e]["probs"]) for e in walk]
    assert confidence == sorted(confidence)
    body = {"name": "w", "annotators": ids, "words": ["Spielberg"]}
    q = api.post(f"/api/projects/{pid}/queues", json=body).json()
    n = api.get(f"/api/projects/{pid}/words/spielberg/examples", params={"limit": 1}).json()["total"]
    assert q["n_examples"] == n > 0
