"""core/agreement.py: hand-worked small cases, the edges (one annotator, no overlap, all agree), and the
Fleiss (1971) and Krippendorff (2011) textbook tables. HateXplain's three annotators against a direct
computation from the CSV: tests/bench/test_agreement_hatexplain.py (it uses the bench's importer)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from xmd.core.agreement import (
    MAX_TOKENS,
    agreement,
    alpha_from_coincidences,
    annotator_marks,
    cohen_kappa,
    coincidences,
    fleiss_kappa,
    kappa_from_confusion,
    krippendorff_alpha,
    token_table,
    value_counts,
)
from xmd.core.feedback import FeedbackSet
from xmd.core.types import DataError

TEXTS = {"e1": "the cat sat down", "e2": "a dull dull film"}
N_WORDS = {"e1": 4, "e2": 4}


def fs(*marks: tuple[str, int, str], task: tuple[tuple[str, str], ...] = ()) -> FeedbackSet:
    return FeedbackSet.from_json(
        {
            "instance": [{"example_id": e, "word_index": i, "action": a} for e, i, a in marks],
            "task": [{"word": w, "action": a} for w, a in task],
        }
    )


def test_two_annotators_hand_worked() -> None:
    # e1, 4 tokens. a: remove, none, add, none -> codes 1 0 2 0; b: remove, none, none, none -> 1 0 0 0.
    # Observed agreement 3/4. Marginals a: none 2, remove 1, add 1; b: none 3, remove 1.
    # Expected (2*3 + 1*1 + 1*0) / 16 = 7/16; kappa = (12/16 - 7/16) / (9/16) = 5/9.
    # Alpha (nominal): coincidences o00 = 4, o11 = 2, o02 = o20 = 1; n = 8, n0 = 5, n1 = 2, n2 = 1;
    # alpha = 1 - (n - 1) * (o02 + o20) / (n0 n1 + n0 n2 + n1 n2) / 2 = 1 - 7 * 2 / 34 = 10/17.
    a = annotator_marks("a", fs(("e1", 0, "remove"), ("e1", 2, "add")))
    b = annotator_marks("b", fs(("e1", 0, "remove")))
    res = agreement([a, b], N_WORDS, texts=TEXTS)
    assert res["n_examples"] == 1 and res["n_tokens"] == 4
    (pair,) = res["pairs"]
    assert pair["observed"] == pytest.approx(0.75)
    assert pair["kappa"] == pytest.approx(5 / 9)
    assert res["alpha"] == pytest.approx(10 / 17)
    assert res["fleiss_kappa"] is None and "3 annotators" in res["note"]


def test_resets_and_overrides_count_as_the_last_click() -> None:
    # a clicks add then remove on word 1 (remove stands), and adds then resets word 3 (nothing stands).
    a = annotator_marks("a", fs(("e1", 1, "add"), ("e1", 1, "remove"), ("e1", 3, "add"), ("e1", 3, "reset")))
    assert dict(a.marks["e1"]) == {1: a.marks["e1"][1]} and a.marks["e1"][1].value == "remove"
    table = token_table([a, annotator_marks("b", fs(("e1", 1, "remove")))], N_WORDS)
    assert table.codes.tolist() == [[0, 1, 0, 0], [0, 1, 0, 0]]


def test_seen_decides_the_shared_examples() -> None:
    # b saw e2 and marked nothing there: e2's 4 tokens count (all "none" for b); c never saw e1.
    a = annotator_marks("a", fs(("e1", 0, "remove"), ("e2", 1, "remove")))
    b = annotator_marks("b", fs(("e1", 0, "remove")), seen=["e2"])
    c = annotator_marks("c", fs(("e2", 1, "remove")))
    table = token_table([a, b, c], N_WORDS)
    assert table.units == [("e1", i) for i in range(4)] + [("e2", i) for i in range(4)]
    assert np.isnan(table.codes[2, :4]).all() and table.codes[1, 4:].tolist() == [0, 0, 0, 0]
    res = agreement([a, b, c], N_WORDS)
    assert res["fleiss_kappa"] is None  # c is missing on e1: only alpha handles that
    assert res["alpha"] is not None and -1 <= res["alpha"] <= 1
    assert [(p["a"], p["b"], p["n_tokens"]) for p in res["pairs"]] == [("a", "b", 8), ("a", "c", 4), ("b", "c", 4)]


def test_one_annotator_and_no_overlap_are_explicit() -> None:
    a = annotator_marks("a", fs(("e1", 0, "remove")))
    one = agreement([a], N_WORDS)
    assert one["pairs"] == [] and one["alpha"] is None and "fewer than two" in one["note"]
    b = annotator_marks("b", fs(("e2", 0, "remove")))
    apart = agreement([a, b], N_WORDS)
    assert apart["n_tokens"] == 0 and apart["alpha"] is None and "no example" in apart["note"]


def test_all_agree_kappa_undefined_or_one() -> None:
    # Both mark only word 0 of e1: every token agrees, two categories used -> kappa = alpha = 1.
    a = annotator_marks("a", fs(("e1", 0, "remove")))
    b = annotator_marks("b", fs(("e1", 0, "remove")))
    res = agreement([a, b], N_WORDS)
    assert res["pairs"][0]["kappa"] == pytest.approx(1.0) and res["alpha"] == pytest.approx(1.0)
    # Both saw e1 and marked nothing: one category only, chance explains all -> undefined (None), not 1 or NaN.
    x, y = annotator_marks("x", fs(), seen=["e1"]), annotator_marks("y", fs(), seen=["e1"])
    res = agreement([x, y], N_WORDS)
    assert res["pairs"][0] == {"a": "x", "b": "y", "n_tokens": 4, "observed": 1.0, "kappa": None}
    assert res["alpha"] is None
    assert fleiss_kappa(np.array([[3, 0], [3, 0]])) is None


def test_fleiss_textbook_example() -> None:
    # Fleiss (1971) as worked on Wikipedia ("Fleiss' kappa"): 10 subjects, 14 raters, 5 categories.
    # P-bar = 0.378, P-e = 0.213, kappa = (0.378 - 0.213) / (1 - 0.213) = 0.210.
    counts = np.array(
        [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ]
    )
    assert fleiss_kappa(counts) == pytest.approx(0.20993, abs=1e-5)
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa(np.array([[2, 1], [1, 1]]))


def test_cohen_matches_sklearn_and_alpha_handles_missing() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 3, 200).astype(float), rng.integers(0, 3, 200).astype(float)
    b[:40] = a[:40]
    assert cohen_kappa(a, b)["kappa"] == pytest.approx(cohen_kappa_score(a.astype(int), b.astype(int)))
    a[5] = np.nan  # a missing rating drops that unit from the pair
    assert cohen_kappa(a, b)["n_tokens"] == 199
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", 4 observers x 12 units with gaps:
    # nominal alpha = 0.743 (worked out by hand in that paper).
    m = np.nan
    k = [[1, 2, 3, 3, 2, 1, 4, 1, 2, m, m, m],
         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, m, 3],
         [m, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, m],
         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, m]]  # fmt: skip
    assert krippendorff_alpha(np.array(k)) == pytest.approx(0.743, abs=1e-3)


def test_bad_input_is_refused() -> None:
    a = annotator_marks("a", fs(("e1", 9, "remove")))
    with pytest.raises(DataError, match="has 4 words"):
        token_table([a, annotator_marks("b", fs(("e1", 0, "add")))], N_WORDS)
    with pytest.raises(DataError, match="distinct"):
        token_table([a, a], N_WORDS)
    with pytest.raises(DataError, match="no known length"):
        token_table([annotator_marks("b", fs(("e3", 0, "add"))), annotator_marks("c", fs(("e3", 0, "add")))], N_WORDS)
    big = {"e1": MAX_TOKENS}
    with pytest.raises(DataError, match="MAX_TOKENS"):
        token_table([annotator_marks("b", fs(("e1", 0, "add"))), annotator_marks("c", fs(("e1", 0, "add")))], big)


def test_per_word_and_task_words() -> None:
    # e2 "a dull dull film": both remove the first "dull", only a the second -> "dull" has 2 tokens, 1 disputed.
    a = annotator_marks("a", fs(("e2", 1, "remove"), ("e2", 2, "remove"), task=(("the", "remove"), ("bad", "add"))))
    b = annotator_marks("b", fs(("e2", 1, "remove"), task=(("The", "remove"),)))
    res = agreement([a, b], N_WORDS, texts=TEXTS)
    dull = next(w for w in res["per_word"] if w["word"] == "dull")
    assert (dull["n_tokens"], dull["marked"], dull["unanimous"], dull["disputed"]) == (2, 2, 1, 1)
    assert res["per_word"][0]["word"] == "dull"  # the most disputed first
    task = res["task"]
    assert task["n_words"] == 2
    assert task["words"] == [{"word": "bad", "a": "add", "b": "none"}, {"word": "the", "a": "remove", "b": "remove"}]
    assert task["pairs"][0]["observed"] == pytest.approx(0.5)


def test_count_forms_for_incremental_updates_equal_the_array_forms() -> None:
    # A service keeps a pair's confusion matrix and the 3x3 coincidence matrix and updates them per click.
    rng = np.random.default_rng(1)
    codes = rng.choice([0, 0, 0, 1, 2], size=(3, 300)).astype(float)
    codes[1, :30] = codes[0, :30]
    codes[2, rng.random(300) < 0.3] = np.nan  # the third person skipped some tokens
    both = ~np.isnan(codes[0]) & ~np.isnan(codes[2])
    conf = np.zeros((3, 3))
    np.add.at(conf, (codes[0, both].astype(int), codes[2, both].astype(int)), 1)
    assert kappa_from_confusion(conf) == pytest.approx(cohen_kappa(codes[0], codes[2])["kappa"])
    o = coincidences(value_counts(codes))
    assert alpha_from_coincidences(o) == pytest.approx(krippendorff_alpha(codes))
    # one click: token 7 of person 0 goes from "add" to "remove"; subtract that token's term, add the new one
    assert codes[0, 7] == 2
    before = value_counts(codes[:, 7:8])
    codes[0, 7] = 1
    o = o - coincidences(before) + coincidences(value_counts(codes[:, 7:8]))
    assert alpha_from_coincidences(o) == pytest.approx(krippendorff_alpha(codes))
    assert kappa_from_confusion(np.zeros((3, 3))) is None and kappa_from_confusion(np.diag([5, 0, 0])) is None
    assert alpha_from_coincidences(coincidences(np.array([[3, 0, 0]]))) is None
