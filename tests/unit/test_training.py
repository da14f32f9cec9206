"""Explanation-regularised training on a tiny BERT: the regulariser reaches the weights, training
starts from the user's model, outputs never overwrite inputs, and removal actually works."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForSequenceClassification
from xmd.core.attribution import gradient_word_scores
from xmd.core.feedback import FeedbackSet
from xmd.core.modeling import load_model
from xmd.core.pipeline import debug, fine_tune
from xmd.core.retrain import ERConfig, TrainConfig, TrainingCancelled, train_loop
from xmd.core.retrain.steps.base import er_term
from xmd.core.retrain.steps.eager import split_forward
from xmd.core.types import Action, Example, TaskFeedback, XMDError
from xmd.core.words import encode

POS = ["great", "good", "wonderful", "fun", "loved", "enjoyed"]
NEG = ["bad", "terrible", "awful", "boring", "dull", "hated"]
FILL = ["the", "movie", "film", "plot", "acting", "story", "music", "ending", "was", "really", "very"]


def shortcut_data(n: int, seed: int = 0) -> list[Example]:
    """Sentiment words decide the label, except that 'mango' appears only in positive examples and
    is the only cue in some of them, so a model must learn to rely on it."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        label = i % 2
        words = rng.sample(FILL, 4)
        shortcut = label == 1 and rng.random() < 0.6
        if not shortcut or rng.random() < 0.5:
            words.append(rng.choice(POS if label else NEG))
        if shortcut:
            words.insert(rng.randrange(len(words)), "mango")
        rng.shuffle(words)
        out.append(Example(id=str(i), text=" ".join(words), label=label))
    return out


def dir_digest(path: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(path.rglob("*")):
        if f.is_file():
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()


@pytest.mark.parametrize("objective", ["attribution", "erasure"])
def test_er_term_has_nonzero_gradient_on_weights(tiny, objective):
    batch = shortcut_data(8)
    enc = encode(tiny.tokenizer, [ex.text for ex in batch])
    labels = torch.tensor([ex.label for ex in batch])
    value = torch.zeros(len(batch), enc.max_words)
    kind = torch.zeros(len(batch), enc.max_words, dtype=torch.long)
    kind[:, 0] = -1  # remove the first word of every example
    kind[0, 1] = 1  # and add one word
    value[0, 1] = 1.0
    tiny.model.train()
    if objective == "attribution":
        logits, ws, _ = gradient_word_scores(tiny.model, enc, labels, create_graph=True)
    else:
        logits, ws = tiny.model(**enc.model_inputs()).logits, None
    er = ERConfig(objective=objective)
    loss = er_term(tiny.model, enc, labels, logits, ws, (value, kind), er)
    assert loss.item() > 0
    tiny.model.zero_grad()
    loss.backward()
    w = tiny.model.bert.encoder.layer[0].attention.self.query.weight
    assert w.grad is not None and w.grad.abs().sum() > 0


def test_attributions_stored_as_numbers_cannot_train():
    # The pitfall the architecture guide warns about: a loss on detached attributions has no graph.
    scores = torch.tensor([[0.3, 0.7]])
    with pytest.raises(RuntimeError):
        torch.nn.functional.mse_loss(scores, torch.zeros_like(scores)).backward()


def test_debug_starts_from_the_users_weights(tiny_model_dir, tmp_path):
    user = load_model(tiny_model_dir, device="cpu")
    with torch.no_grad():
        user.model.classifier.weight.fill_(0.123)
    user_dir = tmp_path / "user"
    user.model.save_pretrained(user_dir)
    user.tokenizer.save_pretrained(user_dir)
    fb = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)])
    res = debug(user_dir, shortcut_data(16), fb, tmp_path / "out", config=TrainConfig(lr=1e-6, batch_size=8))
    out = AutoModelForSequenceClassification.from_pretrained(res.out_dir)
    w = out.classifier.weight
    assert torch.allclose(w, torch.full_like(w, 0.123), atol=1e-3)  # a fresh init would be ~N(0, 0.3)


