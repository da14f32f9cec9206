"""Evaluation-mode imports over HTTP (issue 14): rationale columns and word lists, previewed or
committed, tagged with their source in the store, the history and the export; bad input is a 4xx
that writes nothing. Runs on SQLite and PostgreSQL (the api fixture's database parameter)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from apihelpers import Api
from sqlalchemy import func, select
from xmd.feedback.models import Feedback, FeedbackEvent

ROWS = [
    # id, text, label, rationale (word positions), flags of the wrong length, tokens, token flags
    ("a1", "the food was awful", "negative", [3], [0, 1], ["the", "food", "was", "awful"], [0, 0, 0, 1]),
    (
        "a2",
        "Great service, lovely staff!",
        "positive",
        [0, 3],
        [1],
        ["Great", "service", ",", "lovely", "staff", "!"],
        [1, 0, 0, 1, 0, 0],
    ),
    ("a3", "nothing special here", "negative", None, [0], ["nothing", "special", "here"], [0, 0, 0]),
    ("a4", "I loved it", "positive", [1], [1, 1, 1, 1], ["I", "loved", "it"], [0, 1, 0]),
]


def _csv() -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "text", "label", "rationale", "bad_flags", "tokens", "token_flags"])
    for i, text, label, rat, bad, toks, tflags in ROWS:
        w.writerow([i, text, label, "" if rat is None else json.dumps(rat), json.dumps(bad), json.dumps(toks),
                    json.dumps(tflags)])  # fmt: skip
    return buf.getvalue().encode()


@pytest.fixture()
def rated(api: Api, project: dict[str, Any]) -> dict[str, Any]:
    """The demo project plus a small train set with rationale columns."""
    r = api.post(
        f"/api/projects/{project['id']}/datasets",
        files={"file": ("rated.csv", _csv(), "text/csv")},
        data={"name": "rated", "role": "train", "id_column": "id"},
    )
    assert r.status_code == 201, r.text
    return {**project, "rated": r.json()}


def _count(db, model, pid: int) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(model).where(model.project_id == pid))


def _import(api: Api, p: dict[str, Any], role: str = "annotator", **body: Any):
    return api.post(
        f"/api/projects/{p['id']}/feedback/import", role=role, json={"dataset_id": p["rated"]["id"], **body}
    )


def test_rationales_preview_writes_nothing_then_commit_writes_tagged_events(api: Api, rated, db):
    pid = rated["id"]
    r = _import(api, rated, rationales={"column": "rationale"}, preview=True)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["preview"] is True and out["imported"] == 0
    s = out["summary"]
    assert (s["n_examples"], s["n_add"], s["n_remove"]) == (3, 4, 0)
    assert s["skipped"] == {"no rationale": 1} and s["source"] == "simulated:rationales:rationale"
    assert _count(db, FeedbackEvent, pid) == 0 and _count(db, Feedback, pid) == 0

    r = _import(api, rated, rationales={"column": "rationale", "remove_others": True})
    assert r.status_code == 200, r.text
    out = r.json()
    # 4 + 6 (punctuation is a word) + 3 words in the three examples with a rationale: 4 add, 9 remove
    assert (out["preview"], out["imported"], out["entries"]) == (False, 13, 13)
    assert out["summary"]["n_remove"] == 9
    assert _count(db, FeedbackEvent, pid) == 13
    sources = set(db.scalars(select(Feedback.source).where(Feedback.project_id == pid)))
    assert sources == {"simulated:rationales:rationale"}

    events = api.get(f"/api/projects/{pid}/feedback/events", role="viewer").json()["items"]
    assert {e["source"] for e in events} == {"simulated:rationales:rationale"}
    assert [e["word"] for e in events if e["action"] == "add"] == ["awful", "Great", "lovely", "loved"]
    current = api.get(f"/api/projects/{pid}/feedback", role="viewer").json()["items"]
    assert {c["source"] for c in current} == {"simulated:rationales:rationale"}
    exported = api.get(f"/api/projects/{pid}/feedback/export", params={"dataset_id": rated["rated"]["id"]}).json()
    assert {e["source"] for e in exported["instance"]} == {"simulated:rationales:rationale"}

    # a person's click on top of it has no source, and wins
    ex = api.get(f"/api/datasets/{rated['rated']['id']}/examples", params={"search": "awful"}).json()["items"][0]
    r = api.put(f"/api/examples/{ex['id']}/feedback", role="annotator", json={"word_index": 3, "action": "remove"})
    assert r.status_code == 200 and r.json()["current"]["source"] is None


def test_tokens_column_and_budget(api: Api, rated, db):
    r = _import(api, rated, rationales={"column": "token_flags", "tokens_column": "tokens", "budget": 2, "seed": 1},
                preview=True)  # fmt: skip
    assert r.status_code == 200, r.text
    s = r.json()["summary"]
    # a3's flags are all 0 (no rationale); of the three others the budget keeps 2
    assert s["n_examples"] == 2 and s["skipped"].get("over budget") == 1
    assert s["details"]["units"] == "tokens"
    assert _count(db, FeedbackEvent, rated["id"]) == 0


def test_word_list_preview_and_commit(api: Api, rated, db):
    pid = rated["id"]
    text = "# identity terms\nword\tweight\nGreat\t2\ngreat\t1\nloved\nnot two\n"
    body = {"text": text, "name": "../lists/terms.txt", "action": "remove", "scope": "all"}
    r = _import(api, rated, words=body, preview=True)
    assert r.status_code == 200, r.text
    s = r.json()["summary"]
    assert s["source"] == "simulated:words:terms.txt" and s["n_words"] == 2 and s["n_remove"] == 2
    assert s["n_examples"] == 2  # "Great service…" and "I loved it"
    assert s["skipped"] == {"not a single word": 1, "duplicate of an earlier word (case/Unicode variant)": 1}
    assert _count(db, FeedbackEvent, pid) == 0

    r = _import(api, rated, words=body)
    assert r.status_code == 200 and r.json()["imported"] == 2
    task = api.get(f"/api/projects/{pid}/feedback/export").json()["task"]
    assert [(t["word"], t["action"], t["source"]) for t in task] == [
        ("great", "remove", "simulated:words:terms.txt"),
        ("loved", "remove", "simulated:words:terms.txt"),
    ]


@pytest.mark.parametrize(
    "body, status, says",
    [
        ({"rationales": {"column": "nope"}}, 422, "column 'nope' not found"),
        ({"rationales": {"column": "bad_flags", "format": "binary"}}, 422, "flags"),
        ({"rationales": {"column": "rationale", "only": "correct"}}, 422, "no prediction"),
        ({"rationales": {"column": "rationale", "format": "xml"}}, 422, "format"),
        ({"rationales": {"column": "rationale", "budget": 0}}, 422, "budget"),
        ({"words": {"text": "two words\n# nothing else\n"}}, 422, "no word to import"),
        ({"words": {"text": "great", "action": "reset"}}, 422, "action"),
        ({"words": {"text": "great", "label": 7}}, 422, "label 7"),
        ({"words": {"text": "great\t1\nbad\tx\n"}}, 422, "not a number"),
        ({"rationales": {"column": "rationale"}, "words": {"text": "great"}}, 422, "exactly one"),
        ({}, 422, "exactly one"),
    ],
)
def test_bad_imports_are_4xx_and_write_nothing(api: Api, rated, db, body, status, says):
    pid = rated["id"]
    for preview in (True, False):
        r = _import(api, rated, preview=preview, **body)
        assert r.status_code == status, r.text
        assert says in json.dumps(r.json()["detail"]), r.text
    assert _count(db, FeedbackEvent, pid) == 0 and _count(db, Feedback, pid) == 0


def test_import_needs_an_annotator_and_a_train_set(api: Api, rated, db):
    body = {"rationales": {"column": "rationale"}}
    assert _import(api, rated, role="viewer", **body).status_code == 403
    r = api.post(
        f"/api/projects/{rated['id']}/feedback/import",
        role="annotator",
        json={"dataset_id": rated["clean"]["id"], **body},
    )
    assert r.status_code == 422 and "eval set" in r.json()["detail"]
    assert _count(db, FeedbackEvent, rated["id"]) == 0
