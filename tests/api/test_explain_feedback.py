"""Explanations, the task ranking, feedback and "what if" through the API, on SQLite and PostgreSQL."""

from __future__ import annotations

import math

from apihelpers import Api
from sqlalchemy import func, select
from xmd.explanations.models import Explanation
from xmd.feedback.models import Feedback, FeedbackEvent


def n_rows(db, model) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(model))


def first_example(api: Api, project, search: str = "spielberg") -> dict:
    page = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"search": search, "limit": 1}).json()
    return page["items"][0]


def test_explanation_is_computed_once_then_served_from_the_store(api: Api, project, db):
    ex = first_example(api, project)
    r = api.get(f"/api/examples/{ex['id']}/explanation", role="viewer")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["words"] and len(body["scores"]) == len(body["words"]) == len(body["shares"])
    assert math.isclose(sum(body["shares"]), 1.0, rel_tol=1e-6)
    assert body["label_name"] == ex["label_name"] and body["target_name"] in project["labels"]
    assert math.isclose(sum(body["probs"]), 1.0, rel_tol=1e-5)
    assert n_rows(db, Explanation) == 1
    again = api.get(f"/api/examples/{ex['id']}/explanation").json()
    assert n_rows(db, Explanation) == 1
    assert again["scores"] == body["scores"]
    # the ranking already counts this example
    words = api.get(f"/api/projects/{project['id']}/words", role="viewer").json()
    assert words["n_examples"] == 1 and words["total"] >= 1
    # examples list now carries the stored prediction
    listed = api.get(f"/api/examples/{ex['id']}").json()
    assert listed["prediction"]["label"] == body["target"]


def test_explanation_methods_and_errors(api: Api, project):
    ex = first_example(api, project)
    ig = api.get(f"/api/examples/{ex['id']}/explanation", params={"method": "integrated_gradients"}).json()
    assert ig["method"] == "integrated_gradients"
    r = api.get(f"/api/examples/{ex['id']}/explanation", params={"method": "magic"})
    assert r.status_code == 422 and "unknown attribution method" in r.json()["detail"]
    assert api.get("/api/examples/999999/explanation").status_code == 404
    assert api.get(f"/api/examples/{ex['id']}/explanation", params={"version_id": 99999}).status_code == 404
    assert api.get(f"/api/examples/{ex['id']}/explanation", params={"version_id": "abc"}).status_code == 422


def _explain_all(api: Api, project) -> None:
    did = project["train"]["id"]
    for ex in api.get(f"/api/datasets/{did}/examples", params={"limit": 100}).json()["items"]:
        assert api.get(f"/api/examples/{ex['id']}/explanation").status_code == 200


def test_ranking_word_examples_and_correctness_filter(api: Api, project):
    _explain_all(api, project)
    pid, did = project["id"], project["train"]["id"]
    by_imp = api.get(f"/api/projects/{pid}/words", params={"limit": 500}).json()
    assert by_imp["n_examples"] == 40 and by_imp["total"] == len(by_imp["items"])
    imps = [w["mean_importance"] for w in by_imp["items"]]
    assert imps == sorted(imps, reverse=True)
    by_count = api.get(f"/api/projects/{pid}/words", params={"sort": "count", "limit": 5}).json()["items"]
    assert [w["count"] for w in by_count] == sorted((w["count"] for w in by_count), reverse=True)
    sus = api.get(f"/api/projects/{pid}/words", params={"sort": "suspicion", "limit": 500}).json()["items"]
    spielberg = next(w for w in sus if w["word"] == "spielberg")
    assert spielberg["skew_label_name"] == "positive" and spielberg["skew"] > 0.5
    found = api.get(f"/api/projects/{pid}/words", params={"search": "spiel"}).json()["items"]
    assert [w["word"] for w in found] == ["spielberg"]
    assert api.get(f"/api/projects/{pid}/words", params={"sort": "alphabet"}).status_code == 422
    assert api.get(f"/api/projects/{pid}/words", params={"label": 5}).status_code == 422

    page = api.get(f"/api/projects/{pid}/words/Spielberg/examples", params={"limit": 100}).json()
    assert page["total"] == spielberg["count"] == len(page["items"])
    for item in page["items"]:
        assert item["highlight"] and all(
            item["text"][slice(*item["spans"][i])].lower() == "spielberg" for i in item["highlight"]
        )

    correct = api.get(f"/api/datasets/{did}/examples", params={"correctness": "correct", "limit": 100}).json()
    wrong = api.get(f"/api/datasets/{did}/examples", params={"correctness": "incorrect", "limit": 100}).json()
    assert correct["total"] + wrong["total"] == 40
    assert all(e["prediction"]["correct"] for e in correct["items"])
    assert not any(e["prediction"]["correct"] for e in wrong["items"])


