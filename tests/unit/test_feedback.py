"""Feedback expansion (scope, label, case, precedence, reset), validation and JSON persistence."""

from __future__ import annotations

import json

import pytest
from xmd.core.feedback import (
    FeedbackSet,
    expand_feedback,
    load_feedback,
    parse_action,
    save_feedback,
)
from xmd.core.types import Action, Example, FeedbackError, InstanceFeedback, Scope, TaskFeedback

A, R, X = Action.ADD, Action.REMOVE, Action.RESET

EXAMPLES = [
    # words: Spielberg made a great film .
    Example("a", "Spielberg made a great film.", 0),
    # words: spielberg is bad , SPIELBERG !
    Example("b", "spielberg is bad, SPIELBERG!", 1),
    # words: A boring film
    Example("c", "A boring film", 1),
    # words: spielberg (unlabelled)
    Example("d", "spielberg", None),
]
# a: correct, b: incorrect, c: correct, d: no gold label
PREDS = {"a": 0, "b": 0, "c": 1, "d": 1}


def expand(instance=(), task=(), predictions=PREDS, **kw):
    return expand_feedback(EXAMPLES, list(instance), list(task), predictions, **kw)


def test_task_all_matches_every_occurrence_case_insensitively():
    out = expand(task=[TaskFeedback("spielberg", R)], predictions=None)
    assert out == {"a": {0: R}, "b": {0: R, 4: R}, "d": {0: R}}
    # the feedback's own spelling does not matter either
    assert expand(task=[TaskFeedback("SpielBerg", R)]) == out


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        (Scope.ALL, {"a": {0: R}, "b": {0: R, 4: R}, "d": {0: R}}),
        (Scope.CORRECT, {"a": {0: R}}),  # d has no gold label: neither correct nor incorrect
        (Scope.INCORRECT, {"b": {0: R, 4: R}}),
    ],
)
def test_task_scope(scope, expected):
    assert expand(task=[TaskFeedback("Spielberg", R, scope=scope)]) == expected


def test_task_label_filter():
    assert expand(task=[TaskFeedback("film", A, label=1)]) == {"c": {2: A}}
    assert expand(task=[TaskFeedback("film", A, label=0)]) == {"a": {4: A}}
    assert expand(task=[TaskFeedback("film", A, label=1, scope=Scope.INCORRECT)]) == {}
    assert expand(task=[TaskFeedback("spielberg", R, label=1, scope=Scope.INCORRECT)]) == {"b": {0: R, 4: R}}


def test_punctuation_and_apostrophes():
    exs = [Example("p", "Don't stop!!", 0)]
    out = expand_feedback(exs, [], [TaskFeedback("don’t", R), TaskFeedback("!", R)])
    assert out == {"p": {0: R, 2: R, 3: R}}


def test_instance_overrides_task_regardless_of_order():
    inst = [InstanceFeedback("b", 0, A), InstanceFeedback("c", 1, R)]
    task = [TaskFeedback("spielberg", R), TaskFeedback("boring", A)]
    out = expand(inst, task)
    assert out == {"a": {0: R}, "b": {0: A, 4: R}, "c": {1: R}, "d": {0: R}}


def test_later_entries_win():
    inst = [InstanceFeedback("a", 3, A), InstanceFeedback("a", 3, R)]
    assert expand(inst) == {"a": {3: R}}
    # overlapping task entries with different keys: the later one wins where both apply
    t1 = TaskFeedback("film", R)
    t2 = TaskFeedback("film", A, label=1)
    assert expand(task=[t1, t2]) == {"a": {4: R}, "c": {2: A}}
    assert expand(task=[t2, t1]) == {"a": {4: R}, "c": {2: R}}
    # restating an earlier entry makes it the latest
    assert expand(task=[t1, t2, t1]) == {"a": {4: R}, "c": {2: R}}


def test_reset():
    inst = [InstanceFeedback("a", 3, A), InstanceFeedback("a", 3, X)]
    assert expand(inst) == {}
    # reset is a no-op without an earlier entry, and deletes only its own key
    assert expand([InstanceFeedback("a", 1, X), InstanceFeedback("a", 2, A)]) == {"a": {2: A}}
    # task reset matches by word key (any case), label and scope
    task = [TaskFeedback("spielberg", R), TaskFeedback("SPIELBERG", X)]
    assert expand(task=task) == {}
    task = [TaskFeedback("spielberg", R), TaskFeedback("spielberg", X, scope=Scope.CORRECT)]
    assert expand(task=task) == {"a": {0: R}, "b": {0: R, 4: R}, "d": {0: R}}
    task = [TaskFeedback("spielberg", R), TaskFeedback("spielberg", X, label=1)]
    assert expand(task=task) == {"a": {0: R}, "b": {0: R, 4: R}, "d": {0: R}}
    # an instance reset removes the instance entry, exposing the task feedback underneath
    inst = [InstanceFeedback("b", 0, A), InstanceFeedback("b", 0, X)]
    assert expand(inst, [TaskFeedback("spielberg", R)])["b"] == {0: R, 4: R}


def test_no_feedback():
    assert expand() == {}
    assert expand_feedback([], [], []) == {}


