"""Evaluation metrics: hand-computed cases, ferret's AOPC conventions, and the tiny models."""

from __future__ import annotations

import numpy as np
import pytest
import xmd.core.evaluate as ev
from xmd.core.evaluate import (
    accuracy,
    aopc,
    auprc,
    compare_metrics,
    confusion_matrix,
    evaluate_sets,
    macro_f1,
    per_class_f1,
    perturbations,
    plausibility,
    removal_steps,
    token_f1,
)
from xmd.core.predict import predict_proba
from xmd.core.types import DataError, Example, Explanation
from xmd.core.words import split_words

# ---------------------------------------------------------------- classification metrics


def test_accuracy_and_confusion_matrix_by_hand():
    y_true = [0, 1, 2, 2]
    y_pred = [0, 2, 2, 1]
    assert accuracy(y_true, y_pred) == 0.5
    np.testing.assert_array_equal(confusion_matrix(y_true, y_pred), [[1, 0, 0], [0, 0, 1], [0, 1, 1]])
    cm4 = confusion_matrix(y_true, y_pred, num_labels=4)
    assert cm4.shape == (4, 4)
    assert cm4[3].sum() == 0 and cm4[:, 3].sum() == 0 and cm4.sum() == 4


def test_macro_f1_by_hand_excludes_absent_classes():
    y_true = [0, 0, 1, 1, 2]
    y_pred = [0, 1, 1, 1, 0]
    # class 0: tp1 fp1 fn1 -> 0.5; class 1: tp2 fp1 fn0 -> 0.8; class 2: tp0 fn1 -> 0; class 3 absent
    assert per_class_f1(y_true, y_pred, 4) == pytest.approx([0.5, 0.8, 0.0, None])
    assert macro_f1(y_true, y_pred, 4) == pytest.approx((0.5 + 0.8 + 0.0) / 3)
    # a class only predicted, never gold, counts with F1 0
    assert macro_f1([0, 0], [0, 1], 3) == pytest.approx((2 / 3 + 0.0) / 2)


def test_macro_f1_matches_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    for trial in range(20):
        k = 5
        n = int(rng.integers(1, 30))
        y_true = rng.integers(0, k - 1 - trial % 2, size=n)  # some classes never appear
        y_pred = rng.integers(0, k - 1, size=n)
        assert macro_f1(y_true, y_pred, k) == pytest.approx(
            metrics.f1_score(y_true, y_pred, average="macro", zero_division=0)
        )
        assert accuracy(y_true, y_pred) == pytest.approx(metrics.accuracy_score(y_true, y_pred))
        np.testing.assert_array_equal(
            confusion_matrix(y_true, y_pred, k), metrics.confusion_matrix(y_true, y_pred, labels=range(k))
        )


def test_metric_input_errors():
    with pytest.raises(ValueError):
        accuracy([0, 1], [0])
    with pytest.raises(ValueError):
        accuracy([], [])
    with pytest.raises(ValueError):
        confusion_matrix([0, 3], [0, 1], num_labels=3)
    with pytest.raises(ValueError):
        accuracy([0.5], [0])


def test_compare_metrics():
    before = {"dev": {"n": 4, "accuracy": 0.5, "macro_f1": 0.4, "per_class_f1": {"a": 0.5, "b": None}}}
    after = {
        "dev": {"n": 4, "accuracy": 0.75, "macro_f1": 0.7, "per_class_f1": {"a": 1.0, "b": 0.5}},
        "test": {"n": 2, "accuracy": 1.0},
    }
    out = compare_metrics(before, after)
    assert out["dev"]["accuracy"] == {"before": 0.5, "after": 0.75, "delta": 0.25}
    assert out["dev"]["macro_f1"]["delta"] == pytest.approx(0.3)
    assert out["dev"]["n"]["delta"] == 0
    assert out["dev"]["per_class_f1"]["a"] == {"before": 0.5, "after": 1.0, "delta": 0.5}
    assert out["dev"]["per_class_f1"]["b"] == {"before": None, "after": 0.5, "delta": None}
    assert out["test"]["accuracy"] == {"before": None, "after": 1.0, "delta": None}


# ---------------------------------------------------------------- evaluate_sets on the 3-class model


@pytest.fixture(scope="module")
def tiny3(tiny_three_class_dir):
    from xmd.core.modeling import load_model

    return load_model(tiny_three_class_dir, device="cpu")


