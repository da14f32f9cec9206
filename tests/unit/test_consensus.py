"""core/consensus.py: each policy on a hand-worked case, ties, 'seen', purity, and the output a retrain reads."""

from __future__ import annotations

import copy

import pytest
from xmd.core.consensus import Policy, consensus, mask_sizes, parse_policy
from xmd.core.feedback import FeedbackSet
from xmd.core.types import Example, FeedbackError


def fs(*marks: tuple[str, int, str], task: tuple[tuple[str, str], ...] = ()) -> FeedbackSet:
    return FeedbackSet.from_json(
        {
            "instance": [{"example_id": e, "word_index": i, "action": a} for e, i, a in marks],
            "task": [{"word": w, "action": a} for w, a in task],
        }
    )


# Three people on e1 (all saw it). Votes per position:
#   (e1, 0): remove × 3            -> union, majority (3 > 1.5), ≥2, ≥3
#   (e1, 1): remove × 2            -> union, majority (2 > 1.5), ≥2
#   (e1, 2): add × 1               -> union only
#   (e1, 3): add × 1, remove × 1   -> a tie under union (a conflict); under ≥2/majority nobody reaches the bar
# Task "the": remove × 2 -> union, majority, ≥2; task "good": add × 1 -> union only.
PEOPLE = {
    "ann": fs(("e1", 0, "remove"), ("e1", 1, "remove"), ("e1", 3, "add"), task=(("the", "remove"), ("good", "add"))),
    "bob": fs(("e1", 0, "remove"), ("e1", 1, "remove"), ("e1", 2, "add"), task=(("The", "remove"),)),
    "cat": fs(("e1", 0, "remove"), ("e1", 3, "remove")),
}


def marks(res) -> dict[tuple[str, int], str]:
    return {(f.example_id, f.word_index): f.action.value for f in res.feedback.instance}


def words(res) -> dict[str, str]:
    return {t.word.lower(): t.action.value for t in res.feedback.task}


def test_union() -> None:
    res = consensus(PEOPLE, "union")
    assert marks(res) == {("e1", 0): "remove", ("e1", 1): "remove", ("e1", 2): "add"}
    assert res.conflicts == [{"example_id": "e1", "word_index": 3, "add": 1, "remove": 1}]
    assert words(res) == {"the": "remove", "good": "add"}
    assert {f.source for f in res.feedback.instance} == {"consensus:union"}


def test_majority_and_at_least_k() -> None:
    maj = consensus(PEOPLE, Policy.MAJORITY)
    assert marks(maj) == {("e1", 0): "remove", ("e1", 1): "remove"} and maj.conflicts == []
    assert words(maj) == {"the": "remove"}
    assert marks(consensus(PEOPLE, "at_least_k", k=2)) == marks(maj)
    three = consensus(PEOPLE, "at-least-k", k=3)
    assert marks(three) == {("e1", 0): "remove"} and words(three) == {}
    assert three.feedback.instance[0].source == "consensus:at_least_k:3"


def test_majority_counts_those_who_saw_the_example() -> None:
    # e2 seen by ann and bob only (cat never saw it): 1 of 2 is not a majority, 2 of 2 is.
    people = {"ann": fs(("e2", 0, "add"), ("e2", 1, "add")), "bob": fs(("e2", 0, "add")), "cat": fs()}
    assert marks(consensus(people, "majority")) == {("e2", 0): "add"}
    # If cat saw e2 too (and marked nothing), 2 of 3 is still a majority; 1 of 3 is not.
    seen = consensus(people, "majority", seen={"cat": ["e2"]})
    assert marks(seen) == {("e2", 0): "add"}
    # With one annotator, union and majority are their own marks.
    solo = {"ann": PEOPLE["ann"]}
    for policy in ("union", "majority"):
        assert marks(consensus(solo, policy)) == {("e1", 0): "remove", ("e1", 1): "remove", ("e1", 3): "add"}


def test_reviewed_keeps_only_the_reviewers_decisions() -> None:
    # The reviewer accepts (e1, 0), edits (e1, 3) to remove, rejects (e1, 1) (a reset); the rest is undecided.
    review = fs(
        ("e1", 0, "remove"), ("e1", 3, "remove"), ("e1", 1, "remove"), ("e1", 1, "reset"), task=(("the", "remove"),)
    )
    res = consensus(PEOPLE, "reviewed", review=review)
    assert marks(res) == {("e1", 0): "remove", ("e1", 3): "remove"}
    assert words(res) == {"the": "remove"}


def test_pure_and_deterministic() -> None:
    before = copy.deepcopy(PEOPLE)
    a = consensus(PEOPLE, "union")
    consensus(PEOPLE, "majority")
    assert before == PEOPLE  # nobody's marks changed
    assert consensus(dict(reversed(list(PEOPLE.items()))), "union").feedback.to_dict() == a.feedback.to_dict()
    assert a.summary() == {
        "policy": "union",
        "k": None,
        "instance": 3,
        "task": 2,
        "conflicts": 1,
        "contributors": {"ann": 5, "bob": 4, "cat": 2},
    }
    assert mask_sizes(a) == {"add": 1, "remove": 2}


def test_the_output_is_feedback_a_retrain_reads() -> None:
    res = consensus(PEOPLE, "majority")
    again = FeedbackSet.from_json(res.feedback.to_json())  # round-trips through the feedback JSON format
    ex = [Example("e1", "The cat sat down", 0), Example("e2", "the end", 1)]
    expanded = again.expand(ex)
    assert {i: a.value for i, a in expanded["e1"].items()} == {0: "remove", 1: "remove"}
    assert {i: a.value for i, a in expanded["e2"].items()} == {0: "remove"}  # task word "the"


def test_bad_policy_arguments() -> None:
    with pytest.raises(FeedbackError, match="allowed: union"):
        parse_policy("vote")
    with pytest.raises(FeedbackError, match="k ≥ 1"):
        consensus(PEOPLE, "at_least_k")
    with pytest.raises(FeedbackError, match="only used by"):
        consensus(PEOPLE, "majority", k=2)
    with pytest.raises(FeedbackError, match="review"):
        consensus(PEOPLE, "reviewed")
    with pytest.raises(FeedbackError, match="review"):
        consensus(PEOPLE, "union", review=fs())
    with pytest.raises(FeedbackError, match="without feedback"):
        consensus(PEOPLE, "union", seen={"dan": ["e1"]})
