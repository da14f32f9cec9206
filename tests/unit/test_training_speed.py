"""What makes a retrain fast must not change what it learns: dynamic padding gives the logits of
full-length padding, bucketed batches still visit every example once per epoch in a seeded order,
and the joint step gives the per-part step's loss and gradients."""

from __future__ import annotations

import math
import random

import pytest
import torch
import torch.nn.functional as F
from xmd.core.feedback import FeedbackSet
from xmd.core.retrain import ERConfig, TrainConfig, batch_order, train_loop
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
        ERConfig(attribution_rows=-1)


def test_the_attribution_rows_go_to_the_feedback_examples_that_took_the_term_least():
    """With equal counts (a first epoch) the pick is the seeded random draw it always was; after that the rows
    that took the term fewest times come first, so the same six feedback rows, two a batch, each take it once
    in three batches and twice in six, whatever the draw."""
    from types import SimpleNamespace

    from xmd.core.retrain.batching import attribution_subset, pick_attribution_rows

    rows = torch.tensor([True, False, True, True, False, True, True, True])
    plain = attribution_subset(rows, 2, torch.Generator().manual_seed(5))
    idx = rows.nonzero().flatten()
    expected = torch.zeros_like(rows)
    expected[idx[torch.randperm(len(idx), generator=torch.Generator().manual_seed(5))[:2]]] = True
    assert torch.equal(plain, expected)
    zeros = attribution_subset(rows, 2, torch.Generator().manual_seed(5), [0] * 8)
    assert torch.equal(zeros, expected)
    least = attribution_subset(rows, 2, torch.Generator().manual_seed(5), [3, 0, 1, 0, 0, 2, 2, 2])
    assert least.nonzero().flatten().tolist() == [2, 3]

    batch = [SimpleNamespace(id=f"e{i}") for i in range(8)]
    taken: dict[str, int] = {}
    gen = torch.Generator().manual_seed(0)
    for step in range(6):
        picked = pick_attribution_rows(rows, 2, gen, batch, taken)
        assert int(picked.sum()) == 2 and not bool((picked & ~rows).any())
        if step == 2:
            assert taken == {f"e{i}": 1 for i in idx.tolist()}
    assert taken == {f"e{i}": 2 for i in idx.tolist()}
    assert pick_attribution_rows(rows, 0, gen, batch, taken) is rows  # 0: every row, nothing counted
    assert taken == {f"e{i}": 2 for i in idx.tolist()}


def _attribution_batches(tiny_model_dir, monkeypatch, n: int, epochs: int, ers: dict) -> dict:
    """Per ``ERConfig`` of ``ers``: the global indices of the batches that ran the attribution forward
    (create_graph) in a run of the tiny model on ``n`` shortcut examples, batch 8, and the run's history."""
    from xmd.core.modeling import load_model
    from xmd.core.retrain.steps import eager

    train = shortcut_data(n)
    targets = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)]).expand(train)
    seen: list[int] = []  # global index of every batch, from the batch hook
    calls: list[int] = []  # the batches that ran the attribution forward
    real = eager.split_forward

    def counting(*args, **kwargs):
        calls.append(len(seen) - 1)
        return real(*args, **kwargs)

    monkeypatch.setattr(eager, "split_forward", counting)
    config = TrainConfig(batch_size=8, epochs=epochs, lr=1e-3)
    runs = {}
    for key, er in ers.items():
        seen.clear()
        calls.clear()
        m = load_model(tiny_model_dir, device="cpu")
        hist = train_loop(m, train, config, er=er, targets=targets, batch_hook=lambda *a: seen.append(0))
        runs[key] = (list(calls), hist, len(seen))
    return runs