def test_errors():
    with pytest.raises(FeedbackError, match="unknown example id 'zz'"):
        expand([InstanceFeedback("zz", 0, R)])
    with pytest.raises(FeedbackError, match="has 3 words"):
        expand([InstanceFeedback("c", 3, R)])
    with pytest.raises(FeedbackError, match="out of range"):
        expand([InstanceFeedback("c", -1, R)])
    with pytest.raises(FeedbackError, match="has 6 words"):  # a reset is validated too
        expand([InstanceFeedback("a", 99, X)])
    with pytest.raises(FeedbackError, match="non-empty word"):
        expand(task=[TaskFeedback("  ", R)])
    with pytest.raises(FeedbackError, match="single words"):
        expand(task=[TaskFeedback("Steven Spielberg", R)])
    with pytest.raises(FeedbackError, match=r"label 2 is out of range \(expected 0..1\)"):
        expand(task=[TaskFeedback("film", R, label=2)], num_labels=2)
    with pytest.raises(FeedbackError, match="out of range"):
        expand(task=[TaskFeedback("film", R, label=-1)])
    expand(task=[TaskFeedback("film", R, label=2)])  # without num_labels there is no upper bound
    with pytest.raises(FeedbackError, match="needs the model's predictions"):
        expand(task=[TaskFeedback("film", R, scope=Scope.CORRECT)], predictions=None)
    with pytest.raises(FeedbackError, match="prediction for example 'c'"):
        expand(task=[TaskFeedback("film", R, scope=Scope.CORRECT)], predictions={"a": 0})
    with pytest.raises(FeedbackError, match="unknown action 'keep'; allowed: add, remove, reset"):
        parse_action("keep")
    assert parse_action(" ADD ") is Action.ADD


# ---------------------------------------------------------------------- FeedbackSet and JSON


def sample_set() -> FeedbackSet:
    return FeedbackSet(
        instance=[InstanceFeedback("a", 3, A), InstanceFeedback("b", 4, R), InstanceFeedback("a", 3, X)],
        task=[
            TaskFeedback("Spielberg", R, label=1, scope=Scope.INCORRECT),
            TaskFeedback("film", A),
            TaskFeedback("bad", R),
        ],
    )


def test_json_round_trip(tmp_path):
    fs = sample_set()
    data = json.loads(fs.to_json(EXAMPLES))
    assert data["instance"][1] == {
        "example_id": "b",
        "word_index": 4,
        "action": "remove",
        "word": "SPIELBERG",
    }
    assert data["task"][0] == {"word": "Spielberg", "action": "remove", "label": 1, "scope": "incorrect"}
    back = FeedbackSet.from_json(fs.to_json(EXAMPLES))
    assert back.instance == fs.instance and back.task == fs.task
    assert back.words[("b", 4)] == "SPIELBERG"
    assert FeedbackSet.from_json(data).instance == fs.instance  # dicts are accepted too
    assert back.expand(EXAMPLES, PREDS) == expand_feedback(EXAMPLES, fs.instance, fs.task, PREDS)
    # without examples, words recorded earlier are written back
    assert json.loads(back.to_json())["instance"][1]["word"] == "SPIELBERG"
    assert "word" not in json.loads(fs.to_json())["instance"][1]

    path = save_feedback(fs, tmp_path / "sub" / "feedback.json", EXAMPLES)
    loaded = load_feedback(path)
    assert loaded.instance == fs.instance and loaded.task == fs.task and len(loaded) == 6


def test_from_json_defaults_and_errors(tmp_path):
    fs = FeedbackSet.from_json('{"task": [{"word": "x", "action": "REMOVE"}]}')
    assert fs.instance == [] and fs.task == [TaskFeedback("x", R, None, Scope.ALL)]
    bad = [
        ("not json", "not valid JSON"),
        ("[]", "must be an object"),
        ('{"tasks": []}', "unknown keys"),
        ('{"task": {}}', "must be a list"),
        ('{"task": [1]}', "must be an object"),
        ('{"task": [{"word": "x", "action": "drop"}]}', "unknown action 'drop'; allowed: add, remove, reset"),
        ('{"task": [{"word": "x", "action": "add", "scope": "most"}]}', "allowed: correct, incorrect, all"),
        ('{"task": [{"word": "", "action": "add"}]}', "non-empty word"),
        ('{"task": [{"word": "x", "action": "add", "label": "pos"}]}', "integer class index"),
        ('{"task": [{"action": "add"}]}', "task feedback #0 is missing 'word'"),
        ('{"instance": [{"example_id": "a", "action": "add"}]}', "missing 'word_index'"),
        ('{"instance": [{"example_id": "a", "word_index": -2, "action": "add"}]}', "non-negative"),
        ('{"instance": [{"example_id": "a", "word_index": true, "action": "add"}]}', "non-negative"),
    ]
    for text, msg in bad:
        with pytest.raises(FeedbackError, match=msg):
            FeedbackSet.from_json(text)
    with pytest.raises(FeedbackError, match="cannot read feedback file"):
        load_feedback(tmp_path / "missing.json")


def test_expand_detects_changed_text():
    fs = FeedbackSet.from_json(
        {"instance": [{"example_id": "a", "word_index": 3, "action": "remove", "word": "GREAT"}]}
    )
    assert fs.expand(EXAMPLES) == {"a": {3: R}}  # same word, other case: fine
    changed = [Example("a", "Spielberg made a terrible film.", 0)]
    with pytest.raises(FeedbackError, match="now 'terrible'"):
        fs.expand(changed)


def test_counts():
    fs = sample_set()
    fs.instance.append(InstanceFeedback("d", 0, R))
    c = fs.counts(EXAMPLES, top=2)
    # the reset on ("a", 3) cancels the add there
    assert c["instance"] == {"add": 0, "remove": 2}
    assert c["task"] == {"add": 1, "remove": 2}
    assert c["total"] == 5
    assert c["examples_with_instance_feedback"] == 2
    # "spielberg": 2 instance removals + 1 task removal
    assert c["top_removed"] == [{"word": "spielberg", "count": 3}, {"word": "bad", "count": 1}]
    assert c["top_added"] == [{"word": "film", "count": 1}]
    # without texts, instance positions count but are not named
    assert FeedbackSet(instance=[InstanceFeedback("a", 0, R)]).counts()["top_removed"] == []
