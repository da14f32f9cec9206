"""The pieces of ``bench/real_data/real_data.py`` on the real HateXplain files, with the tiny model for the arms.

The benchmark itself (MiniLM, minutes to an hour) lives in bench/; here each piece is checked fast: CSV
parsing and rationale alignment, the identity-word derivation, the deletion control, the statistics on
constructed numbers, and every arm once on a few posts with the tiny random BERT.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from xmd.core.types import DataError
from xmd.core.words import split_words

from bench.real_data import hatexplain as hx
from bench.real_data import real_data_stats as rs


def _row(tokens, labels=(0, 0, 2), targets=None, rationales=None) -> dict[str, str]:
    targets = targets or [["African"], ["African"], ["None"]]
    return {
        "id": "p1",
        "annotators": repr({"label": list(labels), "annotator_id": [1, 2, 3], "target": targets}),
        "rationales": repr(rationales or []),
        "post_tokens": repr(tokens),
    }


def test_parse_row_majority_targets_and_rationale_on_xmd_words():
    tokens = ["<user>", "those", "black", "people", "don't", "belong", "here", "😭"]
    rats = [[0, 0, 1, 0, 0, 1, 0, 0], [1, 0, 1, 0, 0, 1, 1, 0], [1, 0, 0, 1, 0, 0, 0, 0]]
    post = hx.parse_row(_row(tokens, rationales=rats))
    assert post.label == hx.TOXIC  # hatespeech, hatespeech, offensive
    assert post.targets == ["African"]  # 'None' and single-annotator targets are dropped
    assert post.rationale_tokens == [1, 0, 1, 0, 0, 1, 0, 0]  # >= 2 of 3 annotators
    words = split_words(post.text)[0]
    assert words[:3] == ["<", "user", ">"]  # the placeholder is three xmd words, all marked
    marked = [w for w, m in zip(words, post.word_rationale(), strict=True) if m]
    assert marked == ["<", "user", ">", "black", "belong"]
    assert post.token_words[4] == [6]  # "don't" is one xmd word
    normal = hx.parse_row(_row(["fine", "day"], labels=(1, 1, 2)))
    assert normal.label == 0 and normal.rationale_tokens is None and normal.word_rationale() is None


def test_parse_row_rejects_bad_rows():
    with pytest.raises(DataError, match="no majority"):
        hx.parse_row(_row(["a"], labels=(0, 1, 2)))
    with pytest.raises(DataError, match="2 flags for 3 tokens"):
        hx.parse_row(_row(["a", "b", "c"], rationales=[[0, 1]]))
    bad = _row(["a"])
    bad["post_tokens"] = "['a'"
    with pytest.raises(DataError, match="post_tokens"):
        hx.parse_row(bad)


@pytest.fixture(scope="module")
def val_posts():
    return hx.load_posts(hx.data_dir() / "val.csv")


def test_real_files_split_and_identity_words(val_posts, tmp_path):
    assert len(val_posts) == 1922
    assert sum(p.label == 0 for p in val_posts) == 781  # README: 781 normal in the validation split
    train, dev = hx.stratified_split(val_posts, 0.2, seed=0)
    assert {p.id for p in train}.isdisjoint(p.id for p in dev) and len(train) + len(dev) == 1922
    assert abs(np.mean([p.label for p in dev]) - np.mean([p.label for p in val_posts])) < 0.01
    assert hx.stratified_split(val_posts, 0.2, seed=0)[1] == dev  # seeded
    words, record = hx.derive_identity_words(train)
    assert {"black", "jews", "muslims", "women", "gay"} <= set(words)
    assert not {"nigger", "kike", "faggot", "moslem"} & set(words)  # slurs are toxic evidence, not identity
    for w, info in record["words"].items():
        assert info["train_posts"] >= 3 and w in hx.SURFACE_FORMS[info["community"]]
    assert "Men" not in record["communities"]  # too few train posts name it
    path = hx.write_word_list(words, tmp_path / "w.txt")
    assert path.read_text().splitlines() == words
    rat = [p for p in val_posts if p.word_rationale() is not None]
    assert 900 < len(rat) < 1141  # the README's 1,141 posts with rationales, fewer once >= 2 must agree
    for p in rat[:200]:
        assert len(p.word_rationale()) == len(split_words(p.text)[0])


def test_core_evaluation_mode_and_deletion_agree_with_the_benchmark_data(val_posts):
    """The core's rationale import and deletion control, run on the real rows, give what the benchmark expects."""
    from xmd.core.align import content_words
    from xmd.core.compare import contains_words
    from xmd.core.deletion import delete_feedback_words
    from xmd.core.simulate import feedback_from_rationales

    from bench.real_data import real_data as rd

    train_posts, _ = hx.stratified_split(val_posts, 0.2, seed=0)
    words, _ = hx.derive_identity_words(train_posts)
    train = [p.example("train") for p in train_posts]
    everything_right = {p.id: p.label for p in train_posts}
    fs, summary = feedback_from_rationales(
        train, "rationales", tokens_column="post_tokens", min_agreement=2, only="correct", predictions=everything_right
    )
    added: dict[str, set[int]] = {}
    for f in fs.instance:
        assert f.action.value == "add" and f.source == "simulated:rationales:rationales"
        added.setdefault(f.example_id, set()).add(f.word_index)
    # The benchmark measures plausibility against every xmd word of a marked token; the core's import leaves out
    # the punctuation pieces of a multi-word token (the < and > of <user>), and nothing else differs.
    expected = {}
    for p in train_posts:
        mask = p.word_rationale()
        if mask is None:
            continue
        words_of = split_words(p.text)[0]
        expected[p.id] = (
            {i for tok in p.token_words for i in (content_words(tok, words_of) if mask[tok[0]] else [])}
            if any(mask)
            else set()
        )
    assert added == expected and summary.n_examples == len(expected) > 800
    targets = rd.task_feedback(words).expand(train, num_labels=2)
    cleaned, n_deleted = delete_feedback_words(train, targets)
    assert n_deleted == sum(len(t) for t in targets.values()) > 300
    assert not contains_words([ex.text for ex in cleaned], words).any()
    assert contains_words([ex.text for ex in train], words).sum() == len(targets)
    kept = next(ex for ex in cleaned if ex.id in targets and "<user>" in ex.text)
    assert "<user>" in kept.text and "  " not in kept.text  # only the identity words' spans go


