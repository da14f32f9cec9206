"""A retrained version against its parent on the same examples (issues 30 §3 and 33 §3)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from xmd.core.compare import paired_bootstrap
from xmd.core.feedback import FeedbackSet
from xmd.core.modelcard import render_model_card
from xmd.core.pipeline import debug
from xmd.core.predict import predict_proba
from xmd.core.retrain import TrainConfig
from xmd.core.types import Action, DataError, Example, InstanceFeedback, TaskFeedback
from xmd.core.vs_parent import HOLDOUT_NAME, compare_set, compare_sets, harms, holdout_split, sentences

from tests.unit.test_forecast import TRAIN, examples, shortcut  # noqa: F401 (fixture)

LABELS = ["negative", "positive"]
MANGO = FeedbackSet(task=[TaskFeedback("mango", Action.REMOVE)])


def test_shortcut_parent_against_a_model_that_ignores_the_word(shortcut):  # noqa: F811
    """The parent flags every example with 'mango': its FPR on the words' slice is exactly 3/3 (e0-e2),
    0/2 on the others; a model that never flags has 0 on both: the change is -100 points, lower."""
    exs = examples()
    parent = predict_proba(shortcut, [ex.text for ex in exs]).argmax(1)
    assert parent.tolist() == [1, 1, 1, 0, 0, 1, 0]
    new = np.zeros((1, len(exs)), dtype=np.int64)
    out = compare_sets({"s": exs}, {"s": parent}, {"s": new}, LABELS, feedback=MANGO, reference=TRAIN)
    assert out["words"] == ["mango"] and out["positive"] == {"index": 1, "label": "positive", "rule": "word_lift"}
    rows = out["sets"]["s"]["metrics"]
    assert rows["fpr_words"]["parent"] == 1.0 and rows["fpr_words"]["new"] == 0.0
    assert rows["fpr_words"]["diff"] == -1.0 and rows["fpr_words"]["verdict"] == "better"
    assert rows["fpr_other"]["parent"] == 0.0 and rows["fpr_other"]["diff"] == 0.0
    assert rows["accuracy"]["parent"] == pytest.approx(3 / 7) and rows["accuracy"]["new"] == pytest.approx(5 / 7)
    assert out["sets"]["s"]["n_negative_words"] == 3 and out["sets"]["s"]["n_negative_other"] == 2
    # the other side (issue 30 §3): e5 contains the word and is positive: caught by the parent, missed by new
    assert rows["fnr_words"]["parent"] == 0.0 and rows["fnr_words"]["new"] == 1.0
    assert rows["fnr_words"]["verdict"] == "worse" and rows["fnr_other"]["parent"] == rows["fnr_other"]["new"] == 1.0
    assert out["sets"]["s"]["n_positive_words"] == 1 and out["sets"]["s"]["n_positive_other"] == 1
    assert set(out["sets"]["s"]["sentences"]) == {"accuracy", "fpr_words", "fnr_words"}
    assert "missed 0.0 % of the time by the parent and 100.0 %" in out["sets"]["s"]["sentences"]["fnr_words"]
    assert out["sentences"][:2] == [out["sets"]["s"]["sentences"][m] for m in ("accuracy", "fpr_words")]
    fpr = [t for t in out["sentences"] if "corrected words" in t]
    assert fpr and "100.0 % of the time by the parent and 0.0 %" in fpr[0] and "lower beyond noise" in fpr[0]


def test_the_interval_is_the_paired_bootstrap_and_a_drop_is_said_in_words():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    parent = y.copy()
    parent[:40] = 1 - parent[:40]  # 90 % accurate
    new = parent.copy()
    new[40:80] = 1 - new[40:80]  # 80 %: ten points lost
    s = compare_set(y, parent, new[None], LABELS)
    ref = paired_bootstrap(y, new[None], parent[None], LABELS)["accuracy"]
    acc = s["metrics"]["accuracy"]
    assert (acc["diff"], acc["ci_low"], acc["ci_high"]) == (ref["diff"], ref["ci_low"], ref["ci_high"])
    assert (
        acc["parent"] == pytest.approx(0.9)
        and acc["new"] == pytest.approx(0.8)
        and acc["noise"] == 0.0
        and acc["verdict"] == "worse"
    )
    result = {"names": ["v1", "v2"], "positive": None, "sets": {"stf_test": s}}
    text = sentences(result)[0]
    assert text.startswith("v2 is 10.0 points less accurate on stf_test than v1 (90.0 % → 80.0 %")
    assert "one seed: no seed noise is measured" in text
    assert harms(result) == ["stf_test"]
    same = compare_set(y, parent, parent[None], LABELS)
    assert same["metrics"]["accuracy"]["verdict"] == "within_noise"
    assert "within noise" in sentences({"names": ["v1", "v2"], "sets": {"x": same}})[0]
    assert harms({"sets": {"x": same}}) == []


def test_seed_noise_can_hold_a_verdict_back():
    """With seeds, the change must also exceed the new version's spread over seeds."""
    y = np.array([0, 1] * 50)
    parent = y.copy()
    a, b = y.copy(), y.copy()
    a[:2] = 1 - a[:2]  # -2 points
    b[:30] = 1 - b[:30]  # -30 points: seed std ~19.8 points > mean change 16
    s = compare_set(y, parent, np.stack([a, b]), LABELS)
    acc = s["metrics"]["accuracy"]
    assert s["n_seeds"] == 2 and acc["noise"] == pytest.approx(np.std([0.98, 0.70], ddof=1))
    assert acc["ci_high"] < 0 and acc["verdict"] == "within_noise"
    assert "seed noise 19.8 points over 2 seeds" in sentences({"names": ["v1", "v2"], "sets": {"x": s}})[0]