def test_instance_feedback_set_reset_history_and_marks(api: Api, project, db):
    ex = first_example(api, project)
    exp = api.get(f"/api/examples/{ex['id']}/explanation").json()
    idx = [w.lower() for w in exp["words"]].index("spielberg")
    url = f"/api/examples/{ex['id']}/feedback"
    assert api.put(url, role="viewer", json={"word_index": idx, "action": "remove"}).status_code == 403
    r = api.put(url, role="annotator", json={"word_index": idx, "action": "remove"})
    assert r.status_code == 200, r.text
    assert r.json()["current"]["word"].lower() == "spielberg" and r.json()["current"]["updated_by"] == "annotator-user"
    marks = api.get(f"/api/examples/{ex['id']}/explanation").json()["marks"]
    mark = {"word_index": idx, "action": "remove", "level": "instance", "scope": None, "label": None}
    assert marks == [{**mark, "by": "annotator-user", "mine": False}]  # the admin reads the annotator's mark
    listed = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"has_feedback": True}).json()
    assert [e["id"] for e in listed["items"]] == [ex["id"]] and listed["items"][0]["n_feedback"] == 1

    # someone else's reset clears their own mark only (none here), not the annotator's (issue 32)
    assert api.put(url, json={"word_index": idx, "action": "reset"}).json()["current"] is None
    assert n_rows(db, Feedback) == 1 and n_rows(db, FeedbackEvent) == 2
    assert api.put(url, role="annotator", json={"word_index": idx, "action": "reset"}).json()["current"] is None
    assert n_rows(db, Feedback) == 0 and n_rows(db, FeedbackEvent) == 3
    key = r.json()["key"]
    hist = api.get(f"/api/projects/{project['id']}/feedback/events", params={"key": key}).json()["items"]
    assert [(e["action"], e["user"]) for e in hist] == [
        ("remove", "annotator-user"),
        ("reset", "admin-user"),
        ("reset", "annotator-user"),
    ]


def test_bad_feedback_is_refused_and_changes_nothing(api: Api, project, db):
    ex = first_example(api, project)
    url = f"/api/examples/{ex['id']}/feedback"
    for body, status in (
        ({"word_index": 10_000, "action": "remove"}, 422),
        ({"word_index": -1, "action": "remove"}, 422),
        ({"word_index": 0, "action": "delete"}, 422),
        ({"word_index": "zero", "action": "remove"}, 422),
        ({"action": "remove"}, 422),
    ):
        r = api.put(url, json=body)
        assert r.status_code == status, (body, r.text)
    assert api.put("/api/examples/999999/feedback", json={"word_index": 0, "action": "add"}).status_code == 404
    tf = f"/api/projects/{project['id']}/task-feedback"
    assert api.put(tf, json={"word": "x", "action": "remove", "label": 9}).status_code == 422
    assert api.put(tf, json={"word": "x", "action": "remove", "scope": "some"}).status_code == 422
    assert api.put(tf, json={"word": "   ", "action": "remove"}).status_code == 422
    assert n_rows(db, Feedback) == 0 and n_rows(db, FeedbackEvent) == 0