def test_attribution_every_k_batches_runs_the_second_derivative_on_those_batches_only(tiny_model_dir, monkeypatch):
    """``attribution_every=k``: the attribution forward (create_graph) runs on batches 0, k, 2k, … of the
    whole run, weighted by k there; the other batches keep the erasure term (objective ``both``)."""
    # 6 batches per epoch, 12 in all
    ers = {k: ERConfig(attribution_every=k) for k in (1, 3)}
    out = _attribution_batches(tiny_model_dir, monkeypatch, 48, 2, ers)
    assert [n for *_, n in out.values()] == [12, 12]
    runs = {k: (calls, [s.er_loss for s in hist.steps]) for k, (calls, hist, _) in out.items()}
    assert len(runs[1][0]) >= 8  # most batches hold a feedback row
    # Batches 0, 3, 6, 9 of the whole run (across the epoch boundary), where they hold feedback rows.
    assert runs[3][0] == [i for i in runs[1][0] if i % 3 == 0] and runs[3][0]
    # The skipped batches (erasure only) carry a smaller ER term than the batches with the weighted
    # attribution term beside them.
    er3 = runs[3][1]
    with_attr = [er3[i] for i in runs[3][0]]
    without = [er3[i] for i in runs[1][0] if i % 3]
    assert min(with_attr) > max(without)
    with pytest.raises(ValueError):
        ERConfig(attribution_every=0)


def _joint_case(tiny, objective: str, attribution: bool, joint: bool):
    """Task loss, ER loss and every parameter gradient of one ER step, through the joint forward or the
    per-part forwards (split attribution forward + the erasure term's own)."""
    from xmd.core.retrain.steps.base import er_term
    from xmd.core.retrain.steps.eager import split_forward
    from xmd.core.retrain.steps.joint import joint_forward

    batch = shortcut_data(8)
    enc = encode(tiny.tokenizer, [ex.text for ex in batch])
    labels = torch.tensor([ex.label for ex in batch])
    kind = torch.zeros(len(batch), enc.max_words, dtype=torch.long)
    kind[[1, 4, 6], 0] = -1  # remove on three rows
    kind[6, 2] = 1  # add on one of them
    kind[3, 1] = 1  # and on a row with no remove
    fb = ((kind == 1).double(), kind)
    er = ERConfig(objective=objective)
    rows = (kind != 0).any(dim=1) if attribution and objective != "erasure" else None
    tiny.model.zero_grad()
    if joint:
        logits, ws, erased = joint_forward(tiny.model, enc, labels, fb, er, rows)
    else:
        erased = None
        if rows is not None:
            logits, ws = split_forward(tiny.model, enc, labels, rows)
        else:
            logits, ws = tiny.model(**enc.model_inputs()).logits, None
    er_loss = er_term(tiny.model, enc, labels, logits, ws, fb, er, rows, erased)
    task = F.cross_entropy(logits, labels)
    (task + er_loss).backward()
    grads = torch.cat([p.grad.flatten() for p in tiny.model.parameters() if p.grad is not None])
    return task.item(), er_loss.item(), grads


@pytest.mark.parametrize(
    "objective,attribution",
    [
        ("both", True),
        ("both", False),  # a batch that attribution_every skips
        ("attribution", True),
        ("erasure", False),
    ],
)
def test_joint_forward_gives_the_losses_and_gradients_of_the_per_part_forwards(tiny, objective, attribution):
    """The joint step only changes how many passes run, never the loss: the batch, the erased copies and
    the attribution rows in one pass must give the task loss, the ER loss and every parameter gradient of
    the per-part forwards (no dropout in the tiny model; float64, as the split test above)."""
    tiny.model.double()
    per_part = _joint_case(tiny, objective, attribution, joint=False)
    joint = _joint_case(tiny, objective, attribution, joint=True)
    assert joint[0] == pytest.approx(per_part[0], rel=1e-9)
    assert joint[1] == pytest.approx(per_part[1], rel=1e-7, abs=1e-12)
    assert joint[1] > 0
    assert joint[2].shape == per_part[2].shape
    assert torch.allclose(joint[2], per_part[2], rtol=1e-6, atol=1e-10), (joint[2] - per_part[2]).abs().max()