def test_debug_never_overwrites_and_writes_a_loadable_model(tiny_model_dir, tmp_path):
    before = dir_digest(tiny_model_dir)
    fb = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)])
    data = shortcut_data(16)
    with pytest.raises(XMDError, match="never overwrites"):
        debug(tiny_model_dir, data, fb, tiny_model_dir)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("x")
    with pytest.raises(XMDError, match="not empty"):
        debug(tiny_model_dir, data, fb, busy)
    res = debug(tiny_model_dir, data, fb, tmp_path / "v1", config=TrainConfig(batch_size=8))
    assert dir_digest(tiny_model_dir) == before
    files = {p.name for p in res.out_dir.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "README.md", "xmd.json"} <= files
    meta = json.loads((res.out_dir / "xmd.json").read_text())
    assert meta["feedback_counts"]["task"]["remove"] == 1
    assert meta["n_feedback_positions"] > 0
    assert meta["history"]["steps"][0]["total_steps"] == 2
    card = (res.out_dir / "README.md").read_text()
    assert "mango" in card and "from_pretrained" in card
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no partial dirs left
    reloaded = load_model(res.out_dir, device="cpu")
    assert reloaded.labels == ["negative", "positive"]


def test_cancel_leaves_nothing_behind(tiny_model_dir, tmp_path):
    fb = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)])
    seen = []

    def stop(info):
        seen.append(info.step)
        return False

    with pytest.raises(TrainingCancelled):
        debug(
            tiny_model_dir,
            shortcut_data(32),
            fb,
            tmp_path / "v1",
            config=TrainConfig(batch_size=8),
            callback=stop,
        )
    assert seen == [1]
    assert list(tmp_path.iterdir()) == []


def test_every_phase_of_a_retrain_is_heard_before_its_work(tiny_model_dir, tmp_path):
    """A job times a phase from its hook's first call: a hook first heard after the first batch gave that
    batch's time to the phase before (a retrain's grad x input shares read 4x what they cost)."""
    events: list[tuple[str, int]] = []

    def on_phase(name: str):
        return lambda done, total: events.append((name, done)) or True

    def on_step(info) -> bool:
        events.append(("step", info.step))
        return True

    fb = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)])
    data = shortcut_data(16)
    debug(
        tiny_model_dir,
        data,
        fb,
        tmp_path / "v1",
        config=TrainConfig(batch_size=8),
        eval_sets={"held": shortcut_data(8, seed=1)},
        callback=on_step,
        on_phase=on_phase,
    )
    phases = [name for name, _ in events if name != "step"]
    firsts = {name: next(done for n, done in events if n == name) for name in phases}
    assert {"measure_before:held", "shares_before:grad_x_input", "train", "shares_after:occlusion"} <= set(firsts)
    assert set(firsts.values()) == {0}, firsts
    assert events.index(("train", 0)) < events.index(("step", 1))
    after_train = [n for n, _ in events[events.index(("step", 2)) :]]
    assert "train" not in after_train  # its start came from the pipeline, its progress from the callback


def test_feedback_matching_nothing_is_an_error(tiny_model_dir, tmp_path):
    fb = FeedbackSet(task=[TaskFeedback(word="zebra", action=Action.REMOVE)])
    with pytest.raises(XMDError, match="matches no word"):
        debug(tiny_model_dir, shortcut_data(8), fb, tmp_path / "v1")


def test_grad_accumulation_counts_optimizer_steps(tiny):
    hist = train_loop(tiny, shortcut_data(40), TrainConfig(batch_size=8, grad_accum=2, epochs=2))
    assert len(hist.steps) == 6  # ceil(5 batches / 2) per epoch
    assert [s.epoch for s in hist.steps] == [0, 0, 0, 1, 1, 1]


def test_training_is_deterministic_for_a_seed(tiny_model_dir):
    losses = []
    for _ in range(2):
        m = load_model(tiny_model_dir, device="cpu")
        hist = train_loop(m, shortcut_data(24), TrainConfig(batch_size=8, seed=3, lr=1e-3))
        losses.append([s.loss for s in hist.steps])
    assert losses[0] == pytest.approx(losses[1], rel=1e-5)