def test_task_feedback_export_import_between_projects(api: Api, project, tiny_model_dir, db):
    pid = project["id"]
    ex = first_example(api, project, search="")
    exp = api.get(f"/api/examples/{ex['id']}/explanation").json()
    api.put(f"/api/examples/{ex['id']}/feedback", json={"word_index": 0, "action": "add"})
    r = api.put(
        f"/api/projects/{pid}/task-feedback", json={"word": "Spielberg", "action": "remove", "scope": "correct"}
    )
    assert r.status_code == 200 and r.json()["current"]["word"] == "spielberg"
    api.get(f"/api/examples/{first_example(api, project)['id']}/explanation")
    words = api.get(f"/api/projects/{pid}/words", params={"search": "spielberg"}).json()["items"]
    assert words[0]["feedback"] == [{"action": "remove", "label": None, "scope": "correct", "votes": 1}]
    listed = api.get(f"/api/projects/{pid}/feedback", params={"level": "task"}).json()
    assert listed["total"] == 1 and listed["items"][0]["scope"] == "correct"
    exported = api.get(f"/api/projects/{pid}/feedback/export", role="viewer").json()
    assert exported["task"] == [{"word": "spielberg", "action": "remove", "label": None, "scope": "correct"}]
    assert exported["instance"][0]["word"] == exp["words"][0]

    other = api.post("/api/projects", json={"name": "other", "model_path": str(tiny_model_dir)}).json()
    from apihelpers import demo_csv

    ds = api.post(
        f"/api/projects/{other['id']}/datasets", files={"file": ("t.csv", demo_csv())}, data={"id_column": "id"}
    ).json()
    r = api.post(f"/api/projects/{other['id']}/feedback/import", json={"dataset_id": ds["id"], "feedback": exported})
    assert r.status_code == 200 and r.json()["imported"] == 2
    again = api.get(f"/api/projects/{other['id']}/feedback/export").json()
    assert again == exported
    # a bad file imports nothing
    before = n_rows(db, FeedbackEvent)
    bad = {"instance": [*exported["instance"], {"example_id": "nope", "word_index": 0, "action": "add"}], "task": []}
    r = api.post(f"/api/projects/{other['id']}/feedback/import", json={"dataset_id": ds["id"], "feedback": bad})
    assert r.status_code == 422 and "unknown example id" in r.json()["detail"]
    r = api.post(f"/api/projects/{other['id']}/feedback/import", json={"dataset_id": ds["id"], "feedback": {"x": 1}})
    assert r.status_code == 422
    assert n_rows(db, FeedbackEvent) == before