def test_the_joint_step_trains_the_same_run(tiny_model_dir):
    """A whole retrain through the joint step repeats the per-part run step for step (CPU, no dropout);
    the joint step is taken on a GPU and the per-part forwards on the CPU."""
    from xmd.core.modeling import load_model
    from xmd.core.retrain import steps

    data = shortcut_data(24)
    targets = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)]).expand(data)
    assert targets
    losses = []
    for joint in (False, True):
        m = load_model(tiny_model_dir, device="cpu")
        hist = train_loop(
            m,
            data,
            TrainConfig(batch_size=8, seed=3, lr=1e-3, epochs=1, mixed_precision=False),  # same math in float32
            er=ERConfig(),
            targets=targets,
            joint=joint,
        )
        losses.append([v for s in hist.steps for v in (s.task_loss, s.er_loss)])
    assert losses[0] == pytest.approx(losses[1], rel=1e-4, abs=1e-7)
    assert any(er > 0 for er in losses[0][1::2])
    assert not steps.joint_step(torch.device("cpu")) and steps.joint_step(torch.device("cuda"))


def test_the_fused_optimizer_makes_the_updates_of_torchs_default_adamw(tiny_model_dir):
    """``optim.adamw`` takes torch's fused kernel where there is one (a third of the optimiser time on the
    2-core CPU); given the same gradients it must make the updates the default AdamW makes, up to float
    rounding. (Compared after whole training runs, the rounding compounds through the model and the
    difference depends on the CPU's instruction set: an earlier form of this test failed on another host.)"""
    from unittest import mock

    from xmd.core.modeling import load_model
    from xmd.core.retrain import optim
    from xmd.core.retrain.steps import eager

    gen = torch.Generator().manual_seed(0)
    shapes = [(64, 32), (32,), (7, 5, 3)]
    start = [torch.randn(s, generator=gen) for s in shapes]
    grads = [[torch.randn(s, generator=gen) for s in shapes] for _ in range(6)]
    finals = []
    for make in (optim.adamw, lambda params, lr, device: torch.optim.AdamW(params, lr=lr)):
        params = [t.clone().requires_grad_(True) for t in start]
        groups = [{"params": params[:2], "weight_decay": 0.01}, {"params": params[2:], "weight_decay": 0.0}]
        opt = make(groups, 1e-2, torch.device("cpu"))
        for step in grads:
            for param, g in zip(params, step, strict=True):
                param.grad = g.clone()
            opt.step()
        finals.append(torch.cat([q.detach().flatten() for q in params]))
    fused = optim.adamw([{"params": [torch.zeros(2, requires_grad=True)]}], 1e-3, torch.device("cpu"))
    assert fused.defaults["fused"]
    moved = (finals[1] - torch.cat([t.flatten() for t in start])).abs().max()
    assert moved > 1e-2  # six steps of lr 1e-2 moved the weights
    assert (finals[0] - finals[1]).abs().max() <= 1e-5 * moved
    # and train_loop trains with it
    m = load_model(tiny_model_dir, device="cpu")
    before = torch.cat([q.detach().flatten() for q in m.model.parameters()])
    used: list[int] = []
    real = optim.adamw

    def counting(params, lr, device):
        used.append(1)
        return real(params, lr, device)

    with mock.patch.object(eager, "adamw", counting):  # the eager step makes its optimiser
        train_loop(m, shortcut_data(24), TrainConfig(batch_size=8, seed=1, lr=1e-3, epochs=1))
    after = torch.cat([q.detach().flatten() for q in m.model.parameters()])
    assert used and (after - before).abs().max() > 1e-4


