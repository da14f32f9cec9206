"""``RetrainConfig.l2sp`` (issue 33 §2, a candidate): after each optimiser step every parameter moves back
toward the weights the run started from (L2-SP, decoupled from the gradient like AdamW's decay)."""

from __future__ import annotations

import torch
from xmd.core.modeling import load_model
from xmd.core.retrain import RetrainConfig, train_loop
from xmd.core.retrain.optim import pull_back

from tests.unit.test_training import shortcut_data


def test_the_pull_moves_every_parameter_its_share_of_the_way_back():
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 2)
    start = [p.detach().clone() for p in layer.parameters()]
    with torch.no_grad():
        for p in layer.parameters():
            p.add_(1.0)
    pull_back(layer, start, 0.25)
    for p, p0 in zip(layer.parameters(), start, strict=True):
        torch.testing.assert_close(p.detach(), p0 + 0.75)
    pull_back(layer, start, 7.0)  # a share over 1 stops at the start, never past it
    for p, p0 in zip(layer.parameters(), start, strict=True):
        torch.testing.assert_close(p.detach(), p0)


def distance(tiny_model_dir, pull: float) -> float:
    """Euclidean distance from the start of the weights after a short, hot retrain with ``l2sp=pull``."""
    loaded = load_model(tiny_model_dir, device="cpu")
    start = [p.detach().clone() for p in loaded.model.parameters()]
    cfg = RetrainConfig(epochs=2, lr=1e-3, batch_size=8, max_length=32, seed=0, l2sp=pull)
    train_loop(loaded, shortcut_data(32), cfg)
    moved = [(p.detach() - p0).pow(2).sum() for p, p0 in zip(loaded.model.parameters(), start, strict=True)]
    return float(torch.stack(moved).sum().sqrt())


def test_a_retrain_with_the_pull_stays_nearer_its_start(tiny_model_dir):
    free, held = distance(tiny_model_dir, 0.0), distance(tiny_model_dir, 100.0)
    assert free > 0.1, free  # the hot retrain does move the weights
    assert held < 0.8 * free, (held, free)
    # a pull of the whole way at every step leaves the weights where they started
    assert distance(tiny_model_dir, 1e6) == 0.0
