"""Results screen (issue 15): the side-by-side picker's groups, one example id scheme (the id in the
file, ``train-7``) everywhere, and what the comparison says about its eval sets (SQLite and PostgreSQL).

Explanations are stored by hand (known probabilities, no model), the way an explain job stores them,
so the "most changed" order is known exactly.
"""

from __future__ import annotations

from typing import Any

import pytest
from apihelpers import Api, demo_csv
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words, word_key
from xmd.datasets.models import Example
from xmd.explanations import service as explanations_service
from xmd.retrain import picks as picks_store
from xmd.versions import service as versions_service

SHORTCUT = "spielberg"


def _explanation(text: str, probs: list[float]) -> CoreExplanation:
    words, spans = split_words(text)
    scores = [1.0 / (i + 1) for i in range(len(words))]
    target = max(range(len(probs)), key=probs.__getitem__)
    return CoreExplanation(
        words=words, spans=spans, scores=scores, target=target, probs=probs, method="grad_x_input", n_seen=len(words)
    )


def _train(db, project) -> list[Example]:
    from sqlalchemy import select

    stmt = select(Example).where(Example.dataset_id == project["train"]["id"]).order_by(Example.id)
    return list(db.scalars(stmt))


@pytest.fixture()
def two_versions(api: Api, project, db) -> dict[str, Any]:
    """v1 (base) and a ready v2, both with the training set explained: example i's positive-class
    probability is 0.5 under v1 and 0.5 + change_i under v2, with change_i = ((i * 7) % 40) / 100."""
    base = versions_service.get_or_raise(db_session=db, model_version_id=project["base_version_id"])
    child = versions_service.create_child(db_session=db, parent=base, path=base.path + "-child", status="ready")
    examples = _train(db, project)
    changes = {ex.id: ((i * 7) % 40) / 100 for i, ex in enumerate(examples)}
    for mv, shift in ((base, None), (child, changes)):
        items = []
        for ex in examples:
            p1 = 0.5 + (shift[ex.id] if shift else 0.0)
            items.append((ex, _explanation(ex.text, [1 - p1, p1])))
        explanations_service.upsert_explanations(db_session=db, model_version=mv, method="grad_x_input", items=items)
    return {"a": base.id, "b": child.id, "examples": examples, "changes": changes}


def _picks(api: Api, pid: int, vs: dict[str, Any], group: str, **params: Any) -> Any:
    return api.get(
        f"/api/projects/{pid}/compare/examples",
        role="viewer",
        params={"a": vs["a"], "b": vs["b"], "group": group, **params},
    )


def test_a_task_level_story_gets_examples_with_the_word_and_the_most_changed(api: Api, project, two_versions, db):
    pid, vs = project["id"], two_versions
    r = api.put(f"/api/projects/{pid}/task-feedback", json={"word": "Spielberg", "action": "remove"})
    assert r.status_code == 200, r.text

    # no per-example feedback: that group is empty and says why
    body = _picks(api, pid, vs, "feedback").json()
    assert body["items"] == [] and body["total"] == 0 and "feedback of its own" in body["note"]

    # the examples that contain the task word, all of them, in file order
    with_word = [ex for ex in vs["examples"] if SHORTCUT in {word_key(w) for w in split_words(ex.text)[0]}]
    assert len(with_word) >= 5
    r = _picks(api, pid, vs, "task_words", limit=3)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["total"] == len(with_word) and body["words"] == [SHORTCUT]
    assert [p["ext_id"] for p in body["items"]] == [ex.ext_id for ex in with_word[:3]]
    assert all(p["words"] == [SHORTCUT] and p["dataset"] == "train" for p in body["items"])
    second = _picks(api, pid, vs, "task_words", limit=3, offset=3).json()["items"]
    assert [p["ext_id"] for p in second] == [ex.ext_id for ex in with_word[3:6]]
    # each pick carries how far its prediction moved between the versions
    assert body["items"][0]["change"] == pytest.approx(vs["changes"][with_word[0].id])

    # the most changed examples: largest change first, lower id first on ties, paged
    expected = sorted(vs["examples"], key=lambda ex: (-vs["changes"][ex.id], ex.id))
    got = _picks(api, pid, vs, "changed", limit=5).json()
    assert got["scanned"] == len(expected) and got["capped"] is False and got["total"] == len(expected)
    assert [p["ext_id"] for p in got["items"]] == [ex.ext_id for ex in expected[:5]]
    assert [p["change"] for p in got["items"]] == pytest.approx([vs["changes"][ex.id] for ex in expected[:5]])
    assert got["items"][0]["pred_a"] == 0 and got["items"][0]["pred_b"] == 1
    page2 = _picks(api, pid, vs, "changed", limit=5, offset=5).json()["items"]
    assert [p["ext_id"] for p in page2] == [ex.ext_id for ex in expected[5:10]]


