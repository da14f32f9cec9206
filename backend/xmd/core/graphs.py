"""Training steps as CUDA graphs (``TrainConfig.cuda_graphs``): record a step once, replay it for every batch.

Why: on a GPU a retrain step of a small model waits on the host issuing kernels, not on arithmetic
(BENCHMARKS.md: a plain MiniLM step at batch 16 launches 570 kernels, the ER step with its second-order
pass 2,390). A CUDA graph issues a recorded step's kernels in one launch. It needs every step to be the
same program on the same memory, so this module's step has static shapes and no host syncs:

- every batch is padded to ``batch_size`` rows (extra rows weigh 0) and to a length bucket
  (:data:`BUCKETS`, capped at ``max_length``); one graph per bucket and kind of step;
- the rows that carry feedback come first (the order is picked on the CPU, where the feedback is known)
  and the ER work runs on the first ``K`` rows, ``K`` a row bucket (:func:`er_rows`: a quarter, half or
  all of the batch) that holds them: those rows take the attribution pass (their own forward, whose
  second-order backward sees no other row) and have erased copies; the others take one plain forward
  with the erased copies. Inside the ER rows the terms are masked sums, weighted 0 on a row without
  feedback, instead of sums over rows picked with ``nonzero`` (as :func:`xmd.core.training._joint_forward`
  does). The loss and the gradients are the joint step's (``tests/unit/test_graphs.py``, float64). (The
  first version gave every row of the batch its erased copies and its attribution pass: at batch 64 with
  30 % feedback rows its graphed ER step cost 2.55x a graphed plain step, BENCHMARKS.md);
- the optimiser is fused AdamW with a device-side learning rate, so the schedule is not baked in.

A step of a batch without feedback replays the *plain* graph; a batch whose attribution term
``attribution_every`` skips, the *erasure* graph. The first :data:`WARMUP` steps of each graph run
eagerly (the same function, real steps of the run), as CUDA graph capture needs. On a CPU there is
nothing to replay: :func:`train_loop` takes this path only on CUDA, and tests run the same static
step eagerly on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from xmd.core.types import Action
from xmd.core.words import merge_to_words

if TYPE_CHECKING:
    from xmd.core.training import ERConfig, TrainConfig

BUCKETS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
"""Padded lengths of graphed batches: a batch is padded to the first bucket that holds its longest text."""
WARMUP = 2
"""Eager steps of each graph before it is recorded (lazy initialisation must not happen during capture)."""
CAPTURE = True
"""False runs the graphed steps eagerly on a GPU as well (bench/graphs_check.py compares the two)."""
KINDS = ("plain", "erasure", "attribution")
"""Graphs per bucket: no feedback in the batch; the ER step without the attribution term; the full ER step."""
ROW_SPLITS = (4, 2, 1)
"""ER row buckets: a quarter, a half or all of a batch's rows (:func:`er_rows`); more buckets would cut more
arithmetic but record more graphs (each one is WARMUP eager steps, a capture and its own memory)."""


def unsupported(config: TrainConfig, er: ERConfig | None) -> str | None:
    """Why a run cannot take graphed steps (None: it can)."""
    if config.grad_accum != 1:
        return "gradient accumulation"
    return None


def bucket(width: int, max_length: int) -> int:
    """The padded length of a batch whose longest text has ``width`` tokens."""
    return min(next((b for b in BUCKETS if b >= width), width), max(max_length, width))


def er_rows(n: int, rows: int) -> int:
    """The rows a graphed batch of ``rows`` rows gives the ER work when ``n`` of them carry feedback: the
    smallest of :data:`ROW_SPLITS`' shares of ``rows`` that holds ``n`` (at least 1)."""
    return next(k for k in (-(-rows // split) for split in ROW_SPLITS) if k >= max(n, 1))


@dataclass
class StaticBatch:
    """One batch at a graph's fixed shape ``[B, L]`` (words ``[B, L]``: a word has at least one token)."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    token_type_ids: torch.Tensor | None
    word_index: torch.Tensor
    labels: torch.Tensor
    row_weight: torch.Tensor  # 1 for the batch's rows, 0 for padding rows
    kind: torch.Tensor  # [B, L] per word: 1 add, -1 remove, 0 none
    attr: torch.Tensor  # [B] 1 where the row takes the attribution term

    @staticmethod
    def pad(
        enc,
        labels: torch.Tensor,
        kind: torch.Tensor | None,
        attr: torch.Tensor | None,
        rows: int,
        length: int,
        order: list[int] | None = None,
    ) -> StaticBatch:
        """``enc`` (on the CPU) padded to ``rows`` x ``length``, its rows in ``order`` (default: as they are);
        padding rows repeat the first row and weigh 0."""
        b, t = enc.input_ids.shape
        order = list(range(b)) if order is None else order
        fill = order + [order[0]] * (rows - b)

        def grid(x: torch.Tensor, value: int) -> torch.Tensor:
            out = torch.full((rows, length), value, dtype=x.dtype)
            out[:, : min(t, x.shape[1], length)] = x[fill][:, :length]
            return out

        words = torch.zeros(rows, length, dtype=torch.long)
        if kind is not None:
            w = min(kind.shape[1], length)
            words[:b, :w] = kind[order][:, :w]
        weight = torch.zeros(rows)
        weight[:b] = 1.0
        take = torch.zeros(rows)
        if attr is not None:
            take[:b] = attr[order].float()
        return StaticBatch(
            input_ids=grid(enc.input_ids, 0),
            attention_mask=grid(enc.attention_mask, 0),
            token_type_ids=grid(enc.token_type_ids, 0) if enc.token_type_ids is not None else None,
            word_index=grid(enc.word_index, -1),
            labels=labels[fill].clone(),
            row_weight=weight,
            kind=words,
            attr=take,
        )

    def tensors(self) -> list[torch.Tensor]:
        return [t for t in vars(self).values() if t is not None]

    def to(self, device: torch.device) -> StaticBatch:
        return StaticBatch(**{k: (v.to(device) if v is not None else None) for k, v in vars(self).items()})

    def copy_(self, other: StaticBatch) -> None:
        for mine, theirs in zip(self.tensors(), other.tensors(), strict=True):
            mine.copy_(theirs, non_blocking=True)


def _wide(x: torch.Tensor) -> torch.Tensor:
    """Losses in at least float32 (as the eager step takes them), float64 kept (the equivalence tests)."""
    return x if x.dtype == torch.float64 else x.float()


def _additive(mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The padding mask ``[B, L]`` as the additive ``[B, 1, L, L]`` mask eager attention adds, built here: from a
    2-D mask transformers builds it after asking ``mask.all()`` (whether it may skip it), a host sync that
    capture refuses; a 4-D mask it takes as it is. The same values (0 and the dtype's minimum)."""
    length = mask.shape[1]
    keep = mask.bool()[:, None, None, :].expand(-1, 1, length, length)
    return torch.where(keep, torch.zeros((), dtype=dtype, device=mask.device), torch.finfo(dtype).min)


def _masked_mean(values: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Mean of ``values`` where ``weight`` is 1, 0 where it is 0 everywhere (no sync to ask which)."""
    return (values * weight).sum() / weight.sum().clamp(min=1.0)


def hidden_kinds(er: ERConfig, targets: dict) -> tuple[int, ...]:
    """Feedback kinds whose erased copies the run's ER steps need (:func:`xmd.core.training.erased_kinds`),
    less the kinds no feedback of the run has."""
    from xmd.core.training import erased_kinds

    hide = erased_kinds(er)
    present = {1 if a == Action.ADD else -1 for words in targets.values() for a in words.values()}
    return tuple(k for k in hide if k in present)


def static_losses(
    model: torch.nn.Module,
    b: StaticBatch,
    er: ERConfig | None,
    kind: str,
    hide: tuple[int, ...],
    er_rows: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``([loss, task loss, ER term, feedback words] detached, loss)`` of one static batch, without a host sync.

    ``kind`` is one of :data:`KINDS`; the ER work runs on the first ``er_rows`` rows (all by default), which
    must hold every row with feedback. The same loss as :func:`xmd.core.training._joint_forward` with
    :func:`xmd.core.training._er_term`, written as masked sums. (One difference: feedback on a word past the
    bucket's length, which has no token, is dropped; the eager step counts it in the attribution term's
    mean with error 0.)"""
    from xmd.core.training import ADD_MARGIN, _feedback_shares, _mse

    rows = b.input_ids.shape[0]
    k = rows if er_rows is None else er_rows
    weight = b.row_weight
    dtype = next(model.parameters()).dtype
    n_fb = (b.kind != 0).sum().float()
    if kind == "plain" or er is None:
        logits = _forward(model, b.input_ids, b.attention_mask, b.token_type_ids, dtype)
        task = _masked_mean(F.cross_entropy(_wide(logits), b.labels, reduction="none"), weight)
        zero = task.new_zeros(())
        return torch.stack([task, task, zero, n_fb * 0]).detach(), task
    head = b.kind[:k]
    token_kind = head.gather(1, b.word_index[:k].clamp(min=0)) * (b.word_index[:k] >= 0).long()
    masks, hit = [], {}
    for which in hide:
        tokens = token_kind == which
        hit[which] = tokens.any(dim=1).float() * weight[:k]
        masks.append(b.attention_mask[:k] * (~tokens).long())
    ids, tt = b.input_ids, b.token_type_ids
    attribution = kind == "attribution" and er.objective != "erasure"
    # The ER rows' erased copies ride with the rows that need no attribution pass, whose backward is first-order.
    first = k if attribution else 0
    rest_ids = torch.cat([ids[first:], ids[:k].repeat(len(hide), 1)])
    rest_mask = torch.cat([b.attention_mask[first:], *masks])
    rest_tt = torch.cat([tt[first:], tt[:k].repeat(len(hide), 1)]) if tt is not None else None
    out = _forward(model, rest_ids, rest_mask, rest_tt, dtype) if rest_ids.shape[0] else None
    erased = {which: out[rows - first + k * i : rows - first + k * (i + 1)] for i, which in enumerate(hide)}
    if attribution:
        embeds = model.get_input_embeddings()(ids[:k])
        head_logits = _forward(model, None, b.attention_mask[:k], tt[:k] if tt is not None else None, dtype, embeds)
        logits = torch.cat([head_logits, out[: rows - k]]) if out is not None else head_logits
    else:
        logits = out[:rows]
    task = _masked_mean(F.cross_entropy(_wide(logits), b.labels, reduction="none"), weight)
    term = task.new_zeros(())
    y = b.labels[:k].view(-1, 1)
    if attribution:
        picked = (head_logits.gather(1, y).squeeze(1) * b.attr[:k]).sum()
        (g,) = torch.autograd.grad(picked, embeds, create_graph=True)
        token_scores = (g * embeds).sum(dim=-1)  # grad x input (training.ER_METHOD)
        word_scores = merge_to_words(
            token_scores * b.attention_mask[:k].to(token_scores.dtype), b.word_index[:k], head.shape[1]
        )
        s = _feedback_shares(SimpleNamespace(word_index=b.word_index[:k]), word_scores, head, er)
        sel = (head != 0).to(s.dtype) * b.attr[:k].view(-1, 1)
        value = (head == 1).to(s.dtype)
        weight_attr = (er.attribution_weight if er.objective == "both" else 1.0) * er.attribution_every
        term = term + weight_attr * _masked_mean(_mse(s, value, "none"), sel)
    if er.objective in ("erasure", "both"):
        logp_full = F.log_softmax(_wide(logits[:k]), dim=-1)
        if -1 in erased:
            logp_erased = F.log_softmax(_wide(erased[-1].detach()), dim=-1)
            kl = (logp_erased.exp() * (logp_erased - logp_full)).sum(dim=-1)
            term = term + _masked_mean(kl, hit[-1])
        if 1 in erased:
            logp_erased = F.log_softmax(_wide(erased[1]), dim=-1)
            drop = (logp_full.gather(1, y) - logp_erased.gather(1, y)).squeeze(1)
            term = term + _masked_mean(F.relu(ADD_MARGIN - drop), hit[1])
    loss = task + er.lam * term
    return torch.stack([loss, task, term, n_fb]).detach(), loss


def _forward(
    model: torch.nn.Module,
    input_ids: torch.Tensor | None,
    mask: torch.Tensor,
    token_type_ids: torch.Tensor | None,
    dtype: torch.dtype,
    embeds: torch.Tensor | None = None,
) -> torch.Tensor:
    """Logits of one static forward, the padding mask handed over prepared (:func:`_additive`)."""
    inputs = {"attention_mask": _additive(mask, embeds.dtype if embeds is not None else dtype)}
    if embeds is not None:
        inputs["inputs_embeds"] = embeds
    else:
        inputs["input_ids"] = input_ids
    if token_type_ids is not None:
        inputs["token_type_ids"] = token_type_ids
    return model(**inputs).logits


class GraphedSteps:
    """Runs each training step through the graph of its bucket and kind, recording graphs as they are needed.

    ``step`` does what one iteration of the eager loop does up to and including the optimiser step (the
    learning-rate schedule stays outside: it writes the device-side rate the graphs read). ``capture``
    False runs every step eagerly (the CPU, and tests)."""

    def __init__(
        self,
        model: torch.nn.Module,
        optim: torch.optim.Optimizer,
        config: TrainConfig,
        er: ERConfig | None,
        hide: tuple[int, ...],
        capture: bool,
        bf16: bool = False,
    ) -> None:
        self.model, self.optim, self.config, self.er, self.hide, self.capture = model, optim, config, er, hide, capture
        self.bf16 = bf16
        self.graphs: dict[tuple[int, str, int], dict] = {}
        self.record = {"graphs": 0, "eager_steps": 0, "replays": 0}

    def _eager(self, b: StaticBatch, kind: str, er_rows: int) -> torch.Tensor:
        self.optim.zero_grad(set_to_none=True)
        parts, loss = static_losses(self.model, b, self.er, kind, self.hide, er_rows)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
        self.optim.step()
        return parts

    def _amp(self):
        # Autocast's weight-cast cache would hold tensors made during capture: graphs need it off.
        device = next(self.model.parameters()).device
        return torch.autocast(device.type, dtype=torch.bfloat16, enabled=self.bf16, cache_enabled=False)

    def step(self, host: StaticBatch, kind: str, er_rows: int | None = None) -> torch.Tensor:
        """One optimiser step on ``host`` (a padded CPU batch, its feedback rows within the first ``er_rows``);
        returns its ``[loss, task, ER, n_fb]``."""
        device = next(self.model.parameters()).device
        er_rows = host.input_ids.shape[0] if er_rows is None or kind == "plain" else er_rows
        key = (host.input_ids.shape[1], kind, er_rows)
        entry = self.graphs.get(key)
        if entry is None:
            entry = self.graphs[key] = {"batch": host.to(device), "warm": 0, "graph": None, "out": None}
        else:
            entry["batch"].copy_(host)
        if not self.capture or entry["warm"] < WARMUP:
            entry["warm"] += 1
            self.record["eager_steps"] += 1
            if not self.capture:
                with self._amp():
                    return self._eager(entry["batch"], kind, er_rows)
            side = torch.cuda.Stream(device)
            side.wait_stream(torch.cuda.current_stream(device))
            with torch.cuda.stream(side), self._amp():
                parts = self._eager(entry["batch"], kind, er_rows)
            torch.cuda.current_stream(device).wait_stream(side)
            return parts
        if entry["graph"] is None:
            graph = torch.cuda.CUDAGraph()
            self.optim.zero_grad(set_to_none=True)
            with torch.cuda.graph(graph), self._amp():
                parts, loss = static_losses(self.model, entry["batch"], self.er, kind, self.hide, er_rows)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
                self.optim.step()
            entry["graph"], entry["out"] = graph, parts
            self.record["graphs"] += 1
        entry["graph"].replay()
        self.record["replays"] += 1
        return entry["out"].clone()


def graph_optimizer(params: list[dict], lr: float, device: torch.device) -> torch.optim.Optimizer:
    """Fused AdamW whose learning rate lives on the device (the schedule writes it between replays)."""
    return torch.optim.AdamW(params, lr=torch.tensor(lr, device=device), fused=True, capturable=True)


def wanted(config: TrainConfig, device: torch.device) -> bool:
    """Whether a run asks for graphed steps on a device that has them (tests patch it to run the static
    step eagerly on a CPU)."""
    return config.cuda_graphs and device.type == "cuda"


def takes_4d_mask(model: torch.nn.Module) -> bool:
    """Whether ``model`` reads the prepared 4-D mask of :func:`_additive` as it reads the 2-D padding mask.

    Encoders built on transformers' mask utilities (BERT, RoBERTa, DistilBERT, ELECTRA, ALBERT, …) take a 4-D
    mask as it is; others read it otherwise (DeBERTa-v2 turns it to bool, which inverts it) or refuse it. Two
    tiny forwards in eval mode, one padded row, compared: a model that fails keeps eager steps."""
    device = next(model.parameters()).device
    vocab = model.get_input_embeddings().num_embeddings
    ids = (torch.arange(8, device=device) % max(vocab - 2, 1) + 1).view(1, -1).repeat(2, 1)
    mask = torch.ones_like(ids)
    mask[1, 5:] = 0
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            ref = model(input_ids=ids, attention_mask=mask).logits.float()
            dtype = next(model.parameters()).dtype
            got = model(input_ids=ids, attention_mask=_additive(mask, dtype)).logits.float()
        return bool(torch.allclose(ref, got, rtol=1e-3, atol=1e-4))
    except (RuntimeError, ValueError, TypeError, IndexError):
        return False
    finally:
        model.train(was_training)


def build(
    loaded, params: list[dict], config: TrainConfig, er: ERConfig | None, targets: dict
) -> tuple[GraphedSteps | None, str | None]:
    """The graphed steps of a run with their optimiser, or ``(None, why)`` where the run takes eager steps
    (``why`` is None where the run did not ask for graphs)."""
    from xmd.core.modeling import use_bf16
    from xmd.core.training import adamw

    device = loaded.device
    if not config.cuda_graphs:
        return None, None
    if not wanted(config, device):
        return None, f"no CUDA device (ran on {device.type})"
    if reason := unsupported(config, er):
        return None, reason
    if not takes_4d_mask(loaded.model):
        return None, "the model does not read a prepared 4-D attention mask as its padding mask"
    capture = device.type == "cuda" and CAPTURE
    optim = graph_optimizer(params, config.lr, device) if capture else adamw(params, config.lr, device)
    hide = hidden_kinds(er, targets) if er is not None else ()
    bf16 = use_bf16(config.mixed_precision, device)
    return GraphedSteps(loaded.model, optim, config, er, hide, capture, bf16=bf16), None


def run(
    graphed: GraphedSteps,
    enc,
    batch: list,
    targets: dict,
    config: TrainConfig,
    er: ERConfig | None,
    skip_attribution: bool,
    er_gen: torch.Generator,
    taken: dict[str, int] | None = None,
) -> list[float]:
    """One step of :func:`xmd.core.training.train_loop` through a graph: the batch's feedback and attribution
    rows are worked out on the CPU (as the eager step does), the rows with feedback put first and counted
    into a row bucket (:func:`er_rows`), then padded and replayed."""
    from xmd.core.training import _feedback_tensors, pick_attribution_rows

    labels = torch.tensor([ex.label for ex in batch])
    fb = _feedback_tensors(batch, targets, enc.max_words, torch.device("cpu")) if er is not None else None
    attr = None
    if fb is None:
        kind = "plain"
    elif er is not None and er.objective != "erasure" and not skip_attribution:
        rows = (fb[1] != 0).any(dim=1)
        attr = pick_attribution_rows(rows, er.attribution_rows, er_gen, batch, {} if taken is None else taken)
        kind = "attribution"
    else:
        kind = "erasure"
    length = bucket(enc.input_ids.shape[1], config.max_length)
    if fb is None:
        host = StaticBatch.pad(enc, labels, None, None, config.batch_size, length)
        return graphed.step(host, kind).tolist()
    with_fb = (fb[1] != 0).any(dim=1).tolist()
    order = [i for i, f in enumerate(with_fb) if f] + [i for i, f in enumerate(with_fb) if not f]
    host = StaticBatch.pad(enc, labels, fb[1], attr, config.batch_size, length, order)
    return graphed.step(host, kind, er_rows(sum(with_fb), config.batch_size)).tolist()
