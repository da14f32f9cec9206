"""What every training step shares: the interface the loop drives, the feedback words hidden from attention
(the erased copies), and ``L_ER`` assembled from :mod:`xmd.core.retrain.objective` for a ragged batch.

A step takes one batch (its encoding on the CPU, its examples, whether the attribution term is skipped this
batch), runs the forward passes, the loss ``task + λ·L_ER`` and the backward pass, and returns
``[loss, task loss, ER term, feedback words]``; :meth:`Step.update` then steps the optimiser once the
batches of an optimiser step (gradient accumulation) are in. The three steps (:mod:`.eager`, :mod:`.joint`,
:mod:`.graphed`) differ only in how many passes run; the float64 tests hold them to the same loss and
gradients (``tests/unit/test_training_speed.py``, ``tests/unit/test_graphs.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import torch

from xmd.core.retrain import objective
from xmd.core.retrain.batching import FeedbackTensors
from xmd.core.retrain.settings import ERConfig
from xmd.core.types import Example

Erased = dict[int, tuple[torch.Tensor, torch.Tensor]]
"""Logits of erased copies already computed, in the graph, by the feedback kind hidden (-1 remove, 1 add):
``(logits of the hit rows, hit rows [B] bool)``."""


class Step(Protocol):
    """One training step of a retrain (see the module doc)."""

    optim: torch.optim.Optimizer

    def run(self, enc, batch: Sequence[Example], skip_attribution: bool) -> list[float]:
        """Forward, loss and backward of one batch; ``[loss, task loss, ER term, feedback words]``."""
        ...

    def update(self) -> None:
        """The optimiser step (clipping first) once an optimiser step's batches have run."""
        ...


def erase(enc, word_kind: torch.Tensor, which: int) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """Inputs with the tokens of words of ``kind == which`` hidden from attention, and the rows hit."""
    idx = enc.word_index.clamp(min=0)
    token_kind = word_kind.gather(1, idx) * (enc.word_index >= 0).long()
    hit = token_kind == which
    rows = hit.any(dim=1)
    inputs = enc.model_inputs()
    inputs["attention_mask"] = enc.attention_mask * (~hit).long()
    return inputs, rows


def erased_copies(model: torch.nn.Module, enc, kind: torch.Tensor, hide: Sequence[int]) -> Erased:
    """The erased copies the ER terms read, one forward per kind hidden (rows hit only): the *remove* copies
    without a graph (the KL holds them fixed), the *add* ones in the graph (the margin trains both passes)."""
    out: Erased = {}
    for which in hide:
        inputs, rows = erase(enc, kind, which)
        if not bool(rows.any()):
            continue
        sub = {k: v[rows] for k, v in inputs.items()}
        if which == -1:
            with torch.no_grad():
                out[which] = (model(**sub).logits, rows)
        else:
            out[which] = (model(**sub).logits, rows)
    return out


def erasure_terms(logits: torch.Tensor, labels: torch.Tensor, erased: Erased) -> torch.Tensor:
    """The erasure terms of a ragged batch: KL on the rows with *remove* words, the margin on those with
    *add* words (each a plain mean over its rows)."""
    total = logits.new_zeros((), dtype=objective.wide(logits).dtype)
    if -1 in erased and bool(erased[-1][1].any()):
        copies, rows = erased[-1]
        total = total + objective.erasure_kl(logits[rows], copies)
    if 1 in erased and bool(erased[1][1].any()):
        copies, rows = erased[1]
        total = total + objective.add_margin(logits[rows], copies, labels[rows])
    return total


def er_term(
    model: torch.nn.Module,
    enc,
    labels: torch.Tensor,
    logits: torch.Tensor,
    word_scores: torch.Tensor | None,
    fb: FeedbackTensors,
    er: ERConfig,
    attr_rows: torch.Tensor | None = None,
    erased: Erased | None = None,
) -> torch.Tensor:
    """``L_ER`` of one batch under ``er.objective`` (``both`` adds the terms).

    ``word_scores``: the in-graph word scores of the rows in ``attr_rows`` (all rows when None), or None on a
    batch that skips the attribution term. ``erased``: the copies a joint forward already ran (else each
    kind's copies run here)."""
    kind = fb[1]
    attribution = None
    if er.objective != "erasure" and word_scores is not None:
        sub = enc.select(attr_rows) if attr_rows is not None else enc
        sub_kind = kind[attr_rows] if attr_rows is not None else kind
        attribution = objective.attribution_term(sub.word_index, word_scores, sub_kind)
    erasure = None
    if er.objective != "attribution":
        if erased is None:
            erased = erased_copies(model, enc, kind, objective.erased_kinds(er))
        erasure = erasure_terms(logits, labels, erased)
    return objective.er_loss(er, logits, attribution, erasure)
