"""The ER options of issue 14's second round: the sign-aware *add* target, the counterfactual task loss and
the task scope. Each must change the loss where it should and nowhere else (constructed numbers, and the
tiny random BERT, which has no dropout, so two forwards of the same input agree)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F
from xmd.core.feedback import FeedbackSet
from xmd.core.modeling import load_model
from xmd.core.pipeline import debug, feedback_targets
from xmd.core.training import (
    ERConfig,
    TrainConfig,
    _attribution_term,
    _er_term,
    _erase,
    _feedback_tensors,
    signed_shares,
)
from xmd.core.types import Action, Example, InstanceFeedback, Scope, TaskFeedback
from xmd.core.words import encode


def _fake_enc(n_words: int) -> SimpleNamespace:
    """What the attribution term reads of an encoding: one token per word."""
    return SimpleNamespace(word_index=torch.arange(n_words).view(1, -1))


def _term(scores: list[float], kind: list[int], add_target: str) -> tuple[float, torch.Tensor]:
    ws = torch.tensor([scores], requires_grad=True)
    k = torch.tensor([kind])
    value = (k == 1).float()
    loss = _attribution_term(_fake_enc(len(scores)), ws, (value, k), ERConfig(add_target=add_target))
    (grad,) = torch.autograd.grad(loss, ws)
    return float(loss.detach()), grad[0]


def test_signed_shares_keep_the_sign_on_the_share_scale():
    s = signed_shares(torch.tensor([[0.6, -0.3, 0.1]]))
    assert s.tolist()[0] == pytest.approx([0.6, -0.3, 0.1])  # Σ|scores| = 1 here
    s = signed_shares(torch.tensor([[2.0, -2.0, 0.0, 4.0]]), torch.tensor([[True, True, True, False]]))
    assert s.tolist()[0] == pytest.approx([0.5, -0.5, 0.0, 0.0])  # masked-out words count for nothing


def test_add_target_signed_penalises_a_word_that_pushes_against_the_gold_label():
    # scores for the gold class; Σ|scores| = 1; 'add' on word 1, 'remove' on word 0
    against = [0.6, -0.3, 0.1]
    toward = [0.6, 0.3, 0.1]
    kind = [-1, 1, 0]
    remove_part = 0.6**2  # the removed word's share pulled to 0, the same in both modes
    # magnitude: |−0.3| = |0.3|, so the sign is ignored (the behaviour the benchmark found wrong)
    mag_against, g_mag = _term(against, kind, "magnitude")
    mag_toward, _ = _term(toward, kind, "magnitude")
    assert mag_against == pytest.approx(mag_toward) == pytest.approx((remove_part + 0.7**2) / 2)
    # signed: the word pushing against the gold label is 1.3 from the target, the one pushing toward it 0.7
    sig_against, g_sig = _term(against, kind, "signed")
    sig_toward, _ = _term(toward, kind, "signed")
    assert sig_against == pytest.approx((remove_part + 1.3**2) / 2)
    assert sig_toward == pytest.approx(mag_toward)
    # the gradient step (−grad) moves the add word's score up (toward the gold class) only when signed;
    # by magnitude it makes the negative score more negative
    assert g_sig[1] < 0 < g_mag[1]
    # no add word: both modes are the same loss
    assert _term(against, [-1, 0, 0], "signed")[0] == pytest.approx(_term(against, [-1, 0, 0], "magnitude")[0])


def test_add_target_is_an_option_with_signed_as_default():
    assert ERConfig().add_target == "signed"
    with pytest.raises(ValueError, match="add_target"):
        ERConfig(add_target="sideways").validate()


def _batch(tiny):
    texts = ["the mango was great", "a dull plot", "mango mango fun", "boring film", "loved the music", "bad ending"]
    labels = torch.tensor([1, 0, 1, 0, 1, 0])
    enc = encode(tiny.tokenizer, texts)
    return texts, labels, enc


def test_counterfactual_weight_adds_the_task_loss_of_the_erased_texts_only(tiny):
    tiny.model.eval()  # no dropout anyway; eval keeps it explicit
    _, labels, enc = _batch(tiny)
    value = torch.zeros(6, enc.max_words)
    kind = torch.zeros(6, enc.max_words, dtype=torch.long)
    kind[0, 1] = -1  # remove 'mango' in row 0 and both in row 2
    kind[2, 0] = kind[2, 1] = -1
    kind[4, 0] = 1  # an add word in row 4: no counterfactual for it
    value[4, 0] = 1.0
    fb = (value, kind)
    logits = tiny.model(**enc.model_inputs()).logits
    off = _er_term(tiny.model, enc, labels, logits, None, fb, ERConfig(objective="erasure"))
    on = _er_term(tiny.model, enc, labels, logits, None, fb, ERConfig(objective="erasure", counterfactual_weight=2.0))
    inputs, rows = _erase(enc, kind, -1)
    assert rows.tolist() == [True, False, True, False, False, False]
    cf = F.cross_entropy(tiny.model(**{k: v[rows] for k, v in inputs.items()}).logits, labels[rows])
    assert float((on - off).detach()) == pytest.approx(2.0 * float(cf.detach()), rel=1e-5)
    # with only add feedback the weight changes nothing
    only_add = (value, torch.where(kind == 1, kind, torch.zeros_like(kind)))
    a = _er_term(tiny.model, enc, labels, logits, None, only_add, ERConfig(objective="erasure"))
    b = _er_term(
        tiny.model, enc, labels, logits, None, only_add, ERConfig(objective="erasure", counterfactual_weight=2.0)
    )
    assert float(a.detach()) == pytest.approx(float(b.detach()))
    # it trains the model: the counterfactual term alone has a gradient on the weights
    tiny.model.zero_grad()
    (on - off).backward()
    w = tiny.model.bert.encoder.layer[0].attention.self.query.weight
    assert w.grad is not None and w.grad.abs().sum() > 0


def test_counterfactual_weight_is_off_by_default_and_bounded():
    assert ERConfig().counterfactual_weight == 0.0
    with pytest.raises(ValueError, match="counterfactual_weight"):
        ERConfig(counterfactual_weight=-1).validate()


def test_task_scope_keeps_task_feedback_on_the_scoped_examples_only(tiny):
    # The random tiny model predicts one class for everything; make it class 1, so the label-1 examples are
    # the correctly predicted ones.
    with torch.no_grad():
        tiny.model.classifier.bias.copy_(torch.tensor([0.0, 5.0]))
    texts, labels, _ = _batch(tiny)
    train = [Example(id=str(i), text=t, label=int(y)) for i, (t, y) in enumerate(zip(texts, labels, strict=True))]
    train.append(Example(id="6", text="mango and a dull story", label=0))
    fs = FeedbackSet(
        instance=[InstanceFeedback("1", 0, Action.ADD)],  # on an incorrectly predicted example
        task=[TaskFeedback("mango", Action.REMOVE)],
    )
    every = feedback_targets(tiny, train, fs, 32)
    assert set(every) == {"0", "1", "2", "6"}
    correct = feedback_targets(tiny, train, fs, 32, task_scope="correct")
    assert correct == {"0": every["0"], "2": every["2"], "1": every["1"]}  # instance feedback untouched
    incorrect = feedback_targets(tiny, train, fs, 32, task_scope="incorrect")
    assert incorrect == {"6": every["6"], "1": every["1"]}
    # a task feedback with its own scope keeps it
    own = FeedbackSet(task=[TaskFeedback("mango", Action.REMOVE, scope=Scope.CORRECT)])
    assert set(feedback_targets(tiny, train, own, 32, task_scope="incorrect")) == {"0", "2"}
    # the loss follows: on the batch, the ER term sees feedback only on the scoped rows
    enc = encode(tiny.tokenizer, [ex.text for ex in train])
    kinds = {
        scope: _feedback_tensors(train, feedback_targets(tiny, train, fs, 32, task_scope=scope), enc.max_words, "cpu")[
            1
        ]
        for scope in ("all", "correct")
    }
    rows_with = {scope: (k != 0).any(dim=1).tolist() for scope, k in kinds.items()}
    assert rows_with["all"] == [True, True, True, False, False, False, True]
    assert rows_with["correct"] == [True, True, True, False, False, False, False]
    assert torch.equal(kinds["all"][:6], kinds["correct"][:6])  # unchanged where the scope keeps the feedback
    assert ERConfig().task_scope == "all"
    with pytest.raises(ValueError, match="task_scope"):
        ERConfig(task_scope="some").validate()


def test_debug_applies_the_task_scope_and_records_it(tiny_model_dir, tmp_path):
    """``xmd debug --task-scope`` reaches the regularised positions: the random tiny model predicts one class
    for everything, so 'correct' keeps the task feedback on that class's examples only."""
    loaded = load_model(tiny_model_dir, device="cpu")
    train = [Example(id=str(i), text=f"mango film number {i}", label=i % 2) for i in range(8)]
    fs = FeedbackSet(task=[TaskFeedback("mango", Action.REMOVE)])
    predicted = int(loaded.model(**encode(loaded.tokenizer, [train[0].text]).model_inputs()).logits.argmax())
    cfg = TrainConfig(epochs=1, batch_size=4, max_length=16)
    runs = {
        scope: debug(
            tiny_model_dir,
            train,
            fs,
            tmp_path / scope,
            config=cfg,
            er=ERConfig(objective="erasure", task_scope=scope),
            device="cpu",
            share_methods=("grad_x_input",),
        )
        for scope in ("all", "correct")
    }
    assert runs["all"].meta["n_feedback_examples"] == 8
    assert runs["correct"].meta["n_feedback_examples"] == sum(ex.label == predicted for ex in train) == 4
    assert runs["correct"].meta["er"]["task_scope"] == "correct"