def test_holdout_is_seeded_excluded_and_spares_marked_examples():
    train = [Example(id=str(i), text=f"text {i}", label=i % 2) for i in range(50)]
    fb = FeedbackSet(instance=[InstanceFeedback(str(i), 0, Action.REMOVE) for i in range(10)])
    rest, held, info = holdout_split(train, fb, seed=3)
    assert len(held) == 5 and info["n"] == 5 and info["n_train"] == 45 and info["name"] == HOLDOUT_NAME
    assert {ex.id for ex in rest} | {ex.id for ex in held} == {ex.id for ex in train}
    assert not {ex.id for ex in rest} & {ex.id for ex in held}
    assert all(int(ex.id) >= 10 for ex in held)  # no example a person marked is left out of training
    assert [ex.id for ex in holdout_split(train, fb, seed=3)[1]] == [ex.id for ex in held]
    assert [ex.id for ex in holdout_split(train, fb, seed=4)[1]] != [ex.id for ex in held]
    assert len(holdout_split(train, share=0.5, max_examples=7)[1]) == 7
    assert len(holdout_split(train[:3])[1]) == 1  # at least one example
    with pytest.raises(DataError):
        holdout_split(train[:1])
    with pytest.raises(DataError):
        holdout_split(train, share=1.0)


def test_debug_records_the_parent_comparison_in_its_metadata_and_card(tiny_model_dir, tmp_path):
    from tests.unit.test_training import shortcut_data

    evals = {"held": shortcut_data(12, seed=1) + examples()}
    res = debug(
        tiny_model_dir, shortcut_data(16), MANGO, tmp_path / "v2", config=TrainConfig(batch_size=8),
        eval_sets=evals, share_methods=("grad_x_input",), names=("v1", "v2"),
    )  # fmt: skip
    vs = res.meta["vs_parent"]
    s = vs["sets"]["held"]
    assert s["n"] == 19 and vs["names"] == ["v1", "v2"] and vs["words"] == ["mango"]
    # set_metrics sums float32 indicators: the same ratio to 1e-7
    assert s["metrics"]["accuracy"]["parent"] == pytest.approx(res.metrics_before["held"]["accuracy"], abs=1e-6)
    assert s["metrics"]["accuracy"]["new"] == pytest.approx(res.metrics_after["held"]["accuracy"], abs=1e-6)
    assert s["n_negative_words"] == 3 and "fpr_words" in s["metrics"]
    assert any(t.startswith("v2") for t in vs["sentences"])
    stored = json.loads((res.out_dir / "xmd.json").read_text())
    assert stored["vs_parent"]["sets"]["held"]["metrics"]["accuracy"] == s["metrics"]["accuracy"]
    card = (res.out_dir / "README.md").read_text()
    assert "## Against the parent model (v1)" in card and "| held | accuracy |" in card
    assert render_model_card({**stored, "vs_parent": None}).count("Against the parent") == 0


def test_from_a_comparison_every_debug_seed_is_paired_with_the_parent():
    """With controls, the comparison keeps the parent's and each debug seed's predictions; the result is
    the mean over seeds against the parent, with the comparison's flagged class."""
    from xmd.core.vs_parent import from_comparison

    exs = examples()
    parent = [1, 1, 1, 0, 0, 1, 0]
    seeds = [[0, 0, 1, 0, 0, 1, 1], [0, 1, 1, 0, 0, 1, 1]]
    cmp = {
        "labels": LABELS,
        "positive": {"index": 1, "label": "positive", "rule": "word_lift"},
        "settings": {"bootstrap": {"n_resamples": 200, "seed": 0}},
        "sets": {"s": {"predictions": {"parent": parent, "debug": seeds, "lambda0": seeds}}},
    }
    out = from_comparison(cmp, {"s": exs}, MANGO, reference=TRAIN, names=("v1", "v2"))
    assert out is not None
    s = out["sets"]["s"]
    assert s["n_seeds"] == 2 and out["bootstrap"]["n_resamples"] == 200 and out["positive"] == cmp["positive"]
    fpr = s["metrics"]["fpr_words"]
    assert fpr["parent"] == 1.0 and fpr["new"] == pytest.approx((1 / 3 + 2 / 3) / 2)
    assert fpr["noise"] == pytest.approx(np.std([1 / 3, 2 / 3], ddof=1))
    assert from_comparison({"labels": LABELS, "sets": {}}, {}, MANGO) is None


def test_the_card_states_a_held_out_share_and_reads_from_this_models_side():
    y = np.array([0, 1] * 20)
    parent, new = y.copy(), y.copy()
    new[:6] = 1 - new[:6]
    vs = {
        "names": ["v1", "v2"],
        "words": [],
        "positive": None,
        "holdout": {"name": HOLDOUT_NAME, "share": 0.1, "max_examples": 500, "seed": 0, "n": 40, "n_train": 360},
        "sets": {HOLDOUT_NAME: compare_set(y, parent, new[None], LABELS)},
    }
    card = render_model_card({"kind": "debug", "vs_parent": vs})
    assert "## Against the parent model (v1)" in card
    assert f"- This model is 15.0 points less accurate on {HOLDOUT_NAME} than v1" in card
    assert "- No eval set was given: 'held-out training share' is 40 training examples (10 %, at most 500" in card
