"""What makes a retrain fast must not change what it learns: dynamic padding gives the logits of
full-length padding, bucketed batches still visit every example once per epoch in a seeded order,
and the early-stop rule stops on converged series only."""

from __future__ import annotations

import random

import pytest
import torch
import torch.nn.functional as F
from xmd.core.feedback import FeedbackSet
from xmd.core.training import ERConfig, TrainConfig, batch_order, early_stop_converged, train_loop
from xmd.core.types import Action, TaskFeedback
from xmd.core.words import encode

from tests.unit.test_training import shortcut_data


def test_dynamic_padding_gives_the_logits_and_loss_of_max_length_padding(tiny):
    """``encode`` pads a batch to its longest text; the model must not see a difference."""
    batch = shortcut_data(8)
    texts = [ex.text for ex in batch]
    texts[3] += " and the story was really very good"  # rows of different lengths
    labels = torch.tensor([ex.label for ex in batch])
    enc = encode(tiny.tokenizer, texts, max_length=64)
    full = tiny.tokenizer(texts, padding="max_length", truncation=True, max_length=64, return_tensors="pt")
    assert enc.input_ids.shape[1] < full["input_ids"].shape[1] == 64  # the tiny model's limit
    tiny.model.eval()
    with torch.no_grad():
        dyn = tiny.model(**enc.model_inputs()).logits
        pad = tiny.model(**{k: full[k] for k in enc.model_inputs()}).logits
    assert torch.allclose(dyn, pad, atol=1e-5), (dyn - pad).abs().max()
    assert F.cross_entropy(dyn, labels).item() == pytest.approx(F.cross_entropy(pad, labels).item(), abs=1e-6)


@pytest.mark.parametrize("n,batch_size", [(100, 8), (37, 5), (1000, 16)])
def test_bucketed_batches_cover_every_example_once_and_repeat_for_a_seed(n, batch_size):
    lengths = [random.Random(i).randint(5, 60) for i in range(n)]

    def order(seed: int) -> list[list[int]]:
        return batch_order(n, batch_size, torch.Generator().manual_seed(seed), lengths, pool_batches=4)

    batches = order(3)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(n))
    assert len(batches) == -(-n // batch_size)
    assert all(1 <= len(b) <= batch_size for b in batches)
    assert order(3) == batches
    assert order(4) != batches
    # The point of bucketing: batches are padded to their longest text, and that is shorter now.
    plain = batch_order(n, batch_size, torch.Generator().manual_seed(3))
    assert sorted(i for b in plain for i in b) == list(range(n))

    def padded(bs: list[list[int]]) -> int:
        return sum(len(b) * max(lengths[i] for i in b) for b in bs)

    assert padded(batches) < padded(plain)


def test_bucketed_epochs_differ_but_the_run_repeats(tiny_model_dir):
    """Two epochs see different batches; the same seed gives the same losses (bucketing on)."""
    from xmd.core.modeling import load_model

    gen = torch.Generator().manual_seed(0)
    lengths = list(range(40))
    assert batch_order(40, 8, gen, lengths) != batch_order(40, 8, gen, lengths)
    runs = []
    for _ in range(2):
        m = load_model(tiny_model_dir, device="cpu")
        hist = train_loop(m, shortcut_data(24), TrainConfig(batch_size=8, seed=5, lr=1e-3, epochs=2))
        runs.append([s.loss for s in hist.steps])
    assert runs[0] == pytest.approx(runs[1], rel=1e-5)


ER = ERConfig(early_stop_share_tol=0.02, early_stop_er_tol=0.2, early_stop_patience=2)


@pytest.mark.parametrize(
    "er_values,share_values,expected",
    [
        ([0.50, 0.30, 0.20, 0.10], [0.30, 0.20, 0.10, 0.05], False),  # still falling
        ([0.50, 0.10, 0.095, 0.094], [0.30, 0.05, 0.045, 0.044], True),  # flat over the last 2 steps
        ([0.50, 0.10, 0.095, 0.094], [0.30, 0.05, 0.045, 0.09], False),  # share jumped at the end
        ([0.50, 0.10, 0.095, 0.15], [0.30, 0.05, 0.045, 0.044], False),  # ER term jumped at the end
        ([0.10, 0.10], [0.05, 0.05], False),  # too few checks for a patience of 2
        ([0.001, 0.0025, 0.0012], [0.01, 0.01, 0.01], True),  # tiny values: within the 0.002 floor
    ],
)
def test_early_stop_rule_on_constructed_series(er_values, share_values, expected):
    assert early_stop_converged(er_values, share_values, ER) is expected


def test_early_stop_holds_rows_out_and_stops_on_convergence(tiny_model_dir):
    """With a loose rule it stops after the minimum progress, having trained without the held-out rows."""
    from xmd.core.modeling import load_model

    train = shortcut_data(96)
    targets = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)]).expand(train)
    n_fb = len(targets)
    assert n_fb >= 10
    er = ERConfig(
        early_stop=True,
        early_stop_rows=4,
        early_stop_checks=12,
        early_stop_share_tol=1.0,
        early_stop_er_tol=100.0,
        early_stop_min_progress=0.5,
    )
    m = load_model(tiny_model_dir, device="cpu")
    hist = train_loop(m, train, TrainConfig(batch_size=8, epochs=2, lr=1e-3), er=er, targets=targets)
    es = hist.early_stop
    assert es["held_out_rows"] == 4
    total = hist.steps[0].total_steps
    assert total == 2 * -(-(96 - 4) // 8)  # the held-out rows are not trained on
    assert es["stopped_at"] == len(hist.steps) < total
    assert es["stopped_at"] >= 0.5 * total
    assert len(es["er"]) == len(es["share"]) == len(es["steps"]) >= 3
    assert all(0.0 <= s <= 1.0 for s in es["share"]) and any(v > 0 for v in es["er"])

    strict = ERConfig(early_stop=True, early_stop_rows=4, early_stop_share_tol=0.0, early_stop_er_tol=0.0)
    m = load_model(tiny_model_dir, device="cpu")
    hist = train_loop(m, train, TrainConfig(batch_size=8, epochs=1, lr=1e-3), er=strict, targets=targets)
    assert hist.early_stop["stopped_at"] is None and len(hist.steps) == hist.steps[0].total_steps


def test_attribution_on_a_subset_of_feedback_rows_still_trains_the_term(tiny_model_dir):
    """``attribution_rows`` caps the rows with a second derivative; the ER term stays active."""
    from xmd.core.modeling import load_model

    train = shortcut_data(48)
    targets = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)]).expand(train)
    losses = {}
    for rows in (0, 1):
        m = load_model(tiny_model_dir, device="cpu")
        er = ERConfig(objective="attribution", attribution_rows=rows)
        hist = train_loop(m, train, TrainConfig(batch_size=16, lr=1e-3), er=er, targets=targets)
        losses[rows] = [s.er_loss for s in hist.steps]
    assert all(v > 0 for v in losses[1])
    assert losses[0] != losses[1]
    with pytest.raises(ValueError):
        ERConfig(attribution_rows=-1).validate()


