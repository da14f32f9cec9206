"""The static training step: every batch at a fixed shape, the ER terms as masked sums, no host sync.

What CUDA graphs (:mod:`.graphed`) need, and checked on a CPU, where it runs eagerly: the static step gives the
joint step's loss and gradients (``tests/unit/test_graphs.py``, float64).

- every batch is padded to ``batch_size`` rows (extra rows weigh 0) and to a length bucket (:data:`BUCKETS`,
  capped at ``max_length``);
- the rows that carry feedback come first (the order is picked on the CPU, where the feedback is known) and
  the ER work runs on the first ``K`` rows, ``K`` a row bucket (:func:`er_rows`: a quarter, half or all of
  the batch) that holds them: those rows take the attribution pass (their own forward, whose second-order
  backward sees no other row) and have erased copies; the others take one plain forward with the erased
  copies. Inside the ER rows each term of :mod:`xmd.core.retrain.objective` is weighted 0 on a row without
  feedback instead of taken over rows picked with ``nonzero``. (The first version gave every row of the
  batch its erased copies and its attribution pass: at batch 64 with 30 % feedback rows its graphed ER step
  cost 2.55x a graphed plain step.)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from xmd.core.retrain import objective
from xmd.core.retrain.settings import ERConfig
from xmd.core.types import Action
from xmd.core.words import merge_to_words

BUCKETS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
"""Padded lengths of graphed batches: a batch is padded to the first bucket that holds its longest text."""
KINDS = ("plain", "erasure", "attribution")
"""Graphs per bucket: no feedback in the batch; the ER step without the attribution term; the full ER step."""
ROW_SPLITS = (4, 2, 1)
"""ER row buckets: a quarter, a half or all of a batch's rows (:func:`er_rows`); more buckets would cut more
arithmetic but record more graphs (each one is WARMUP eager steps, a capture and its own memory)."""


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


def additive_mask(mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The padding mask ``[B, L]`` as the additive ``[B, 1, L, L]`` mask eager attention adds, built here: from a
    2-D mask transformers builds it after asking ``mask.all()`` (whether it may skip it), a host sync that
    capture refuses; a 4-D mask it takes as it is. The same values (0 and the dtype's minimum)."""
    length = mask.shape[1]
    keep = mask.bool()[:, None, None, :].expand(-1, 1, length, length)
    return torch.where(keep, torch.zeros((), dtype=dtype, device=mask.device), torch.finfo(dtype).min)


def hidden_kinds(er: ERConfig, targets: dict) -> tuple[int, ...]:
    """Feedback kinds whose erased copies the run's ER steps need (:func:`objective.erased_kinds`), less the
    kinds no feedback of the run has."""
    hide = objective.erased_kinds(er)
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
    must hold every row with feedback. The loss of :mod:`xmd.core.retrain.objective`, each term a masked mean.
    (One difference from the eager steps: feedback on a word past the bucket's length, which has no token,
    is dropped; the eager step counts it in the attribution term's mean with error 0.)"""
    rows = b.input_ids.shape[0]
    k = rows if er_rows is None else er_rows
    weight = b.row_weight
    dtype = next(model.parameters()).dtype
    n_fb = (b.kind != 0).sum().float()
    if kind == "plain" or er is None:
        logits = static_forward(model, b.input_ids, b.attention_mask, b.token_type_ids, dtype)
        task = objective.task_loss(logits, b.labels, weight)
        return torch.stack([task, task, task.new_zeros(()), n_fb * 0]).detach(), task
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
    out = static_forward(model, rest_ids, rest_mask, rest_tt, dtype) if rest_ids.shape[0] else None
    erased = {which: out[rows - first + k * i : rows - first + k * (i + 1)] for i, which in enumerate(hide)}
    term_attribution = None
    if attribution:
        embeds = model.get_input_embeddings()(ids[:k])
        head_tt = tt[:k] if tt is not None else None
        head_logits = static_forward(model, None, b.attention_mask[:k], head_tt, dtype, embeds)
        logits = torch.cat([head_logits, out[: rows - k]]) if out is not None else head_logits
        picked = (head_logits.gather(1, b.labels[:k].view(-1, 1)).squeeze(1) * b.attr[:k]).sum()
        (g,) = torch.autograd.grad(picked, embeds, create_graph=True)
        token_scores = (g * embeds).sum(dim=-1)  # grad x input (objective.ER_METHOD)
        word_scores = merge_to_words(
            token_scores * b.attention_mask[:k].to(token_scores.dtype), b.word_index[:k], head.shape[1]
        )
        term_attribution = objective.attribution_term(b.word_index[:k], word_scores, head, b.attr[:k])
    else:
        logits = out[:rows]
    task = objective.task_loss(logits, b.labels, weight)
    erasure = None
    if er.objective != "attribution":
        erasure = task.new_zeros(())
        if -1 in erased:
            erasure = erasure + objective.erasure_kl(logits[:k], erased[-1], hit[-1])
        if 1 in erased:
            erasure = erasure + objective.add_margin(logits[:k], erased[1], b.labels[:k], hit[1])
    term = objective.er_loss(er, task, term_attribution, erasure)
    loss = objective.total_loss(task, term, er)
    return torch.stack([loss, task, term, n_fb]).detach(), loss


def static_forward(
    model: torch.nn.Module,
    input_ids: torch.Tensor | None,
    mask: torch.Tensor,
    token_type_ids: torch.Tensor | None,
    dtype: torch.dtype,
    embeds: torch.Tensor | None = None,
) -> torch.Tensor:
    """Logits of one static forward, the padding mask handed over prepared (:func:`additive_mask`)."""
    inputs = {"attention_mask": additive_mask(mask, embeds.dtype if embeds is not None else dtype)}
    if embeds is not None:
        inputs["inputs_embeds"] = embeds
    else:
        inputs["input_ids"] = input_ids
    if token_type_ids is not None:
        inputs["token_type_ids"] = token_type_ids
    return model(**inputs).logits
