"""The feedback arms of ``bench/team_consensus`` (issue 32 §5) on the real HateXplain rows: each policy's
marks against a direct reading of the rationale columns."""

from __future__ import annotations

from xmd.core.types import Action

from bench.real_data import hatexplain as hx
from bench.team_consensus.consensus import PEOPLE, people_marks, policies


def test_majority_is_the_data_sets_own_two_of_three_rationale_and_union_holds_every_mark():
    posts = hx.load_posts(hx.data_dir() / "val.csv")[:150]
    arms = policies(posts)
    keys = {name: {(f.example_id, f.word_index) for f in fs.instance} for name, fs in arms.items()}
    people = {name: {(f.example_id, f.word_index) for f in fs.instance} for name, fs in people_marks(posts).items()}
    # HateXplain's own rationale: a token flagged by at least 2 annotators, on every xmd word inside it
    agreed = {(p.id, w) for p in posts for w, flag in enumerate(p.word_rationale() or []) if flag}
    assert keys["majority"] == agreed and agreed
    assert keys["union"] == set().union(*people.values()) and keys["majority"] < keys["union"]
    assert keys["single"] == people[PEOPLE[0]]
    assert {f.action for fs in arms.values() for f in fs.instance} == {Action.ADD}
