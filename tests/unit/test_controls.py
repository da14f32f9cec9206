"""The debug run beside its controls on a tiny BERT: the arms differ only where they should (same
parent, batches, steps and seeds), the deletion arm deletes exactly the removed words, λ = 0 is plain
continued training, and nothing is overwritten."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from xmd.core.controls import ControlsConfig, run_comparison
from xmd.core.deletion import delete_feedback_words, delete_positions
from xmd.core.feedback import FeedbackSet
from xmd.core.forecast import strip_words
from xmd.core.modeling import load_model, save_model
from xmd.core.pipeline import debug, fine_tune
from xmd.core.predict import predict_proba
from xmd.core.retrain import ERConfig, TrainConfig, token_lengths, train_loop
from xmd.core.types import Action, Example, InstanceFeedback, TaskFeedback, XMDError
from xmd.core.words import split_words

POS = ["great", "good", "wonderful", "fun", "loved"]
NEG = ["bad", "terrible", "awful", "boring", "dull"]
FILL = ["the", "movie", "film", "plot", "acting", "story", "music", "ending", "was", "really"]


def data(n: int, seed: int = 0) -> list[Example]:
    """'mango' appears mostly in positive examples: the shortcut the feedback removes."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        label = i % 2
        words = [*rng.sample(FILL, 3), rng.choice(POS if label else NEG)]
        if rng.random() < (0.7 if label else 0.15):
            words.insert(rng.randrange(len(words)), "mango")
        out.append(Example(id=f"e{i}", text=" ".join(words) + " .", label=label))
    return out