def test_the_most_changed_scan_is_capped_and_says_so(api: Api, project, two_versions, monkeypatch):
    monkeypatch.setattr(picks_store, "SCAN_CAP", 7)
    monkeypatch.setattr(picks_store, "SCAN_CHUNK", 3)
    vs = two_versions
    got = _picks(api, project["id"], vs, "changed", limit=20).json()
    assert got["scanned"] == 7 and got["capped"] is True and len(got["items"]) == 7
    first7 = sorted(vs["examples"][:7], key=lambda ex: (-vs["changes"][ex.id], ex.id))
    assert [p["ext_id"] for p in got["items"]] == [ex.ext_id for ex in first7]


def test_the_word_group_reads_texts_whole_words_only_and_caps_its_scan(api: Api, project, db, monkeypatch):
    """Whole words by the core's rule (``spielberg's`` is another word), found in the text even where no
    version explained the example (or the word lies past the model's truncation); the scan is capped."""
    pid = project["id"]
    base = versions_service.get_or_raise(db_session=db, model_version_id=project["base_version_id"])
    vs = {"a": base.id, "b": base.id}
    assert api.put(f"/api/projects/{pid}/task-feedback", json={"word": "plot", "action": "add"}).status_code == 200
    extra = (
        b"id,text,label\nx-1,so many plots here,negative\nx-2,the plot's twist,positive\nx-3,The PLOT works,positive\n"
    )
    r = api.post(
        f"/api/projects/{pid}/datasets",
        files={"file": ("extra.csv", extra, "text/csv")},
        data={"name": "extra", "role": "eval", "id_column": "id"},
    )
    assert r.status_code == 201, r.text
    from sqlalchemy import select

    # every dataset of the project (the eval set's texts too), in file order
    examples = list(db.scalars(select(Example).where(Example.project_id == pid).order_by(Example.id)))
    candidates = [ex for ex in examples if "plot" in ex.text.lower()]
    whole = [ex for ex in candidates if "plot" in {word_key(w) for w in split_words(ex.text)[0]}]
    body = _picks(api, pid, vs, "task_words", limit=100).json()
    assert body["total"] == len(whole) >= 1 and body["scanned"] == len(candidates) and body["capped"] is False
    assert [p["ext_id"] for p in body["items"]] == [ex.ext_id for ex in whole]
    assert [p["ext_id"] for p in body["items"] if p["dataset"] == "extra"] == ["x-3"]
    assert all(p["change"] is None for p in body["items"])  # nothing explained under either version
    monkeypatch.setattr(picks_store, "WORD_SCAN_CAP", 2)
    body = _picks(api, pid, vs, "task_words", limit=100).json()
    assert body["scanned"] == 2 and body["capped"] is True


def test_without_explanations_under_the_new_version_the_changed_group_says_what_to_do(api: Api, project, db):
    base = versions_service.get_or_raise(db_session=db, model_version_id=project["base_version_id"])
    child = versions_service.create_child(db_session=db, parent=base, path=base.path + "-c", status="ready")
    vs = {"a": base.id, "b": child.id}
    body = _picks(api, project["id"], vs, "changed").json()
    assert body["items"] == [] and body["scanned"] == 0
    assert f"explain the training set under v{child.version}" in body["note"]


