"""The ER term's reading of feedback: the sign-aware *add* target and the task scope of task feedback
(``feedback_targets``). Constructed numbers, and the tiny random BERT, which has no dropout. The settings
that chose otherwise (``add_target``, ``counterfactual_weight``, ``task_scope``) were removed on their
measurements (docs/settings.md)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from xmd.core.feedback import FeedbackSet
from xmd.core.options import build
from xmd.core.pipeline import feedback_targets
from xmd.core.retrain import ERConfig
from xmd.core.retrain.batching import feedback_tensors
from xmd.core.retrain.objective import attribution_term, signed_shares
from xmd.core.types import Action, Example, InstanceFeedback, Scope, TaskFeedback
from xmd.core.words import encode


def _fake_enc(n_words: int) -> SimpleNamespace:
    """What the attribution term reads of an encoding: one token per word."""
    return SimpleNamespace(word_index=torch.arange(n_words).view(1, -1))


def _term(scores: list[float], kind: list[int]) -> tuple[float, torch.Tensor]:
    ws = torch.tensor([scores], requires_grad=True)
    k = torch.tensor([kind])
    loss = attribution_term(_fake_enc(len(scores)).word_index, ws, k)
    (grad,) = torch.autograd.grad(loss, ws)
    return float(loss.detach()), grad[0]


def test_signed_shares_keep_the_sign_on_the_share_scale():
    s = signed_shares(torch.tensor([[0.6, -0.3, 0.1]]))
    assert s.tolist()[0] == pytest.approx([0.6, -0.3, 0.1])  # Σ|scores| = 1 here
    s = signed_shares(torch.tensor([[2.0, -2.0, 0.0, 4.0]]), torch.tensor([[True, True, True, False]]))
    assert s.tolist()[0] == pytest.approx([0.5, -0.5, 0.0, 0.0])  # masked-out words count for nothing


def test_an_add_word_pushing_against_the_gold_label_is_penalised():
    # scores for the gold class; Σ|scores| = 1; 'add' on word 1, 'remove' on word 0
    against = [0.6, -0.3, 0.1]
    toward = [0.6, 0.3, 0.1]
    kind = [-1, 1, 0]
    remove_part = 0.6**2  # the removed word's share pulled to 0
    # the word pushing against the gold label is 1.3 from the target, the one pushing toward it 0.7
    sig_against, g_sig = _term(against, kind)
    sig_toward, _ = _term(toward, kind)
    assert sig_against == pytest.approx((remove_part + 1.3**2) / 2)
    assert sig_toward == pytest.approx((remove_part + 0.7**2) / 2)
    # the gradient step (−grad) moves the add word's score up, toward the gold class
    assert g_sig[1] < 0


def test_removed_settings_are_refused_where_a_config_is_made_and_ignored_where_one_is_read():
    """docs/settings.md: a setting removed by evidence is no field (TypeError), while a stored job's
    params that still carry it build the config without it."""
    with pytest.raises(TypeError):
        ERConfig(add_target="magnitude")  # type: ignore[call-arg]
    er = build(ERConfig, {"lam": 2.0, "add_target": "magnitude", "early_stop": True, "task_scope": "correct"})
    assert er == ERConfig(lam=2.0)


def _batch(tiny):
    texts = ["the mango was great", "a dull plot", "mango mango fun", "boring film", "loved the music", "bad ending"]
    labels = torch.tensor([1, 0, 1, 0, 1, 0])
    enc = encode(tiny.tokenizer, texts)
    return texts, labels, enc


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
        scope: feedback_tensors(train, feedback_targets(tiny, train, fs, 32, task_scope=scope), enc.max_words, "cpu")[1]
        for scope in ("all", "correct")
    }
    rows_with = {scope: (k != 0).any(dim=1).tolist() for scope, k in kinds.items()}
    assert rows_with["all"] == [True, True, True, False, False, False, True]
    assert rows_with["correct"] == [True, True, True, False, False, False, False]
    assert torch.equal(kinds["all"][:6], kinds["correct"][:6])  # unchanged where the scope keeps the feedback