TEXTS = [
    "the movie was great",
    "boring plot and bad acting",
    "i loved the music",
    "it was not good",
    "a terrible awful film",
    "the ending was fun",
    "we hated the actor",
    "really wonderful story",
]


def test_evaluate_sets_consistent_with_predict_proba(tiny3):
    pred = predict_proba(tiny3, TEXTS).argmax(axis=1)
    # first half gold = prediction, second half gold = another class: accuracy is exactly 0.5
    gold = [int(p) if i < 4 else (int(p) + 1) % 3 for i, p in enumerate(pred)]
    examples = [Example(id=str(i), text=t, label=g) for i, (t, g) in enumerate(zip(TEXTS, gold, strict=True))]
    out = evaluate_sets(tiny3, {"dev": examples, "small": examples[:4]}, batch_size=3)
    assert set(out) == {"dev", "small"}
    dev = out["dev"]
    assert dev["n"] == 8
    assert dev["accuracy"] == pytest.approx(0.5)
    assert dev["macro_f1"] == pytest.approx(macro_f1(gold, pred, 3))
    assert list(dev["per_class_f1"]) == ["neg", "neu", "pos"]
    assert [dev["per_class_f1"][n] for n in ("neg", "neu", "pos")] == pytest.approx(per_class_f1(gold, pred, 3))
    assert out["small"]["accuracy"] == 1.0
    assert out["small"]["macro_f1"] == 1.0
    try:
        from sklearn.metrics import f1_score
    except ImportError:
        return
    assert dev["macro_f1"] == pytest.approx(f1_score(gold, pred, average="macro", zero_division=0))


def test_evaluate_sets_rejects_bad_sets(tiny3):
    good = [Example(id="a", text="the movie", label=0)]
    with pytest.raises(DataError, match="empty"):
        evaluate_sets(tiny3, {"dev": good, "test": []})
    with pytest.raises(DataError, match="without a label"):
        evaluate_sets(tiny3, {"dev": [*good, Example(id="b", text="a film")]})
    with pytest.raises(DataError, match="outside"):
        evaluate_sets(tiny3, {"dev": [Example(id="c", text="a film", label=3)]})


# ---------------------------------------------------------------- AOPC: which words are removed


def test_removal_steps_follow_ferret_perc_rule():
    # 5 words, k = floor(q * 5) = 0,1,1,2,2,3,3,4,4,5; positives ranked [2, 4, 0]
    scores = [0.1, -0.3, 0.5, 0.0, 0.2]
    assert removal_steps(scores) == [[2], [2, 4], [2, 4, 0]]
    # 12 positive words: k = 1,2,3,4,6,7,8,9,10,12 (floor of 1.2, 2.4, ..., 12)
    twelve = list(np.linspace(1.0, 0.1, 12))
    assert [len(s) for s in removal_steps(twelve)] == [1, 2, 3, 4, 6, 7, 8, 9, 10, 12]
    assert removal_steps(twelve)[-1] == list(range(12))
    # fewer than 10 words: the 10% step (k = 0) is skipped; ties go to the earlier word
    assert removal_steps([1.0, 1.0, 0.5]) == [[0], [0, 1], [0, 1, 2]]
    assert removal_steps([0.0, -1.0]) == []
    assert removal_steps([]) == []


TEXT = "The movie was great, really!"
# words: The movie was great , really !
SCORES = [0.0, 0.3, 0.0, 0.9, 0.0, 0.5, -0.2]


def test_perturbations_exact_texts():
    words, spans = split_words(TEXT)
    assert words == ["The", "movie", "was", "great", ",", "really", "!"]
    comp, suff = perturbations(words, spans, SCORES, TEXT)
    # 7 words: k = 0,1,2,2,3,4,4,5,6,7, capped at 3 positives -> steps remove great / +really / +movie
    assert comp == ["The movie was , really !", "The movie was , !", "The was , !"]
    assert suff == ["great", "great really", "movie great really"]


def test_perturbations_reject_mismatched_explanations():
    words, spans = split_words(TEXT)
    with pytest.raises(DataError):
        perturbations(words, spans, SCORES, "Another text entirely, yes!")
    with pytest.raises(DataError):
        perturbations(words, spans, SCORES[:-1], TEXT)