def digest(path: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(path.rglob("*")):
        if f.is_file():
            h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()


def weights(path: Path) -> dict[str, torch.Tensor]:
    return load_file(str(path / "model.safetensors"))


def same_weights(a: Path, b: Path) -> bool:
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


@pytest.mark.parametrize(
    ("text", "drop"),
    [
        ("the mango movie", {1}),
        ("mango the movie", {0}),
        ("the movie mango", {2}),
        ("anti-mango x", {1}),  # deleting "-" must not glue "anti" and "mango"
        ("don't , mango", {1, 2}),
        ("  spaced   out  text ", {1}),
        ("Jews. <user> jews", {0, 5}),
        ("all gone", {0, 1}),
    ],
)
def test_delete_positions_removes_those_words_and_nothing_else(text, drop):
    words = split_words(text)[0]
    assert split_words(delete_positions(text, drop))[0] == [w for i, w in enumerate(words) if i not in drop]


def test_deletion_training_set_follows_the_feedback_expansion():
    train = data(30)
    fb = FeedbackSet(
        instance=[
            InstanceFeedback("e0", 0, Action.REMOVE),  # instance-level remove: only in e0
            InstanceFeedback("e1", 1, Action.ADD),  # e1's word 1 is "mango": instance add beats task remove
        ],
        task=[TaskFeedback("MANGO", Action.REMOVE)],
    )
    targets = fb.expand(train)
    cleaned, n = delete_feedback_words(train, targets)
    assert [(c.id, c.label) for c in cleaned] == [(e.id, e.label) for e in train]
    removed = 0
    for before, after in zip(train, cleaned, strict=True):
        words = split_words(before.text)[0]
        drop = {i for i, a in targets.get(before.id, {}).items() if a == Action.REMOVE}
        removed += len(drop)
        assert split_words(after.text)[0] == [w for i, w in enumerate(words) if i not in drop]
        assert ("mango" in after.text) == (before.id == "e1")
    assert n == removed > 0
    assert split_words(train[1].text)[0][1] == "mango"
    assert split_words(cleaned[0].text)[0] == split_words(train[0].text)[0][1:]


@pytest.fixture(scope="module")
def parent(tiny_model_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("parent") / "model"
    fine_tune(tiny_model_dir, data(48), out, config=TrainConfig(epochs=2, lr=1e-3, batch_size=8))
    return out


CONFIG = TrainConfig(epochs=2, lr=5e-4, batch_size=8, seed=3)
ER = ERConfig(objective="both", lam=1.0)
FEEDBACK = FeedbackSet(task=[TaskFeedback("mango", Action.REMOVE)])


@pytest.fixture(scope="module")
def comparison(parent, tiny_model_dir, tmp_path_factory):
    calls: list[tuple] = []
    before = digest(parent)
    cmp = run_comparison(
        parent,
        data(40, seed=1),
        FEEDBACK,
        tmp_path_factory.mktemp("cmp") / "out",
        config=CONFIG,
        er=ER,
        eval_sets={"dev": data(30, seed=2)},
        controls=ControlsConfig(
            arms=("lambda0", "deletion", "deletion_base", "strip"),
            seeds=2,
            base_model=str(tiny_model_dir),
            share_methods=("grad_x_input",),
            n_resamples=200,
        ),
        device="cpu",
        batch_hook=lambda arm, seed, epoch, bi, ids: calls.append((arm, seed, epoch, bi, tuple(ids))),
    )
    assert digest(parent) == before  # the parent is never touched
    return cmp, calls


def test_arms_share_batches_steps_and_seeds(comparison):
    cmp, calls = comparison
    assert cmp.arms == ["debug", "lambda0", "deletion", "deletion_base", "strip"] and cmp.seeds == [3, 4]
    trained = cmp.arms[:-1]  # strip trains nothing: it predicts with the λ = 0 arm
    order = {}
    for arm, seed, epoch, bi, ids in calls:
        order.setdefault((arm, seed), []).append((epoch, bi, ids))
    assert set(order) == {(a, s) for a in trained for s in cmp.seeds}
    for seed in cmp.seeds:
        ref = order[("debug", seed)]
        assert len(ref) == 10 and all(order[(a, seed)] == ref for a in trained)  # 2 epochs x 5 batches
    assert order[("debug", 3)] != order[("debug", 4)]  # a different seed is a different order
    assert cmp.settings["same_data_order"] is True
    for run in cmp.runs:
        meta = json.loads((Path(run["out_dir"]) / "xmd.json").read_text())
        assert meta["train"]["seed"] == run["seed"] and meta["arm"] == run["arm"]
        assert run["steps"] == 10
        # deletion_base retrains with the user's recipe, read from the parent's xmd.json (lr 1e-3).
        assert meta["train"]["lr"] == (1e-3 if run["arm"] == "deletion_base" else CONFIG.lr)
        assert (meta["er"] or {}).get("lam") == {"debug": 1.0, "lambda0": 0.0}.get(run["arm"])
    assert len({r["out_dir"] for r in cmp.runs}) == 8
    assert len({r["data_order"] for r in cmp.runs if r["seed"] == 3}) == 1


def test_debug_arm_equals_xmd_debug_and_lambda0_equals_plain_continued_training(comparison, parent, tmp_path):
    cmp, _ = comparison
    runs = {(r["arm"], r["seed"]): Path(r["out_dir"]) for r in cmp.runs}
    train = data(40, seed=1)
    config = TrainConfig(**{**CONFIG.__dict__, "seed": 4})
    debug(parent, train, FEEDBACK, tmp_path / "dbg", config=config, er=ER, device="cpu", share_methods=())
    assert same_weights(runs[("debug", 4)], tmp_path / "dbg")
    fine_tune(parent, train, tmp_path / "plain", config=config, device="cpu")
    assert same_weights(runs[("lambda0", 4)], tmp_path / "plain")
    assert not same_weights(runs[("debug", 4)], runs[("lambda0", 4)])  # the ER term did change something
    cleaned, _ = delete_feedback_words(train, FEEDBACK.expand(train))
    # Plain training on the cleaned texts in the debug run's batches: length buckets follow the original
    # texts' token counts, so deleting words does not reshuffle the data order.
    loaded = load_model(parent, device="cpu")
    train_loop(loaded, cleaned, config, order_lengths=token_lengths(loaded, train, config.max_length))
    save_model(loaded, tmp_path / "deleted")
    assert same_weights(runs[("deletion", 4)], tmp_path / "deleted")
    fine_tune(parent, cleaned, tmp_path / "reshuffled", config=config, device="cpu")
    assert not same_weights(runs[("deletion", 4)], tmp_path / "reshuffled")  # the order_lengths really matter


def test_comparison_result_shape_and_files(comparison):
    cmp, _ = comparison
    d = json.loads(json.dumps(cmp.to_dict()))
    assert d == json.loads((cmp.out_dir / "comparison.json").read_text())
    assert d["removed_words"] == ["mango"] and d["positive"] == {"index": 1, "label": "positive", "rule": "word_lift"}
    dev = d["sets"]["dev"]
    assert dev["n"] == 30 and len(dev["gold"]) == 30 and sum(dev["has_words"]) > 0
    assert [len(dev["predictions"][a]) for a in cmp.arms] == [2, 2, 2, 2, 2]
    assert len(dev["predictions"]["parent"]) == 30
    for arm in cmp.arms:
        acc = [sum(p == g for p, g in zip(pred, dev["gold"], strict=True)) / 30 for pred in dev["predictions"][arm]]
        assert [m["accuracy"] for m in dev["arms"][arm]["per_seed"]] == pytest.approx(acc)
    assert set(dev["differences"]) == {"lambda0", "deletion", "deletion_base", "strip"}
    for metric in ("accuracy", "macro_f1", "fpr_words"):
        row = dev["differences"]["lambda0"][metric]
        assert row["verdict"] in ("better", "worse", "within_noise")
        if row["diff"] is not None:
            assert row["ci_low"] <= row["diff"] <= row["ci_high"]
        assert dev["verdicts"][metric]["text"] in ("better than all controls", "worse", "within noise")
    assert d["shares"]["before"]["grad_x_input"]["remove"]["n"] > 0
    assert all(r["shares_after"]["grad_x_input"]["remove"]["n"] > 0 for r in d["runs"])
    card = (Path(d["runs"][0]["out_dir"]) / "README.md").read_text()
    assert "## Compared with controls" in card and "| dev | fpr_words |" in card
    control_card = (Path(d["runs"][1]["out_dir"]) / "README.md").read_text()
    assert "A **control** (`lambda0`, seed 3)" in control_card
    assert "accuracy" in cmp.table() and "Δ vs deletion_base" in cmp.table()


def test_strip_is_each_lambda0_model_predicting_without_the_words(comparison):
    cmp, _ = comparison
    d = cmp.to_dict()
    assert d["settings"]["strip"] == {"words": ["mango"], "from": "lambda0"}
    dev = data(30, seed=2)
    stripped = [strip_words(ex.text, {"mango"}) for ex in dev]
    assert any(a != b.text for a, b in zip(stripped, dev, strict=True))
    lambda0 = {r["seed"]: r["out_dir"] for r in cmp.runs if r["arm"] == "lambda0"}
    for i, seed in enumerate(cmp.seeds):
        pred = predict_proba(load_model(lambda0[seed], device="cpu"), stripped, max_length=CONFIG.max_length)
        assert d["sets"]["dev"]["predictions"]["strip"][i] == pred.argmax(axis=1).tolist()
    assert "strip" not in {r["arm"] for r in cmp.runs}  # no model is trained or written for it


def test_strip_without_lambda0_uses_the_parent_and_says_when_it_does_as_well(parent, tmp_path):
    dev = data(12, seed=2)
    cmp = run_comparison(
        parent,
        data(16),
        FEEDBACK,
        tmp_path / "out",
        config=TrainConfig(epochs=1, batch_size=8),
        eval_sets={"dev": dev},
        controls=ControlsConfig(arms=("strip",), share_methods=(), n_resamples=50),
        device="cpu",
    )
    d = cmp.to_dict()
    assert cmp.arms == ["debug", "strip"] and d["settings"]["strip"]["from"] == "parent"
    pred = predict_proba(load_model(parent, device="cpu"), [strip_words(ex.text, {"mango"}) for ex in dev])
    assert d["sets"]["dev"]["predictions"]["strip"] == [pred.argmax(axis=1).tolist()]
    rows = d["sets"]["dev"]["differences"]["strip"]
    said = any("stripping the corrected words" in n for n in d["notes"])
    assert said == all(rows[m]["verdict"] != "better" for m in ("accuracy", "fpr_words"))
    card = (Path(d["runs"][0]["out_dir"]) / "README.md").read_text()
    assert "`strip` = no training" in card and ("a filter may be all this task needs" in card) == said


def test_comparison_never_overwrites_and_checks_its_settings(comparison, parent, tiny_model_dir, tmp_path):
    cmp, _ = comparison
    before = digest(cmp.out_dir)
    with pytest.raises(XMDError, match="not empty"):
        run_comparison(parent, data(8), FEEDBACK, cmp.out_dir, config=CONFIG, device="cpu")
    with pytest.raises(XMDError, match="is the input model"):
        run_comparison(parent, data(8), FEEDBACK, parent, config=CONFIG, device="cpu")
    assert digest(cmp.out_dir) == before
    with pytest.raises(ValueError, match="base model"):
        run_comparison(parent, data(8), FEEDBACK, tmp_path / "x", controls=ControlsConfig(arms=("deletion_base",)))
    with pytest.raises(ValueError, match="distinct names"):
        run_comparison(parent, data(8), FEEDBACK, tmp_path / "x", controls=ControlsConfig(arms=("lambda1",)))
    assert not (tmp_path / "x").exists()


def test_add_only_feedback_skips_deletion_and_reports_explanation_quality(parent, tmp_path):
    fb = FeedbackSet(task=[TaskFeedback("great", Action.ADD)])
    cues = set(POS + NEG)
    dev = [replace(ex, meta={"why": [w for w in ex.text.split() if w in cues]}) for ex in data(10, seed=2)]
    cmp = run_comparison(
        parent,
        data(16),
        fb,
        tmp_path / "out",
        config=TrainConfig(epochs=1, batch_size=8),
        eval_sets={"dev": dev},
        controls=ControlsConfig(
            share_methods=(), n_resamples=50, quality_method="grad_x_input", rationale_column="why", quality_limit=6
        ),
        device="cpu",
    )
    assert cmp.arms == ["debug", "lambda0"] and "skipped" in cmp.notes[0]
    assert cmp.positive is None and "fpr_words" not in cmp.sets["dev"]["verdicts"]
    before = cmp.quality["before"]["dev"]
    assert before["n"] == 6 and before["n_rationales"] == 6 and 0 <= before["auprc"] <= 1
    for arm in ("debug", "lambda0"):
        after = cmp.quality["after"][arm]["dev"]
        assert set(after["mean"]) == {"aopc_comprehensiveness", "aopc_sufficiency", "auprc", "token_f1"}
        assert after["std"]["auprc"] == 0.0  # one seed: no spread to measure