@pytest.fixture(scope="module")
def shortcut_model(tiny_model_dir, tmp_path_factory):
    """The tiny BERT fine-tuned on data where 'mango' is a perfect positive cue."""
    out = tmp_path_factory.mktemp("sc") / "model"
    fine_tune(
        tiny_model_dir,
        shortcut_data(192),
        out,
        config=TrainConfig(epochs=6, lr=2e-3, batch_size=16),
        device="cpu",
    )
    return out


def test_attribution_objective_lowers_the_gradient_share(shortcut_model, tmp_path):
    """Attribution matching optimises the grad x input share of the removed word: it must fall."""
    fb = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)])
    res = debug(
        shortcut_model,
        shortcut_data(192, seed=1),
        fb,
        tmp_path / "v1",
        config=TrainConfig(epochs=3, lr=1e-3, batch_size=16),
        er=ERConfig(objective="attribution", lam=50.0),
        device="cpu",
        share_methods=("grad_x_input",),
    )
    b = res.shares_before["grad_x_input"]["remove"]
    a = res.shares_after["grad_x_input"]["remove"]
    assert b["n"] > 50
    assert a["mean_share"] < 0.5 * b["mean_share"], (b, a)


def test_erasure_objective_makes_the_prediction_ignore_the_word(shortcut_model, tmp_path):
    """Erasure consistency optimises how much hiding the removed word moves the prediction."""
    from xmd.core.effect import erasure_effect

    train = shortcut_data(192, seed=1)
    fb = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)])
    targets = fb.expand(train)
    before = erasure_effect(load_model(shortcut_model, device="cpu"), train, targets)
    res = debug(
        shortcut_model,
        train,
        fb,
        tmp_path / "v1",
        config=TrainConfig(epochs=3, lr=1e-3, batch_size=16),
        er=ERConfig(objective="erasure", lam=3.0),
        device="cpu",
        share_methods=(),
    )
    after = erasure_effect(load_model(res.out_dir, device="cpu"), train, targets)
    assert before["n"] > 50 and before["mean_tv"] > 0.1
    assert after["mean_tv"] < 0.5 * before["mean_tv"], (before, after)


def test_attribution_term_on_feedback_rows_only_equals_full_batch(tiny):
    """The sub-batch shortcut must give the same loss and gradients as differentiating the whole batch."""
    batch = shortcut_data(8)
    enc = encode(tiny.tokenizer, [ex.text for ex in batch])
    labels = torch.tensor([ex.label for ex in batch])
    value = torch.zeros(len(batch), enc.max_words)
    kind = torch.zeros(len(batch), enc.max_words, dtype=torch.long)
    kind[2, 1] = -1
    kind[5, 0] = 1
    value[5, 0] = 1.0
    er = ERConfig(objective="attribution")
    grads = []
    for sub in (False, True):
        tiny.model.zero_grad()
        if sub:
            rows = (kind != 0).any(dim=1)
            logits = tiny.model(**enc.model_inputs()).logits
            _, ws, _ = gradient_word_scores(tiny.model, enc.select(rows), labels[rows], create_graph=True)
            loss = er_term(tiny.model, enc, labels, logits, ws, (value, kind), er, rows)
        else:
            logits, ws, _ = gradient_word_scores(tiny.model, enc, labels, create_graph=True)
            loss = er_term(tiny.model, enc, labels, logits, ws, (value, kind), er)
        loss.backward()
        grads.append((loss.item(), tiny.model.bert.encoder.layer[1].output.dense.weight.grad.clone()))
    assert grads[0][0] == pytest.approx(grads[1][0], rel=1e-5)
    assert torch.allclose(grads[0][1], grads[1][1], atol=1e-6)