def _explanation(text: str, scores: list[float], target: int) -> Explanation:
    words, spans = split_words(text)
    return Explanation(
        words=words,
        spans=spans,
        scores=scores,
        target=target,
        probs=[0.5, 0.5],
        method="test",
        n_seen=len(words),
    )


def test_aopc_on_tiny_model(tiny, monkeypatch):
    all_pos_text = "great fun movie"
    exps = [
        _explanation(TEXT, SCORES, 1),
        _explanation(TEXT, SCORES, 0),
        _explanation(all_pos_text, [0.2, 0.3, 0.1], 1),
        _explanation("bad plot", [-0.1, 0.0], 1),
    ]
    texts = [TEXT, TEXT, all_pos_text, "bad plot"]

    calls = []
    real = ev.predict_proba

    def counting(loaded, batch, **kw):
        calls.append(list(batch))
        return real(loaded, batch, **kw)

    monkeypatch.setattr(ev, "predict_proba", counting)
    out = aopc(tiny, texts, exps, batch_size=4)
    assert len(calls) == 1  # one batched inference over every unique full and perturbed text
    assert len(calls[0]) == len(set(calls[0]))

    comp_texts = ["The movie was , really !", "The movie was , !", "The was , !"]
    suff_texts = ["great", "great really", "movie great really"]
    direct = predict_proba(tiny, [TEXT, *comp_texts, *suff_texts, all_pos_text, "fun", "great fun", ""])
    p1 = direct[:, 1]
    first = out["per_example"][0]
    assert first["k"] == [1, 2, 3]
    assert first["p_full"] == pytest.approx(p1[0], abs=1e-5)
    assert first["comprehensiveness_curve"] == pytest.approx(p1[0] - p1[1:4], abs=1e-5)
    assert first["sufficiency_curve"] == pytest.approx(p1[0] - p1[4:7], abs=1e-5)
    # at 100% every positive word is gone: p(full) - p(text of the non-positive words only)
    assert first["comprehensiveness_curve"][-1] == pytest.approx(p1[0] - p1[3], abs=1e-5)
    assert first["comprehensiveness"] == pytest.approx(np.mean(p1[0] - p1[1:4]), abs=1e-5)
    assert first["sufficiency"] == pytest.approx(np.mean(p1[0] - p1[4:7]), abs=1e-5)

    # the target is Explanation.target: with two classes p0 = 1 - p1, so the sign flips
    second = out["per_example"][1]
    assert second["target"] == 0
    assert second["comprehensiveness"] == pytest.approx(-first["comprehensiveness"], abs=1e-5)

    # all words positive: the last comprehensiveness step deletes everything (empty text)
    third = out["per_example"][2]
    assert third["k"] == [1, 2, 3]
    assert third["comprehensiveness_curve"][-1] == pytest.approx(p1[7] - p1[10], abs=1e-5)
    assert third["sufficiency_curve"][:2] == pytest.approx(p1[7] - p1[8:10], abs=1e-5)
    assert third["sufficiency_curve"][-1] == pytest.approx(0.0, abs=1e-5)  # kept all: "great fun movie"

    # no positive word: ferret's defaults (comprehensiveness 0, sufficiency 1)
    fourth = out["per_example"][3]
    assert fourth["no_positive"] and fourth["k"] == []
    assert (fourth["comprehensiveness"], fourth["sufficiency"]) == (0.0, 1.0)
    assert out["n"] == 4 and out["n_no_positive"] == 1
    assert out["comprehensiveness"] == pytest.approx(np.mean([r["comprehensiveness"] for r in out["per_example"]]))
    assert out["sufficiency"] == pytest.approx(np.mean([r["sufficiency"] for r in out["per_example"]]))


def test_aopc_input_errors(tiny):
    exp = _explanation(TEXT, SCORES, 1)
    with pytest.raises(DataError):
        aopc(tiny, [TEXT, TEXT], [exp])
    with pytest.raises(DataError):
        aopc(tiny, [], [])
    with pytest.raises(DataError, match="out of range"):
        aopc(tiny, [TEXT], [_explanation(TEXT, SCORES, 2)])


# ---------------------------------------------------------------- plausibility