def test_split_metrics_identity_fpr():
    gold = np.array([0, 0, 0, 0, 1, 1])
    pred = np.array([1, 0, 1, 0, 1, 0])
    has_id = np.array([True, True, False, False, True, False])
    m = rs.split_metrics(pred, gold, has_id)
    assert m["fpr_identity"] == 0.5 and m["fpr_other"] == 0.5 and m["n_normal_identity"] == 2
    assert m["accuracy"] == pytest.approx(3 / 6)


def test_bootstrap_and_verdict_on_constructed_numbers():
    rng = np.random.default_rng(0)
    a = [rng.random(400) < 0.2 for _ in range(3)]
    b = [rng.random(400) < 0.6 for _ in range(3)]
    boot = rs.paired_bootstrap(a, b)
    assert boot["ci95"][0] < boot["diff"] < boot["ci95"][1] < 0
    same = rs.paired_bootstrap(a, a)
    assert same["diff"] == 0 and same["ci95"] == [0.0, 0.0]
    # Two seeds of predictions on 200 normal posts with an identity word and 200 toxic posts: the debugged arm
    # flags 10 % of the normal ones, the control 50 %; accuracy follows. The core's comparison decides.
    gold = np.array([0] * 200 + [1] * 200)
    has_id = np.ones(400, dtype=bool)

    def run(arm: str, seed: int, fp: float) -> dict:
        pred = np.r_[(rng.random(200) < fp).astype(int), np.ones(200, dtype=int)]
        m = rs.split_metrics(pred, gold, has_id)
        return {"arm": arm, "seed": seed, "test_pred": "".join(map(str, pred)), "test": m, "dev": m}

    runs = [run("remove", s, 0.1) for s in (0, 1)] + [run("lambda0", s, 0.5) for s in (0, 1)]
    fpr = rs.compare(runs, "remove", "lambda0", "fpr_identity", False, gold, has_id)
    assert fpr["verdict"] == "better" and fpr["diff"] < -0.3 and fpr["seeds"] == [0, 1]
    assert rs.compare(runs, "remove", "lambda0", "accuracy", True, gold, has_id)["verdict"] == "better"
    assert rs.compare(runs, "lambda0", "remove", "fpr_identity", False, gold, has_id)["verdict"] == "worse"
    assert rs.compare(runs, "remove", "remove", "accuracy", True, gold, has_id)["verdict"] == "within_noise"
    assert rs.compare(runs, "remove", "deletion", "accuracy", True, gold, has_id) is None  # no such control


