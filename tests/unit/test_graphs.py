"""The static step behind ``TrainConfig.cuda_graphs`` (xmd.core.retrain.steps.static and .graphed).

CUDA graphs themselves need a GPU (bench/er_overhead.py's ``*_graphs`` variants time them there); what can be
checked on a CPU is what capture depends on: the static step gives the eager joint step's loss and gradients
(float64, no dropout in the tiny model), makes no host sync (capture would fail on one), and a whole run
through it repeats the eager run."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from xmd.core.feedback import FeedbackSet
from xmd.core.retrain import ERConfig, TrainConfig, train_loop
from xmd.core.retrain.steps import graphed as graphs
from xmd.core.retrain.steps import static
from xmd.core.retrain.steps.static import StaticBatch, bucket, static_losses
from xmd.core.types import Action, TaskFeedback
from xmd.core.words import encode

from tests.unit.test_training import shortcut_data
from tests.unit.test_training_speed import _joint_case


def _kind(enc) -> torch.Tensor:
    kind = torch.zeros(enc.input_ids.shape[0], enc.max_words, dtype=torch.long)
    kind[[1, 4, 6], 0] = -1  # remove on three rows (as _joint_case)
    kind[6, 2] = 1
    kind[3, 1] = 1
    return kind


FEEDBACK_ROWS = [1, 3, 4, 6]
"""The rows of :func:`_kind` with feedback."""


def _static_case(tiny, objective, attribution, rows=12, extra_length=20, er_rows=None):
    """``_joint_case``'s batch through the static step, padded to ``rows`` rows and a longer bucket; with
    ``er_rows`` its feedback rows first (as :meth:`graphs.GraphedStep.run` orders them) and the ER work on
    that many rows."""
    batch = shortcut_data(8)
    enc = encode(tiny.tokenizer, [ex.text for ex in batch])
    labels = torch.tensor([ex.label for ex in batch])
    kind = _kind(enc)
    er = ERConfig(objective=objective)
    attr = (kind != 0).any(dim=1) if attribution and objective != "erasure" else None
    order = None if er_rows is None else FEEDBACK_ROWS + [i for i in range(8) if i not in FEEDBACK_ROWS]
    b = StaticBatch.pad(enc, labels, kind, attr, rows, enc.input_ids.shape[1] + extra_length, order)
    targets = {"a": {0: Action.REMOVE, 1: Action.ADD}}
    hide = static.hidden_kinds(er, targets)
    tiny.model.zero_grad()
    parts, loss = static_losses(tiny.model, b, er, "attribution" if attr is not None else "erasure", hide, er_rows)
    loss.backward()
    grads = torch.cat([p.grad.flatten() for p in tiny.model.parameters() if p.grad is not None])
    return parts[1].item(), parts[2].item(), grads, parts


@pytest.mark.parametrize("er_rows", [None, 4, 6])
@pytest.mark.parametrize(
    "objective,attribution",
    [
        ("both", True),
        ("both", False),
        ("attribution", True),
        ("erasure", False),
    ],
)
def test_the_static_step_gives_the_joint_steps_losses_and_gradients(tiny, objective, attribution, er_rows):
    """Padding rows (weight 0), a longer bucket, the rows reordered, the ER rows' erased copies and attribution
    pass (weight 0 where such a row has no feedback: er_rows 6 holds 2 rows without) must not change the task
    loss, the ER term or any parameter gradient."""
    tiny.model.double()
    joint = _joint_case(tiny, objective, attribution, joint=True)
    static = _static_case(tiny, objective, attribution, er_rows=er_rows)
    assert static[0] == pytest.approx(joint[0], rel=1e-9)
    assert static[1] == pytest.approx(joint[1], rel=1e-7, abs=1e-12)
    assert static[1] > 0
    # The eager step takes its log-softmaxes in float32 even on a float64 model (``.float()``), the static
    # one keeps float64: gradients up to about 4 agree to 2e-7, a mask error would show at 1e-2.
    assert torch.allclose(static[2], joint[2], rtol=1e-6, atol=1e-6), (static[2] - joint[2]).abs().max()
    assert static[3][3].item() == 5  # feedback words in the batch


class _Syncs(TorchDispatchMode):
    """Records the ops that read a device value on the host or whose output shape depends on values."""

    SYNCING = ("_local_scalar_dense", "nonzero", "masked_select", "is_nonzero", "item", "unique", "repeat_interleave")

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.__name__.split(".")[0]
        if name in self.SYNCING or (name == "index" and any(t is not None and t.dtype == torch.bool for t in args[1])):
            self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("er_rows", [None, 4])
@pytest.mark.parametrize("kind", ["plain", "erasure", "attribution"])
def test_the_static_step_makes_no_host_sync(tiny, kind, er_rows):
    """CUDA graph capture fails on a host sync; the eager step has several (``nonzero`` to pick rows, ``any()``
    to skip terms). The forward, the loss, the backward pass and the clipping must have none."""
    batch = shortcut_data(8)
    enc = encode(tiny.tokenizer, [ex.text for ex in batch])
    kind_t = _kind(enc)
    order = FEEDBACK_ROWS + [i for i in range(8) if i not in FEEDBACK_ROWS]
    b = StaticBatch.pad(enc, torch.tensor([ex.label for ex in batch]), kind_t, (kind_t != 0).any(dim=1), 8, 32, order)
    with _Syncs() as syncs:
        _, loss = static_losses(tiny.model, b, ERConfig(), kind, (-1, 1), er_rows)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(tiny.model.parameters(), 1.0)
    assert syncs.seen == []
    # The probe itself catches what the eager step does.
    with _Syncs() as syncs:
        enc.select(kind_t[:, 0] != 0)
    assert syncs.seen


def test_a_run_through_the_static_step_repeats_the_eager_run(tiny_model_dir, monkeypatch):
    """``cuda_graphs`` on a CPU records why it was not used; forced onto the static step (run eagerly, as
    before capture), a whole retrain repeats the eager joint run step for step: same losses, same weights."""
    from xmd.core.modeling import load_model

    data = shortcut_data(28)  # 28 = 3 full batches of 8 and one of 4 (a padded batch)
    targets = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)]).expand(data)
    config = TrainConfig(batch_size=8, seed=3, lr=1e-3, epochs=2, mixed_precision=False, cuda_graphs=True)
    er = ERConfig(attribution_every=2)
    m = load_model(tiny_model_dir, device="cpu")
    eager = train_loop(m, data, config, er=er, targets=targets, joint=True)  # the eager GPU step, on the CPU
    assert eager.graphs == {"not_used": "no CUDA device (ran on cpu)"}
    monkeypatch.setattr(graphs, "wanted", lambda config, device: config.cuda_graphs)
    s = load_model(tiny_model_dir, device="cpu")
    static = train_loop(s, data, config, er=er, targets=targets)
    assert static.graphs == {"graphs": 0, "eager_steps": len(static.steps), "replays": 0}
    assert len(static.steps) == len(eager.steps) == 8
    a = [v for st in eager.steps for v in (st.task_loss, st.er_loss, st.lr)]
    b = [v for st in static.steps for v in (st.task_loss, st.er_loss, st.lr)]
    # float32 rounding through 8 Adam steps, as for the weights below: the last ER loss, about 5e-4, once read
    # 5.4760e-4 against 5.4747e-4 (rel 2.3e-4) in the full suite and agreed to 1e-7 alone; a mask or row error
    # moves a loss by far more than 1e-3 of itself.
    assert a == pytest.approx(b, rel=1e-3, abs=1e-6)
    assert any(st.er_loss > 0 for st in static.steps)
    # Attention's key bias shifts every score of a query alike, so softmax makes its gradient 0 up to rounding,
    # which Adam scales to full-size steps: its values are rounding noise in both runs, not compared. The
    # rest agree to float32 rounding through 8 Adam steps (lr 1e-3, so a step moves a weight up to 1e-3; a
    # mask or row error shows at that size): 1.8e-5 at most on the AMD EPYC host, which failed atol 1e-5.
    for (name, p), q in zip(m.model.named_parameters(), s.model.parameters(), strict=True):
        if not name.endswith("key.bias"):
            assert torch.allclose(p, q, atol=5e-5), name


def test_runs_that_cannot_be_graphed_say_why(tiny_model_dir, monkeypatch):
    from xmd.core.modeling import load_model

    monkeypatch.setattr(graphs, "wanted", lambda config, device: config.cuda_graphs)
    assert graphs.unsupported(TrainConfig(grad_accum=2), None) == "gradient accumulation"
    assert graphs.unsupported(TrainConfig(), ERConfig()) is None
    tiny = load_model(tiny_model_dir, device="cpu")
    built = graphs.build(tiny, [], TrainConfig(cuda_graphs=True, grad_accum=2), None, {}, torch.Generator(), False)
    assert built == (None, "gradient accumulation")
    assert graphs.build(tiny, [], TrainConfig(), None, {}, torch.Generator(), False) == (None, None)  # not asked for


def test_a_model_that_misreads_a_4d_mask_keeps_eager_steps(tiny, monkeypatch):
    """The graphed step hands the model a prepared 4-D mask; BERT reads it as its 2-D mask, DeBERTa-v2 turns it
    to bool (inverting it), so a DeBERTa run asked for graphs takes eager steps and says why."""
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

    assert graphs.takes_4d_mask(tiny.model) and tiny.model.training is False
    cfg = DebertaV2Config(
        vocab_size=120, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, num_labels=2
    )
    torch.manual_seed(0)
    deberta = DebertaV2ForSequenceClassification(cfg).train()
    assert not graphs.takes_4d_mask(deberta)
    assert deberta.training  # the probe leaves the mode as it found it
    monkeypatch.setattr(graphs, "wanted", lambda config, device: config.cuda_graphs)
    loaded = SimpleNamespace(model=deberta, device=torch.device("cpu"))
    built = graphs.build(loaded, [], TrainConfig(cuda_graphs=True), ERConfig(), {}, torch.Generator(), False)
    assert built == (None, "the model does not read a prepared 4-D attention mask as its padding mask")


def test_buckets_and_padding(tiny):
    assert [bucket(w, 128) for w in (3, 16, 17, 34, 100)] == [16, 16, 32, 64, 128]
    assert bucket(20, 24) == 24 and bucket(300, 512) == 512
    enc = encode(tiny.tokenizer, ["a b c", "d"])
    kind = torch.tensor([[0, -1, 0], [1, 0, 0]])
    b = StaticBatch.pad(enc, torch.tensor([1, 0]), kind, torch.tensor([True, False]), 4, 16)
    assert b.input_ids.shape == b.word_index.shape == b.kind.shape == (4, 16)
    assert b.row_weight.tolist() == [1, 1, 0, 0] and b.attr.tolist() == [1, 0, 0, 0]
    assert b.labels.tolist() == [1, 0, 1, 1]  # padding rows repeat row 0, weighing nothing
    assert (b.word_index[:, enc.input_ids.shape[1] :] == -1).all() and (b.attention_mask[:2].sum(1) > 0).all()
    assert b.kind[:2, :3].tolist() == [[0, -1, 0], [1, 0, 0]] and not b.kind[2:].any()


def test_er_rows_are_a_quarter_a_half_or_all_of_the_batch():
    assert [static.er_rows(n, 32) for n in (0, 1, 8, 9, 16, 17, 32)] == [8, 8, 8, 16, 16, 32, 32]
    assert [static.er_rows(n, 6) for n in (1, 2, 3, 4)] == [2, 2, 3, 6]
    assert static.er_rows(1, 1) == 1


def test_only_the_er_rows_take_the_attribution_pass_and_erased_copies(tiny):
    """The work the row buckets save: with 4 of 12 rows as ER rows, the attribution forward sees those 4 rows
    and the other forward the 8 others plus 4 erased copies per hidden kind — not 12 rows x 3 copies through
    a second-order backward, as the first version's one forward did."""
    batch = shortcut_data(8)
    enc = encode(tiny.tokenizer, [ex.text for ex in batch])
    kind = _kind(enc)
    order = FEEDBACK_ROWS + [i for i in range(8) if i not in FEEDBACK_ROWS]
    b = StaticBatch.pad(enc, torch.tensor([ex.label for ex in batch]), kind, (kind != 0).any(dim=1), 12, 32, order)
    seen: list[tuple[int, bool]] = []
    hook = tiny.model.register_forward_pre_hook(
        lambda _m, _a, kw: seen.append(
            (kw["inputs_embeds" if "inputs_embeds" in kw else "input_ids"].shape[0], "inputs_embeds" in kw)
        ),
        with_kwargs=True,
    )
    try:
        for kind_name in ("attribution", "erasure"):
            static_losses(tiny.model, b, ERConfig(), kind_name, (-1, 1), 4)
        static_losses(tiny.model, b, ERConfig(), "attribution", (-1, 1))
    finally:
        hook.remove()
    assert seen == [(8 + 4 * 2, False), (4, True), (12 + 4 * 2, False), (12 * 2, False), (12, True)]