def test_native_bf16_reads_the_cpu_flags(tmp_path, monkeypatch):
    """bf16 autocast only where the CPU computes bf16 itself: its flags name AVX512-BF16 or AMX (x86) or BF16
    (aarch64's Features line); a CPU without them (or no /proc/cpuinfo) is not picked."""
    from xmd.core import modeling

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512bw\n")
    assert modeling._cpu_flags(info) >= {"avx512_bf16", "avx2"}
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512bw\n")
    assert not modeling._cpu_flags(info) & modeling.BF16_CPU_FLAGS  # the Xeon that emulated bf16 10x slower
    info.write_text("processor\t: 0\nFeatures\t: fp asimd bf16 i8mm\n")
    assert "bf16" in modeling._cpu_flags(info)
    assert modeling._cpu_flags(tmp_path / "missing") == frozenset()
    cpu = torch.device("cpu")
    monkeypatch.setattr(modeling, "_cpu_flags", lambda: frozenset({"avx2", "amx_bf16"}))
    assert modeling.native_bf16(cpu)
    monkeypatch.setattr(modeling, "_cpu_flags", lambda: frozenset({"avx2", "avx512f"}))
    assert not modeling.native_bf16(cpu)
    assert not modeling.native_bf16(torch.device("meta"))
    # auto (None) takes bf16 on such a CPU only, never on a GPU (its small steps ran slower in bf16)
    monkeypatch.setattr(modeling, "native_bf16", lambda device: True)
    assert modeling.use_bf16(None, cpu) and modeling.use_bf16(True, cpu) and not modeling.use_bf16(False, cpu)
    gpu = torch.device("cuda")
    assert not modeling.use_bf16(None, gpu) and modeling.use_bf16(True, gpu)
    monkeypatch.setattr(modeling, "native_bf16", lambda device: False)
    assert not modeling.use_bf16(None, cpu) and not modeling.use_bf16(True, cpu)  # never emulated


@pytest.mark.parametrize(
    ("native", "asked", "bf16"),
    [(True, True, True), (False, True, False), (True, None, True), (False, None, False), (True, False, False)],
)
def test_mixed_precision_autocasts_only_where_bf16_is_native(tiny_model_dir, monkeypatch, native, asked, bf16):
    """``mixed_precision`` true runs an ER retrain's forward passes in bf16 where the device has bf16 (the run
    says so), and leaves float32 where it would be emulated; unset (auto) does the same on a CPU; false keeps
    float32. The ER step trains either way."""
    from xmd.core import modeling
    from xmd.core.modeling import load_model

    monkeypatch.setattr(modeling, "native_bf16", lambda device: native)
    loaded = load_model(tiny_model_dir, device="cpu")
    dtypes = set()
    linear = next(m for m in loaded.model.modules() if isinstance(m, torch.nn.Linear))
    linear.register_forward_hook(lambda _m, _i, out: dtypes.add(out.dtype))
    data = shortcut_data(24)
    targets = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)]).expand(data)
    hist = train_loop(
        loaded, data, TrainConfig(epochs=1, batch_size=8, mixed_precision=asked), er=ERConfig(), targets=targets
    )
    assert hist.bf16 is bf16 and hist.to_dict()["bf16"] is bf16
    assert dtypes == ({torch.bfloat16} if bf16 else {torch.float32})
    assert all(math.isfinite(s.loss) for s in hist.steps) and any(s.er_loss > 0 for s in hist.steps)
    assert all(p.dtype == torch.float32 for p in loaded.model.parameters())  # the weights stay float32


def test_an_er_step_looks_up_the_word_embeddings_once_with_grad(tiny_model_dir):
    """Each word-embedding lookup that gradients flow back through builds a dense ``[vocab, dim]`` gradient
    (about 20 ms for MiniLM on one core); the feedback rows and the other rows share one lookup per step
    (the erased copies' forward runs without grad), so an ER step pays that once, like a plain step."""
    from xmd.core.modeling import load_model

    m = load_model(tiny_model_dir, device="cpu")
    with_grad: list[int] = []
    m.model.get_input_embeddings().register_forward_hook(
        lambda _m, inputs, _out: with_grad.append(inputs[0].shape[0]) if torch.is_grad_enabled() else None
    )
    data = shortcut_data(16)
    targets = FeedbackSet(task=[TaskFeedback(word="mango", action=Action.REMOVE)]).expand(data)
    assert 0 < len(targets) < 16  # a batch with feedback rows and rows without
    config = TrainConfig(batch_size=16, epochs=1, mixed_precision=False)
    hist = train_loop(m, data, config, er=ERConfig(), targets=targets)
    assert len(hist.steps) == 1 and hist.steps[0].er_loss > 0
    assert with_grad == [16]  # one lookup, of the whole batch