def test_the_feedback_group_and_bad_requests(api: Api, project, two_versions):
    pid, vs = project["id"], two_versions
    marked = [vs["examples"][4], vs["examples"][1]]
    for ex in marked:
        assert api.put(f"/api/examples/{ex.id}/feedback", json={"word_index": 0, "action": "add"}).status_code == 200
    body = _picks(api, pid, vs, "feedback").json()
    assert body["total"] == 2
    assert [p["ext_id"] for p in body["items"]] == [marked[1].ext_id, marked[0].ext_id]
    # bounded: the deepest page is 500, a page at most 100; unknown group / version refused
    assert _picks(api, pid, vs, "changed", offset=450, limit=100).status_code == 422
    assert _picks(api, pid, vs, "changed", limit=101).status_code == 422
    assert _picks(api, pid, vs, "everything").status_code == 422
    r = api.get(f"/api/projects/{pid}/compare/examples", params={"a": vs["a"], "b": 99999})
    assert r.status_code == 404


def test_the_id_users_see_is_accepted_and_is_the_one_in_the_list_history_and_export(api: Api, project, db):
    pid = project["id"]
    ex = _train(db, project)[7]
    assert ex.ext_id == "train-7" and ex.id != 7
    # typed as the screens show it (with or without the list's "#")
    for typed in ("train-7", " #train-7 "):
        r = api.get(f"/api/projects/{pid}/examples/find", role="viewer", params={"ext_id": typed})
        assert r.status_code == 200, r.text
        assert r.json()["id"] == ex.id and r.json()["ext_id"] == "train-7"
    r = api.get(f"/api/projects/{pid}/examples/find", params={"ext_id": "train-999"})
    assert r.status_code == 404 and "train-999" in r.json()["detail"]
    # the search box of the example list finds it by that id too
    r = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"search": "train-7"})
    assert [e["ext_id"] for e in r.json()["items"]] == ["train-7"]

    # the same id in the current feedback, its history and the export
    assert api.put(f"/api/examples/{ex.id}/feedback", json={"word_index": 1, "action": "remove"}).status_code == 200
    items = api.get(f"/api/projects/{pid}/feedback", role="viewer").json()["items"]
    assert [(f["example_ext_id"], f["example_id"]) for f in items] == [("train-7", ex.id)]
    events = api.get(f"/api/projects/{pid}/feedback/events", role="viewer").json()["items"]
    assert [e["example_ext_id"] for e in events] == ["train-7"]
    exported = api.get(f"/api/projects/{pid}/feedback/export", role="viewer").json()
    assert [e["example_id"] for e in exported["instance"]] == [items[0]["example_ext_id"]]


def test_an_id_two_datasets_use_needs_the_dataset(api: Api, project):
    pid = project["id"]
    r = api.post(
        f"/api/projects/{pid}/datasets",
        files={"file": ("again.csv", demo_csv(split="train"), "text/csv")},
        data={"name": "again", "role": "eval", "id_column": "id"},
    )
    assert r.status_code == 201, r.text
    again = r.json()["id"]
    r = api.get(f"/api/projects/{pid}/examples/find", params={"ext_id": "train-3"})
    assert r.status_code == 422 and "(again, train)" in r.json()["detail"]
    r = api.get(f"/api/projects/{pid}/examples/find", params={"ext_id": "train-3", "dataset_id": again})
    assert r.status_code == 200 and r.json()["dataset_id"] == again


def test_compare_describes_its_eval_sets_so_a_one_class_set_can_say_so(api: Api, project, db):
    pid = project["id"]
    r = api.post(
        f"/api/projects/{pid}/datasets",
        files={"file": ("anti.csv", demo_csv(split="test_anti"), "text/csv")},
        data={"name": "anti", "role": "eval", "id_column": "id"},
    )
    assert r.status_code == 201, r.text
    base = versions_service.get_or_raise(db_session=db, model_version_id=project["base_version_id"])
    metrics = {"anti": {"n": 40, "accuracy": 0.0, "macro_f1": 0.0}, "clean": {"n": 40, "accuracy": 0.9}}
    versions_service.merge_metrics(db_session=db, model_version=base, metrics=metrics)
    child = versions_service.create_child(db_session=db, parent=base, path=base.path + "-c", status="ready")
    versions_service.merge_metrics(db_session=db, model_version=child, metrics=metrics)
    body = api.get(f"/api/projects/{pid}/compare", role="viewer", params={"a": base.id, "b": child.id}).json()
    assert body["sets"]["anti"]["classes"] == {"negative": 40}
    assert body["sets"]["clean"]["classes"] == {"negative": 20, "positive": 20}
    assert body["sets"]["anti"]["n_examples"] == 40