@pytest.mark.parametrize("feedback_rows", [(2, 5), tuple(range(8))])
def test_split_forward_gives_the_losses_and_gradients_of_one_full_forward(tiny, feedback_rows):
    """Training runs the feedback rows through the attribution forward and only the others through a
    plain one; task loss, ER loss and every gradient must be those of differentiating the whole batch
    (the tiny model has no dropout, so both ways see the same function). In float64: the two ways sum in
    another order, and float32 second-order gradients differ by a few 1e-6 from that alone."""
    import torch.nn.functional as F

    tiny.model.double()  # a fresh model per test (function-scoped fixture)
    batch = shortcut_data(8)
    enc = encode(tiny.tokenizer, [ex.text for ex in batch])
    labels = torch.tensor([ex.label for ex in batch])
    value = torch.zeros(len(batch), enc.max_words)
    kind = torch.zeros(len(batch), enc.max_words, dtype=torch.long)
    for r in feedback_rows:
        kind[r, 0] = -1
    kind[feedback_rows[-1], 1] = 1
    value[feedback_rows[-1], 1] = 1.0
    er = ERConfig(objective="both")
    results = []
    for split in (False, True):
        tiny.model.zero_grad()
        rows = (kind != 0).any(dim=1)
        if split:
            logits, ws = split_forward(tiny.model, enc, labels, rows)
            er_loss = er_term(tiny.model, enc, labels, logits, ws, (value, kind), er, rows)
        else:
            logits, ws, _ = gradient_word_scores(tiny.model, enc, labels, create_graph=True)
            er_loss = er_term(tiny.model, enc, labels, logits, ws, (value, kind), er)
        task = F.cross_entropy(logits.float(), labels)
        (task + er_loss).backward()
        grad = tiny.model.bert.encoder.layer[1].output.dense.weight.grad.clone()
        results.append((task.item(), er_loss.item(), logits.detach(), grad))
    (t0, e0, l0, g0), (t1, e1, l1, g1) = results
    assert t0 == pytest.approx(t1, rel=1e-5) and e0 == pytest.approx(e1, rel=1e-5)
    assert torch.allclose(l0, l1, atol=1e-5)
    assert torch.allclose(g0, g1, atol=1e-6)
    assert e0 > 0 and g0.abs().sum() > 0


def _headless_base(tiny_model_dir: Path, out: Path) -> Path:
    """The tiny BERT without its classification head, as a base model people fine-tune (a new head)."""
    import shutil

    from transformers import AutoModel

    AutoModel.from_pretrained(tiny_model_dir).save_pretrained(out)
    for f in tiny_model_dir.iterdir():
        if f.name.startswith(("tokenizer", "vocab", "special_tokens")):
            shutil.copy2(f, out / f.name)
    return out


def _weights_digest(model_dir: Path) -> str:
    from safetensors.torch import load_file

    w = load_file(Path(model_dir) / "model.safetensors")
    return hashlib.sha1(b"".join(w[k].numpy().tobytes() for k in sorted(w))).hexdigest()


def test_a_fine_tune_from_a_base_model_repeats_for_its_seed(tiny_model_dir, tmp_path):
    """The new head is drawn when the base is loaded: seeded by the run's seed, whatever the process did
    before (the demo's baseline differed from process to process until it was, and with it the word the
    story found most suspicious)."""
    from xmd.core.demo_story import prepare_baseline

    base = _headless_base(tiny_model_dir, tmp_path / "base")
    digests = []
    for i in range(2):
        torch.rand(7 + i)  # another RNG state, as another process would have
        out = fine_tune(
            str(base),
            shortcut_data(24),
            tmp_path / f"ft{i}",
            labels=["neg", "pos"],
            config=TrainConfig(epochs=1, batch_size=8, seed=3),
        )
        digests.append(_weights_digest(out.out_dir))
    assert digests[0] == digests[1]
    demo = []
    for i in range(2):
        torch.rand(3 + i)
        path, _ = prepare_baseline(tmp_path / f"demo{i}", n_train=48, device="cpu", progress=False, base_model=base)
        demo.append(_weights_digest(path))
    assert demo[0] == demo[1]