def test_auprc_by_hand():
    rationale = [1, 0, 1, 0]
    scores = [0.9, 0.8, 0.7, -0.5]
    # ranking 1,0,1,(0): P@R=.5 is 1, P@R=1 is 2/3 -> AP = .5 * 1 + .5 * 2/3
    assert auprc(rationale, scores) == pytest.approx(0.5 + 0.5 * 2 / 3)
    # trapezoid (ferret): (0,1)-(.5,1)-(.5,.5)-(1,2/3)-(1,.5)
    assert auprc(rationale, scores, method="trapezoid") == pytest.approx(0.5 + 0.5 * (0.5 + 2 / 3) / 2)
    assert auprc([0, 1, 1], [0.1, 0.9, 0.5]) == pytest.approx(1.0)
    # ties form one threshold: all equal -> precision = base rate, whatever the order
    assert auprc([1, 0, 0, 1], [0.3] * 4) == pytest.approx(0.5)
    assert auprc([0, 0, 1, 1], [0.3] * 4) == pytest.approx(0.5)
    # negative scores count as 0 (positive part), so -1 is not ranked above -2
    assert auprc([0, 1, 1], [0.5, -1.0, -2.0]) == pytest.approx(2 / 3)


def test_auprc_matches_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(1)
    for _ in range(20):
        n = int(rng.integers(3, 15))
        rationale = rng.integers(0, 2, size=n)
        rationale[0] = 1
        scores = np.round(rng.normal(size=n), 1)  # rounding creates ties
        pos = np.maximum(scores, 0)
        assert auprc(rationale, scores) == pytest.approx(metrics.average_precision_score(rationale, pos))
        prec, rec, _ = metrics.precision_recall_curve(rationale, pos)
        assert auprc(rationale, scores, method="trapezoid") == pytest.approx(metrics.auc(rec, prec))


def test_token_f1_by_hand():
    rationale = [0, 1, 1, 0, 0]
    scores = [0.9, 0.8, -0.1, 0.2, 0.0]
    assert token_f1(rationale, scores) == pytest.approx(0.5)  # top 2 = {0, 1}: P = R = .5
    assert token_f1(rationale, scores, top_k=3) == pytest.approx(0.4)  # {0, 1, 3}: P 1/3, R 1/2
    assert token_f1(rationale, scores, top_k=10) == pytest.approx(0.4)  # only 3 positive words
    assert token_f1(rationale, [0.0, -1.0, -2.0, 0.0, 0.0]) == 0.0
    assert token_f1([0, 0, 1], [0.5, 0.5, 0.5], top_k=1) == 0.0  # tie -> earlier word
    assert token_f1([1, 0, 0], [0.5, 0.5, 0.5], top_k=1) == 1.0
    with pytest.raises(DataError):
        token_f1([0, 0], [0.1, 0.2])
    with pytest.raises(DataError):
        auprc([1, 0], [0.1])


def test_plausibility_skips_empty_rationales():
    exps = [
        _explanation("great fun movie", [0.9, 0.1, 0.5], 1),
        _explanation("bad plot", [0.2, 0.4], 1),
        _explanation("the film", [0.2, 0.4], 1),
        _explanation("a film", [0.2, 0.4], 1),
    ]
    rationales = [[1, 0, 1], [1, 0], [0, 0], None]
    out = plausibility(exps, rationales)
    assert out["n"] == 2 and out["n_skipped"] == 2
    assert out["auprc"] == pytest.approx((1.0 + 0.5) / 2)
    assert out["token_f1"] == pytest.approx((1.0 + 0.0) / 2)
    assert plausibility(exps[2:], rationales[2:]) == {"auprc": None, "token_f1": None, "n": 0, "n_skipped": 2}
    with pytest.raises(DataError):
        plausibility(exps[:1], [[1, 0]])
    with pytest.raises(DataError):
        plausibility(exps, rationales[:2])


def test_rationale_mask_accepts_the_usual_formats():
    from xmd.core.evaluate import rationale_mask

    text = "The plot was dull , the acting dull too"
    assert rationale_mask(text, ["DULL"]) == [0, 0, 0, 1, 0, 0, 0, 1, 0]
    assert rationale_mask(text, "plot acting") == [0, 1, 0, 0, 0, 0, 1, 0, 0]
    assert rationale_mask(text, [1, 3]) == [0, 1, 0, 1, 0, 0, 0, 0, 0]
    assert rationale_mask(text, [0, 0, 0, 1, 0, 0, 0, 0, 1]) == [0, 0, 0, 1, 0, 0, 0, 0, 1]
    assert rationale_mask(text, None) is None and rationale_mask(text, []) is None
    with pytest.raises(DataError, match="cannot read rationale"):
        rationale_mask(text, [42])
