"""Evaluation mode in the core: feedback from rationales and word lists, tagged with its source."""

from __future__ import annotations

import pytest
from xmd.core.feedback import FeedbackSet, load_feedback, save_feedback
from xmd.core.modelcard import render_model_card
from xmd.core.simulate import feedback_from_rationales, feedback_from_words, merge_feedback, read_word_list
from xmd.core.types import Action, DataError, Example, FeedbackError, InstanceFeedback, TaskFeedback

A, R = Action.ADD, Action.REMOVE

EXAMPLES = [
    Example("a", "the movie was great fun", 1, meta={"why": [0, 0, 0, 1, 1]}),
    Example("b", "boring and awful plot", 0, meta={"why": "[0, 0, 1, 0]"}),
    Example("c", "I don't like it.", 0, meta={"why": [0, 1, 1, 0]}),  # per whitespace token
    Example("d", "no rationale here", 1, meta={"why": None}),
    Example("e", "a dull story", 0, meta={"why": "[]"}),
    Example("f", "a dull story", 0, meta={"why": [0, 0, 0]}),
]


def test_add_on_rationale_words_with_source_and_summary():
    fs, s = feedback_from_rationales(EXAMPLES, "why")
    assert [(f.example_id, f.word_index, f.action) for f in fs.instance] == [
        ("a", 3, A),
        ("a", 4, A),
        ("b", 2, A),
        ("c", 1, A),
        ("c", 2, A),
    ]
    assert {f.source for f in fs.instance} == {"simulated:rationales:why"}
    assert fs.words[("c", 1)] == "don't" and fs.words[("c", 2)] == "like"
    assert (s.n_rows, s.n_examples, s.n_add, s.n_remove, s.n_words) == (6, 3, 5, 0, 5)
    assert s.skipped == {"no rationale": 2, "rationale marks no word": 1}
    assert s.skipped_examples == {"no rationale": ["d", "e"], "rationale marks no word": ["f"]}
    assert s.details["format"] == "binary" and s.details["annotators"] == {"1": 4}
    assert "  skipped 2: no rationale (e.g. d, e)" in s.lines()
    # the imported set is valid feedback for these examples
    assert fs.expand(EXAMPLES) == {"a": {3: A, 4: A}, "b": {2: A}, "c": {1: A, 2: A}}
    # rationale words in a column of their own
    words = [Example("a", "boring and awful plot", 0, meta={"w": "awful"}), Example("b", "dull", 0, meta={"w": "x"})]
    fs, s = feedback_from_rationales(words, "w")
    assert [(f.example_id, f.word_index) for f in fs.instance] == [("a", 2)]
    assert s.skipped == {"rationale word not found in the text": 1}


def test_remove_others():
    fs, s = feedback_from_rationales(EXAMPLES[:1], "why", remove_others=True)
    assert [(f.word_index, f.action) for f in fs.instance] == [(0, R), (1, R), (2, R), (3, A), (4, A)]
    assert (s.n_add, s.n_remove) == (2, 3)


def test_only_correct_or_incorrect_with_predictions():
    preds = {"a": 1, "b": 1, "c": 0, "d": 1, "e": 0, "f": 0}  # b is wrong, a and c right
    fs, s = feedback_from_rationales(EXAMPLES, "why", only="correct", predictions=preds)
    assert sorted({f.example_id for f in fs.instance}) == ["a", "c"]
    assert s.skipped["predicted incorrectly"] == 1 and s.skipped_examples["predicted incorrectly"] == ["b"]
    fs, s = feedback_from_rationales(EXAMPLES, "why", only="incorrect", predictions=preds)
    assert sorted({f.example_id for f in fs.instance}) == ["b"]
    unlabelled = [Example("x", "great fun", None, meta={"why": "great"})]
    fs, s = feedback_from_rationales(unlabelled, "why", only="correct", predictions={})
    assert len(fs) == 0 and s.skipped == {"no gold label": 1}
    with pytest.raises(FeedbackError, match="needs the model's predictions"):
        feedback_from_rationales(EXAMPLES, "why", only="correct")
    with pytest.raises(FeedbackError, match="no prediction for 1 examples"):
        feedback_from_rationales(EXAMPLES, "why", only="correct", predictions={"a": 1, "c": 0})


def test_budget_is_seeded_and_keeps_dataset_order():
    exs = [Example(str(i), f"word{i} other", i % 2, meta={"r": [1, 0]}) for i in range(40)]

    def pick(seed: int) -> list[str]:
        fs, s = feedback_from_rationales(exs, "r", budget=10, seed=seed)
        assert s.n_examples == 10 and s.skipped == {"over budget": 30}
        return [f.example_id for f in fs.instance]

    first = pick(1)
    assert first == pick(1)  # same seed, same draw
    assert first == sorted(first, key=int)  # dataset order
    assert pick(2) != first
    _, s = feedback_from_rationales(exs, "r", budget=100)
    assert s.n_examples == 40 and "over budget" not in s.skipped
    with pytest.raises(FeedbackError, match="budget must be a positive"):
        feedback_from_rationales(exs, "r", budget=0)


def test_bad_column_raises_before_building_anything():
    with pytest.raises(DataError, match="rationale column 'nope' not found"):
        feedback_from_rationales(EXAMPLES, "nope")
    bad = [*EXAMPLES[:1], Example("z", "one two", 0, meta={"why": [1, 0, 1, 1, 1]})]
    with pytest.raises(DataError, match="row 'z' has 5 flags but the row has 2 words"):
        feedback_from_rationales(bad, "why", format="binary")