def test_what_if_predicts_without_storing(api: Api, project, db):
    pid = project["id"]
    r = api.post(f"/api/projects/{pid}/predict", role="viewer", json={"text": "a great movie by spielberg"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["example_id"] is None and body["words"] == ["a", "great", "movie", "by", "spielberg"]
    assert math.isclose(sum(body["probs"]), 1.0, rel_tol=1e-5)
    assert n_rows(db, Explanation) == 0
    assert api.post(f"/api/projects/{pid}/predict", json={"text": "x" * 2001}).status_code == 422
    assert api.post(f"/api/projects/{pid}/predict", json={"text": "   "}).status_code == 422
    assert api.post(f"/api/projects/{pid}/predict", json={"text": 5}).status_code == 422
    assert api.post("/api/projects/9999/predict", json={"text": "ok"}).status_code == 404


def test_word_examples_by_correctness_scoped_marks_and_newest_first_history(api: Api, project):
    _explain_all(api, project)
    pid = project["id"]
    url = f"/api/projects/{pid}/words/spielberg/examples"
    every = api.get(url, params={"limit": 100}).json()
    right = api.get(url, params={"limit": 100, "correctness": "correct"}).json()
    wrong = api.get(url, params={"limit": 100, "correctness": "incorrect"}).json()
    assert right["total"] + wrong["total"] == every["total"] == len(every["items"])
    assert right["total"] == len(right["items"]) and all(e["prediction"]["correct"] for e in right["items"])
    assert not any(e["prediction"]["correct"] for e in wrong["items"])

    api.put(f"/api/projects/{pid}/task-feedback", json={"word": "spielberg", "action": "remove", "scope": "correct"})
    for group, expect in ((right["items"], True), (wrong["items"], False)):
        for e in group[:3]:
            body = api.get(f"/api/examples/{e['id']}/explanation").json()
            assert body["prediction"] == max(range(2), key=body["probs"].__getitem__)
            has = any(m["level"] == "task" for m in body["marks"])
            assert has is expect, (e["id"], body["marks"])

    api.put(f"/api/projects/{pid}/task-feedback", json={"word": "great", "action": "add"})
    first = api.get(f"/api/projects/{pid}/feedback/events", params={"order": "desc", "limit": 1}).json()
    latest = first["items"]
    assert [e["word"] for e in latest] == ["great"] and first["total"] == 2  # total: every event, not the page
    older = api.get(f"/api/projects/{pid}/feedback/events", params={"order": "desc", "before_id": latest[0]["id"]})
    assert [e["word"] for e in older.json()["items"]] == ["spielberg"] and older.json()["total"] == 1


def test_download_accepts_a_token_in_the_url(api: Api, project):
    vid = project["base_version_id"]
    assert api.client.get(f"/api/versions/{vid}/download").status_code == 401
    r = api.client.get(f"/api/versions/{vid}/download", params={"token": api.tokens["viewer"]})
    assert r.status_code == 200 and r.headers["content-type"] == "application/gzip"


def test_signed_download_link_works_without_a_token_and_only_briefly(api: Api, project, db):
    """POST …/download-link gives a URL with no API token in it; it downloads this version only, goes
    stale after LINK_TTL_S, and dies with the token that asked for it."""
    import time

    from xmd.http import links
    from xmd.users import service as users_service

    vid = project["base_version_id"]
    r = api.post(f"/api/versions/{vid}/download-link", role="viewer")
    assert r.status_code == 200, r.text
    url = r.json()["url"]
    assert "xmd_" not in url and "link=" in url and api.tokens["viewer"] not in url
    got = api.client.get(url)
    assert got.status_code == 200 and got.headers["content-type"] == "application/gzip"
    assert len(got.content) > 1000

    link = url.split("link=", 1)[1]
    token_id, expires, sig = link.split(".")
    forged = [
        f"{token_id}.{int(expires) + 3600}.{sig}",  # a later expiry is not what was signed
        f"{token_id}.{expires}.{'0' * len(sig)}",
        "not-a-link",
        f"{'9' * 40}.{expires}.{sig}",  # an id no database integer holds
    ]
    for bad in forged:
        r = api.client.get(f"/api/versions/{vid}/download", params={"link": bad})
        assert r.status_code == 401 and "link" in r.json()["detail"], bad
    # Bound to the version it was made for.
    other = api.client.get(f"/api/versions/{vid + 1000}/download", params={"link": link})
    assert other.status_code == 401

    user = users_service.create_user(db_session=db, name="link-owner")
    row, _secret = users_service.create_token(db_session=db, user=user)
    stale, _ = links.make(row, vid, now=time.time() - links.LINK_TTL_S - 5)
    assert api.client.get(f"/api/versions/{vid}/download", params={"link": stale}).status_code == 401
    fresh, _ = links.make(row, vid)
    assert api.client.get(f"/api/versions/{vid}/download", params={"link": fresh}).status_code == 200
    users_service.revoke(db_session=db, token_id=row.id)
    assert api.client.get(f"/api/versions/{vid}/download", params={"link": fresh}).status_code == 401


def test_download_link_refuses_early_when_the_version_cannot_be_downloaded(api: Api, project, db):
    import shutil

    from xmd.versions.models import ModelVersion

    vid = project["base_version_id"]
    path = db.get(ModelVersion, vid).path
    shutil.rmtree(path)
    r = api.post(f"/api/versions/{vid}/download-link", role="viewer")
    assert r.status_code == 422 and "missing" in r.json()["detail"]
    assert api.post("/api/versions/999999/download-link", role="viewer").status_code == 404