def test_attribution_every_k_batches_runs_the_second_derivative_on_those_batches_only(tiny_model_dir, monkeypatch):
    """``attribution_every=k``: the attribution forward (create_graph) runs on batches 0, k, 2k, … of the
    whole run, weighted by k there; the other batches keep the erasure term (objective ``both``)."""
    from xmd.core import training
    from xmd.core.modeling import load_model

    train = shortcut_data(48)
    targets = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)]).expand(train)
    seen: list[int] = []  # global index of every batch, from the batch hook
    calls: list[int] = []  # the batches that ran the attribution forward
    real = training._split_forward

    def counting(*args, **kwargs):
        calls.append(len(seen) - 1)
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "_split_forward", counting)
    config = TrainConfig(batch_size=8, epochs=2, lr=1e-3)  # 6 batches per epoch, 12 in all
    runs = {}
    for k in (1, 3):
        seen.clear()
        calls.clear()
        m = load_model(tiny_model_dir, device="cpu")
        hist = train_loop(
            m, train, config, er=ERConfig(attribution_every=k), targets=targets, batch_hook=lambda *a: seen.append(0)
        )
        runs[k] = (list(calls), [s.er_loss for s in hist.steps])
    assert len(seen) == 12 and len(runs[1][0]) >= 8  # most batches hold a feedback row
    # Batches 0, 3, 6, 9 of the whole run (across the epoch boundary), where they hold feedback rows.
    assert runs[3][0] == [i for i in runs[1][0] if i % 3 == 0] and runs[3][0]
    # The skipped batches (erasure only) carry a smaller ER term than the batches with the weighted
    # attribution term beside them.
    er3 = runs[3][1]
    with_attr = [er3[i] for i in runs[3][0]]
    without = [er3[i] for i in runs[1][0] if i % 3]
    assert min(with_attr) > max(without)
    with pytest.raises(ValueError):
        ERConfig(attribution_every=0).validate()
