"""``RetrainConfig.parent_kl`` (issue 33 §2, a candidate): the rows without feedback keep the parent's
predictions, the rows with feedback are free, and every control arm takes the same term."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch
from xmd.core.controls import base_recipe
from xmd.core.modeling import load_model
from xmd.core.predict import predict_proba
from xmd.core.retrain import RetrainConfig, objective, train_loop
from xmd.core.retrain.loop import parent_anchor
from xmd.core.retrain.steps.graphed import unsupported

from tests.unit.test_training import shortcut_data


def test_the_term_is_zero_at_the_parent_and_grows_as_the_model_moves():
    logits = torch.tensor([[2.0, -1.0], [0.5, 0.5], [-3.0, 3.0]], dtype=torch.float64)
    ref = torch.log_softmax(logits, dim=-1)
    both = torch.ones(3, dtype=torch.float64)
    assert objective.parent_kl(logits, ref, both).item() == 0.0
    moved = logits + torch.tensor([[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]], dtype=torch.float64)
    assert objective.parent_kl(moved, ref, both).item() > 0.0
    # a row of weight 0 (a row with feedback) does not count, however far it moved
    only_others = torch.tensor([0.0, 1.0, 1.0], dtype=torch.float64)
    assert objective.parent_kl(moved, ref, only_others).item() == 0.0


def test_the_anchor_holds_the_parents_predictions_on_rows_without_feedback(tiny):
    data = shortcut_data(6)
    logp, weight = parent_anchor(tiny, data, 32, skip={"1", "4"})
    assert weight.tolist() == [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    assert torch.all(logp[[1, 4]] == 0)
    probs = predict_proba(tiny, [data[i].text for i in (0, 2, 3, 5)], max_length=32)
    np.testing.assert_allclose(logp[[0, 2, 3, 5]].exp().numpy(), probs, rtol=1e-5)


def drift(tiny_model_dir, data, weight: float) -> float:
    """Mean absolute change of P(label 1) on ``data`` after a short, hot retrain with ``parent_kl=weight``."""
    loaded = load_model(tiny_model_dir, device="cpu")
    before = predict_proba(loaded, [ex.text for ex in data], max_length=32)[:, 1]
    cfg = RetrainConfig(epochs=3, lr=1e-3, batch_size=8, max_length=32, seed=0, parent_kl=weight)
    train_loop(loaded, data, cfg)
    after = predict_proba(loaded, [ex.text for ex in data], max_length=32)[:, 1]
    return float(np.abs(after - before).mean())


def test_a_retrain_with_the_term_moves_less_from_the_parent(tiny_model_dir):
    data = shortcut_data(32)
    free, held = drift(tiny_model_dir, data, 0.0), drift(tiny_model_dir, data, 20.0)
    assert free > 0.05, free  # the hot retrain does move the model
    assert held < 0.5 * free, (held, free)


def test_graphed_steps_and_the_base_fine_tune_do_not_take_it():
    cfg = RetrainConfig(parent_kl=1.0)
    assert unsupported(cfg, None) is not None
    assert unsupported(replace(cfg, parent_kl=0.0), None) is None
    # deletion_base trains from the base model: there is no parent to keep
    assert base_recipe("/nonexistent", cfg).parent_kl == 0.0
