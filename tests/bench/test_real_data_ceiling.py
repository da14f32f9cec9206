"""The pieces of ``bench/real_data/real_data_ceiling.py`` (test-time erasure of the identity words): word positions with
case and Unicode variants, deletion and replacement with tricky tokenisation, the random control, the split
statistics and the ceiling on constructed numbers, and one pass of the analysis and its report section with
the tiny random BERT on real HateXplain posts."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from xmd.core.compare import contains_words
from xmd.core.types import Explanation
from xmd.core.words import split_words

from bench.real_data import erasure, tables
from bench.real_data import hatexplain as hx
from bench.real_data import real_data_ceiling as rc


def test_identity_positions_match_case_and_unicode_variants_only_whole_words():
    text = "Black women and ＪＥＷＳ, blacks don't"
    assert erasure.identity_positions(text, {"black", "women", "jews"}) == [0, 1, 3]  # not "blacks"
    assert erasure.identity_positions(text, ["JEWS"]) == [3]  # the keys are normalised too
    assert erasure.identity_positions("<user> the jew's hat", ["jew"]) == []  # "jew's" is one word
    assert erasure.identity_positions("", ["jews"]) == []


@pytest.mark.parametrize(
    ("text", "keys", "deleted"),
    [
        ("<user> the jews are fine", {"jews"}, "<user> the are fine"),
        ("Jews are fine", {"jews"}, "are fine"),
        ("hate the jews.", {"jews"}, "hate the ."),
        ("black women , black men", {"black", "women"}, ", men"),
        ("anti-jew rally", {"jew"}, "anti- rally"),
        ("no identity here", {"jews"}, "no identity here"),
    ],
)
def test_erase_deletes_exactly_the_identity_words(text, keys, deleted):
    pos = erasure.identity_positions(text, keys)
    out = erasure.erase(text, pos)
    assert out == deleted
    words = split_words(text)[0]
    assert split_words(out)[0] == [w for i, w in enumerate(words) if i not in pos]
    assert not contains_words([out], keys).any()


def test_erase_replaces_each_word_by_the_placeholder():
    text = "black women, Black men and anti-jew <user>"
    pos = erasure.identity_positions(text, {"black", "women", "jew"})
    assert erasure.erase(text, pos, "[MASK]") == "[MASK] [MASK], [MASK] men and anti-[MASK] <user>"
    assert erasure.erase(text, pos, "person") == "person person, person men and anti-person <user>"
    assert erasure.erase(text, [], "person") == text


def test_random_positions_skip_punctuation_identity_words_and_placeholders():
    text = "<user> the jews are fine , really <number>"
    words = split_words(text)[0]
    allowed = {i for i, w in enumerate(words) if w in ("the", "are", "fine", "really")}
    for seed in range(20):
        picked = erasure.random_positions(text, 2, {"jews"}, random.Random(seed))
        assert len(picked) == 2 and set(picked) <= allowed and picked == sorted(picked)
    assert set(erasure.random_positions(text, 10, {"jews"}, random.Random(0))) == allowed  # fewer than asked: all
    assert erasure.random_positions(text, 2, {"jews"}, random.Random(3)) == erasure.random_positions(
        text, 2, {"jews"}, random.Random(3)
    )
    assert erasure.random_positions("<user> jews", 1, {"jews"}, random.Random(0)) == []


def test_count_buckets_and_rates_by_group():
    assert [erasure.count_bucket(n) for n in (0, 1, 2, 3, 7)] == ["0", "1", "2", "3+", "3+"]
    pred = np.array([1, 0, 1, 1, 0])
    out = erasure.rates_by_group(pred, ["1", "1", "2", "3+", "3+"], ("0", "1", "2", "3+"))
    assert out["0"] == {"n": 0, "positive": 0, "rate": None}
    assert out["1"] == {"n": 2, "positive": 1, "rate": 0.5}
    assert out["2"]["rate"] == 1.0 and out["3+"]["rate"] == 0.5


def _exp(words: list[str], scores: list[float], n_seen: int | None = None) -> Explanation:
    spans = [(i, i + 1) for i in range(len(words))]
    n = len(words) if n_seen is None else n_seen
    return Explanation(words, spans, scores, target=1, probs=[0.2, 0.8], method="grad_x_input", n_seen=n)


def test_top_word_respects_truncation_and_the_table_ranks_words():
    e1 = _exp(["the", "jews", "are", "vile", "x"], [0.1, 0.5, -0.2, 0.3, 9.0], n_seen=4)
    e2 = _exp(["Vile", "people"], [0.6, 0.1])
    assert erasure.top_word(e1) == 1  # the 9.0 lies past what the model saw
    assert erasure.top_word(_exp(["a"], [0.0], n_seen=0)) is None
    table = erasure.top_word_table([e1, e2], {"jews"})
    assert [r["word"] for r in table] == ["vile", "jews", "people", "the"]
    vile, jews = table[0], table[1]
    assert (vile["top1"], vile["top3"], vile["posts"], vile["identity"]) == (1, 2, 2, False)
    assert vile["mean_positive_share"] == pytest.approx((0.3 / 0.9 + 0.6 / 0.7) / 2, abs=1e-4)
    assert (jews["top1"], jews["top3"], jews["identity"]) == (1, 1, True)
    assert erasure.top_word_table([e1, e2], {"jews"}, k=1) == [vile]


def test_variant_metrics_on_constructed_predictions():
    gold = np.array([0, 0, 0, 0, 1, 1, 0])
    has_id = np.array([True, True, True, True, True, False, False])
    old = np.array([1, 1, 0, 0, 1, 1, 1])
    new = np.array([0, 1, 0, 0, 0, 1, 1])
    m = rc.variant_metrics(new, old, gold, has_id)
    assert m["fpr_identity"] == 0.25 and m["relative_change"] == pytest.approx(-0.5)
    assert (m["fp_removed"], m["fp_added"]) == (1, 0)
    assert m["accuracy"] == pytest.approx(4 / 7) and m["toxic_recall_identity"] == 0.0
    assert m["diff_ci95"][0] <= -0.25 <= m["diff_ci95"][1] <= 0
    swap = rc.variant_metrics(np.array([0, 1, 1, 0, 1, 1, 1]), old, gold, has_id)
    assert swap["relative_change"] == 0 and (swap["fp_removed"], swap["fp_added"]) == (1, 1)


def _erasure(fpr: float, before: float) -> dict:
    return {"fpr_identity": fpr, "relative_change": fpr / before - 1}


def test_ceiling_summary_says_which_erasure_reaches_the_target():
    test = {
        "fpr_identity": 0.25,
        "accuracy": 0.8,
        "erasure": {
            "delete": _erasure(0.225, 0.25),
            "mask": _erasure(0.15, 0.25),
            "random_delete": {**_erasure(0.24, 0.25), "fpr_identity_std": 0.01},
        },
    }
    arm = {"test": {"fpr_identity": 0.2, "accuracy": 0.78, "erasure": {"delete": {"fpr_identity": 0.19}}}}
    s = rc.ceiling_summary(
        {"base": {"test": test}, "lambda0": {"0": arm, "1": arm, "2": arm}, "remove": {"0": arm, "1": arm}}
    )
    assert s["target_fpr_identity"] == pytest.approx(0.175)
    assert s["delete"]["reaches_target"] is False and s["delete"]["drop"] == pytest.approx(0.1)
    assert s["mask"]["reaches_target"] is True
    assert s["arms"]["lambda0"]["seeds"] == [0, 1] and s["arms"]["lambda0"]["fpr_identity_random"] is None
    assert s["arms"]["lambda0"]["unpaired_seeds"] == [2] and s["arms"]["remove"]["unpaired_seeds"] == []
    assert s["arms"]["lambda0"]["fpr_identity_deleted"] == pytest.approx(0.19)
    assert rc.ceiling_summary({}) == {}


@pytest.fixture(scope="module")
def posts():
    val = hx.load_posts(hx.data_dir() / "val.csv")
    train, dev = hx.stratified_split(val, 0.2, seed=0)
    words, _ = hx.derive_identity_words(train)
    test = hx.subsample(hx.load_posts(hx.data_dir() / "test.csv"), 60, seed=0)
    return words, hx.subsample(dev, 30, seed=0), test


def test_analysis_and_report_section_with_the_tiny_model(posts, tiny):
    """One pass on real posts: every variant measured on the same posts, the random control never touches an
    identity word, and the README's ceiling table reads the numbers."""
    words, dev, test = posts
    ctx: dict = {"keys": set(words), "dev": [p.example("dev") for p in dev], "test": [p.example("test") for p in test]}
    for split in ("dev", "test"):
        ctx[f"{split}_has_id"] = contains_words([ex.text for ex in ctx[split]], words)
        ctx[f"{split}_gold"] = np.array([ex.label for ex in ctx[split]])
    with torch.no_grad():  # flag (nearly) everything toxic, so that there are false positives to explain
        tiny.model.classifier.bias.copy_(torch.tensor([0.0, 5.0]))
    out = {s: rc.analyse(tiny, ctx, s, 32, draws=2, attribution=True) for s in ("dev", "test")}
    t = out["test"]
    n_id = int(((ctx["test_gold"] == 0) & ctx["test_has_id"]).sum())
    assert t["n_normal_identity"] == n_id > 0 and t["mask_token"] == "[MASK]"
    assert set(t["erasure"]) == {"delete", "mask", "person", "random_delete", "random_mask", "random_person"}
    rnd = t["erasure"]["random_delete"]
    assert rnd["draws"] == 2 and len(rnd["fpr_identity_per_draw"]) == 2
    assert rnd["identity_minus_random"]["n_examples"] == n_id
    assert sum(t["by_count"][b]["n"] for b in ("1", "2", "3+")) == n_id
    assert t["by_count"]["0"]["n"] == t["n_normal_other"]
    fp = t["false_positives"]
    assert fp["n_fp_identity"] == round(t["fpr_identity"] * n_id)
    assert fp["by_top_word"]["identity_top"]["fp"] + fp["by_top_word"]["other_top"]["fp"] == fp["n_fp_identity"]
    arm = rc.analyse(tiny, ctx, "test", 32, draws=1, attribution=False, placeholders=False)
    assert set(arm["erasure"]) == {"delete", "random_delete"} and "false_positives" not in arm

    doc = {
        "config": {"mode": "quick", "base_fine_tune": "trained here in 1 s", "random_draws": 2, "wall_seconds": 6},
        "environment": {"device_name": "cpu", "torch_threads": 1, "loadavg_start": [1, 1, 1], "loadavg_end": None},
        "models": {"base": out, "remove": {"0": {"test": arm}}},
    }
    doc["summary"] = rc.ceiling_summary(doc["models"])
    rows = tables.ceiling(doc)
    assert rows[0][:2] == ["none (the base)", f"{t['fpr_identity']:.3f}"]
    assert [r[0] for r in rows[1:]] == ["delete", "mask", "person"]
    # What counts is each erasure's drop beyond its random control.
    e = t["erasure"]
    t["fpr_identity"] = 0.25
    for name, fpr in (("delete", 0.225), ("random_delete", 0.24), ("mask", 0.15), ("random_mask", 0.16)):
        e[name].update(_erasure(fpr, 0.25))
    for name in ("person", "random_person"):
        e[name].update(_erasure(0.23, 0.25))
    doc["summary"] = rc.ceiling_summary(doc["models"])
    best = doc["summary"]["best_specific"]
    assert best["variant"] == "delete" and best["drop"] == pytest.approx(0.06) and not best["reaches_target"]
    rows = {r[0]: r for r in tables.ceiling(doc)}
    assert rows["mask"][1:3] == ["0.150", "40 %"] and rows["delete"][1:3] == ["0.225", "10 %"]
    e["random_mask"].update(_erasure(0.25, 0.25))
    doc["summary"] = rc.ceiling_summary(doc["models"])
    assert doc["summary"]["best_specific"]["variant"] == "mask"