# ------------------------------------------------------------------ word lists

WORDS = [
    "\ufeff# identity terms, one per line",
    "word\tweight",
    "Muslims\t0.9",
    "",
    "MUSLIMS\t0.95",  # case variant: one word, the larger weight
    "ｍｕｓｌｉｍｓ,0.1",  # full-width variant
    "jews, 0.8",
    "gay",
    "african american\t0.7",
    "u.s.",
    "  # indented comment",
    "Women\t0.4",
]


def test_read_word_list_variants_comments_and_header():
    entries, skipped = read_word_list(WORDS)
    assert entries == [
        ("Muslims", 0.9),
        ("MUSLIMS", 0.95),
        ("ｍｕｓｌｉｍｓ", 0.1),
        ("jews", 0.8),
        ("gay", None),
        ("Women", 0.4),
    ]
    assert skipped["not a single word"] == [
        "line 9: 'african american' → african | american",
        "line 10: 'u.s.' → u | . | s | .",
    ]
    with pytest.raises(FeedbackError, match="line 2: weight 'heavy' is not a number"):
        read_word_list(["gay\t1", "jews\theavy"])


def test_feedback_from_words_dedupes_and_tags(tmp_path):
    path = tmp_path / "identity.txt"
    path.write_text("\n".join(WORDS), encoding="utf-8")
    exs = [
        Example("0", "muslims and jews", 0),
        Example("1", "MUSLIMS are people", 1),
        Example("2", "nothing here", 0),
        Example("3", "women rock", 1),
    ]
    fs, s = feedback_from_words(path, action="remove", scope="all", examples=exs)
    assert [(t.word, t.action, t.source) for t in fs.task] == [
        ("Muslims", R, "simulated:words:identity.txt"),
        ("jews", R, "simulated:words:identity.txt"),
        ("gay", R, "simulated:words:identity.txt"),
        ("Women", R, "simulated:words:identity.txt"),
    ]
    assert (s.n_words, s.n_remove, s.n_add, s.n_examples) == (4, 4, 0, 3)
    assert s.skipped == {"not a single word": 2, "duplicate of an earlier word (case/Unicode variant)": 2}
    assert s.top_words[0] == {"word": "muslims", "count": 2}
    # weights select words: the variants' largest weight counts for "Muslims"
    fs, s = feedback_from_words(path, min_weight=0.5, top=1, action="add", scope="correct", label=1)
    assert [(t.word, t.action, t.scope.value, t.label) for t in fs.task] == [("Muslims", A, "correct", 1)]
    assert s.skipped["weight below 0.5 or missing"] == 2 and s.skipped["not among the top 1 by weight"] == 1
    with pytest.raises(FeedbackError, match="gives no word to import"):
        feedback_from_words(["# only a comment", ""])
    with pytest.raises(FeedbackError, match="cannot read word list"):
        feedback_from_words(tmp_path / "missing.txt")
    with pytest.raises(FeedbackError, match="unknown action"):
        feedback_from_words(["gay"], action="delete")


# ------------------------------------------------------------------ sources: JSON, merge, model card


def test_sources_round_trip_through_json_and_reach_the_model_card(tmp_path):
    fs, _ = feedback_from_rationales(EXAMPLES, "why")
    words, _ = feedback_from_words(["Muslims", "jews"], source="simulated:words:identity.txt")
    human = FeedbackSet(instance=[InstanceFeedback("a", 0, R)], task=[TaskFeedback("plot", R)])
    merged, dropped = merge_feedback(human, fs)
    merged, _ = merge_feedback(merged, words)
    assert dropped == 0
    path = save_feedback(merged, tmp_path / "fb.json", EXAMPLES)
    back = load_feedback(path)
    assert back.instance == merged.instance and back.task == merged.task
    assert back.instance[1].source == "simulated:rationales:why" and back.instance[0].source is None
    assert back.words[("c", 1)] == "don't"
    sources = back.counts()["sources"]
    assert sources == {
        "unmarked": {"instance": 1, "task": 1},
        "simulated:rationales:why": {"instance": 5, "task": 0},
        "simulated:words:identity.txt": {"instance": 0, "task": 2},
    }
    card = render_model_card({"kind": "debug", "feedback_counts": back.counts(), "labels": ["neg", "pos"]})
    assert "- From `simulated:rationales:why`: 5 instance-level, 0 task-level" in card
    assert "- From `simulated:words:identity.txt`: 0 instance-level, 2 task-level" in card
    # human-only feedback: no source lines, the card is as before
    assert human.counts()["sources"] == {}
    assert "From `" not in render_model_card({"kind": "debug", "feedback_counts": human.counts()})
    with pytest.raises(FeedbackError, match="source must be a non-empty string"):
        FeedbackSet.from_json({"task": [{"word": "x", "action": "remove", "source": 3}]})


def test_merge_replaces_an_earlier_import_of_the_same_source():
    first, _ = feedback_from_rationales(EXAMPLES, "why")
    human = FeedbackSet(instance=[InstanceFeedback("a", 0, R)])
    merged, _ = merge_feedback(human, first)
    again, _ = feedback_from_rationales(EXAMPLES, "why", remove_others=True)
    merged2, dropped = merge_feedback(merged, again)
    assert dropped == len(first.instance)
    assert merged2.instance[0] == InstanceFeedback("a", 0, R)  # the person's entry stays
    assert merged2.instance[1:] == again.instance
    kept, dropped = merge_feedback(merged, again, replace_source=False)
    assert dropped == 0 and len(kept.instance) == len(merged.instance) + len(again.instance)