def test_every_arm_once_with_the_tiny_model(val_posts, tiny):
    """Each arm trains the same steps from the same weights; λ = 0 repeats exactly; the ER arms carry a loss."""
    from bench.real_data import real_data as rd

    train_posts, dev_posts = hx.stratified_split(val_posts, 0.2, seed=0)
    words, _ = hx.derive_identity_words(train_posts)
    train_posts = hx.subsample(train_posts, 48, seed=0)
    test_posts = hx.subsample(hx.load_posts(hx.data_dir() / "test.csv"), 40, seed=0)
    mode = dict(epochs=1, max_length=32, share_n=4)
    ctx = {
        "train": [p.example("train") for p in train_posts],
        "dev": [p.example("dev") for p in hx.subsample(dev_posts, 20, seed=0)],
        "test": [p.example("test") for p in test_posts],
        "train_posts": train_posts,
        "test_posts": test_posts,
        "words": words,
        "keys": set(words),
    }
    # The random tiny model predicts one class for everything; make it *toxic*, so that the toxic training posts
    # count as correctly predicted and receive rationale feedback, as they do with the fine-tuned MiniLM.
    with torch.no_grad():
        tiny.model.classifier.bias.copy_(torch.tensor([0.0, 5.0]))
    rd.prepare(ctx, mode, tiny)
    assert ctx["remove_targets"] and ctx["add_targets"]
    assert all(a.value == "add" for t in ctx["add_targets"].values() for a in t.values())
    args = rd.parse_args([])
    runs = [rd.run_arm(arm, 0, ctx, mode, args) for arm in ("lambda0", "remove", "deletion", "rationale_add")]
    again = rd.run_arm("lambda0", 0, ctx, mode, args)
    assert again["test_pred"] == runs[0]["test_pred"]  # same seed, same data order: the control repeats
    assert len({r["steps"] for r in runs}) == 1  # every arm takes the same number of steps
    assert runs[0]["final_er_loss"] == 0 and runs[2]["final_er_loss"] == 0
    assert runs[1]["final_er_loss"] > 0 and runs[3]["final_er_loss"] > 0
    for r in runs:
        assert 0 <= r["test"]["accuracy"] <= 1 and len(r["test_pred"]) == 40
    assert 0 <= runs[1]["shares"]["occlusion"] <= 1 and "plausibility" in runs[3]
    summary = rs.summarise(ctx["base"], runs, ctx["test_gold"], ctx["test_has_id"])
    assert set(summary["arms"]) == {"lambda0", "remove", "deletion", "rationale_add"}
    c = summary["comparisons"]["rationale_add_vs_lambda0:auprc"]
    assert c["verdict"] in ("better", "worse", "within_noise") and c["seeds"] == [0]
    assert "fpr_identity_relative_drop" in summary["targets"]


def test_er_options_reach_the_benchmark_arms_from_the_command_line():
    """The integrator runs dev candidates with ER options: as flags (every debugged arm) and per arm spec
    (``+setting=value``); a setting removed from ``ERConfig`` (docs/settings.md) is refused."""
    import subprocess

    from xmd.core.types import Example

    from bench.real_data import real_data as rd

    args = rd.parse_args(["--attribution-every", "2", "--attribution-rows", "4"])
    name, er = rd.parse_spec("remove:erasure:2", args)
    assert name == "remove" and (er.objective, er.lam) == ("erasure", 2.0)
    assert (er.attribution_every, er.attribution_rows) == (2, 4)
    _, er = rd.parse_spec("rationale_add+attribution_every=3+attribution_weight=2", args)
    assert (er.attribution_every, er.attribution_weight, er.attribution_rows) == (3, 2.0, 4)
    defaults = rd.parse_args([])
    assert rd.parse_spec("remove", defaults)[1] == rd.ERConfig()  # the core's defaults
    for bad in ("remove+nope=1", "remove+task_scope=correct", "remove+objective=some", "remove+attribution_every"):
        with pytest.raises(SystemExit):
            rd.parse_spec(bad, defaults)
    with pytest.raises(SystemExit):
        rd.parse_args(["--attribution-every", "some"])

    # the scoped arms: the base "predicts" toxic (1) for everything, so only the toxic post is correctly predicted
    train = [
        Example(id="a", text="the jews are fine", label=0),
        Example(id="b", text="black people are vermin", label=1),
        Example(id="c", text="a quiet day", label=0),
    ]
    ctx = {"train": train, "words": ["jews", "black"], "train_pred": {"a": 1, "b": 1, "c": 1}}
    ctx["remove_targets"] = rd.task_feedback(ctx["words"]).expand(train, num_labels=2)
    assert set(ctx["remove_targets"]) == {"a", "b"}
    _, targets, _ = rd.arm_training("remove_correct", ctx, defaults)
    assert set(targets) == {"b"}
    cleaned, _, _ = rd.arm_training("deletion", ctx, defaults)
    assert [("jews" in ex.text, "black" in ex.text) for ex in cleaned] == [(False, False)] * 3
    assert cleaned[2].text == "a quiet day"
    _, targets, _ = rd.arm_training("remove", ctx, defaults)
    assert targets == ctx["remove_targets"]

    root = Path(__file__).resolve().parents[2]
    help_text = subprocess.run(
        [sys.executable, "-m", "bench.real_data.real_data_dev", "--help"],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
    ).stdout
    for flag in ("--attribution-every", "--attribution-rows"):
        assert flag in help_text
