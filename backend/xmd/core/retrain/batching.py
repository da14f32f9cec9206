"""What a retrain's batches hold and in which order: the epoch's batches (length-bucketed, seeded), the
steps they make, the feedback of a batch as tensors, and which feedback rows take the attribution term.

Everything here is drawn from seeded generators, so a seed reproduces a run's batches and picks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch

from xmd.core.types import Action, Example

if TYPE_CHECKING:
    from xmd.core.modeling import LoadedModel
    from xmd.core.retrain.settings import TrainConfig

#: Length bucketing sorts pools of this many batches by length (bigger pools pad less, but the
#: batches of a pool then differ more in length and are less random in content).
BUCKET_POOL_BATCHES = 50

FeedbackTargets = dict[str, dict[int, Action]]
"""Per example id, the word positions the feedback marks and what it asks of each (add / remove)."""
FeedbackTensors = tuple[torch.Tensor, torch.Tensor]
"""``(value [B, W], kind [B, W])`` of a batch: value 1 for add / 0 for remove; kind 1 add, -1 remove, 0 none."""


def batch_order(
    n: int,
    batch_size: int,
    gen: torch.Generator,
    lengths: Sequence[int] | None = None,
    pool_batches: int = BUCKET_POOL_BATCHES,
) -> list[list[int]]:
    """The batches of one epoch as lists of example indices: a permutation of ``range(n)``.

    Without ``lengths``: consecutive slices of one seeded permutation (the order training always had).
    With ``lengths`` (token counts): the permutation is cut into pools of ``pool_batches`` batches,
    each pool sorted by length (stable) and cut into batches, and the batches are shuffled; a batch
    then holds texts of similar length, so dynamic padding pads little, and the order is still drawn
    from ``gen`` alone, so a seed reproduces it.
    """
    perm = torch.randperm(n, generator=gen).tolist()
    if lengths is None:
        return [perm[i : i + batch_size] for i in range(0, n, batch_size)]
    pool = batch_size * pool_batches
    batches: list[list[int]] = []
    for start in range(0, n, pool):
        chunk = sorted(perm[start : start + pool], key=lambda i: lengths[i])
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    return [batches[i] for i in torch.randperm(len(batches), generator=gen).tolist()]


def attribution_subset(
    attr_rows: torch.Tensor, limit: int, gen: torch.Generator, taken: Sequence[int] | None = None
) -> torch.Tensor:
    """At most ``limit`` of the True rows of ``attr_rows`` (0 keeps them all): those that took the attribution
    term the fewest times so far (``taken``, per batch row), ties in an order drawn from ``gen``. With no
    counts, or equal ones (a run's first epoch), that is a seeded random draw."""
    idx = attr_rows.nonzero().flatten()
    if limit <= 0 or len(idx) <= limit:
        return attr_rows
    rank = torch.randperm(len(idx), generator=gen)
    pos = torch.empty_like(rank)
    pos[rank] = torch.arange(len(idx))
    if taken is not None:
        pos = pos + len(idx) * torch.tensor([taken[i] for i in idx.tolist()], dtype=pos.dtype)
    keep = idx[pos.argsort()[:limit].to(idx.device)]
    out = torch.zeros_like(attr_rows)
    out[keep] = True
    return out


def pick_attribution_rows(
    attr_rows: torch.Tensor, limit: int, gen: torch.Generator, batch: Sequence[Example], taken: dict[str, int]
) -> torch.Tensor:
    """``ERConfig.attribution_rows``: the batch's rows that take the attribution term, fewest-taken first over
    the run (``taken`` counts them by example id), so a second epoch gives the term to the feedback examples
    the first left out before it repeats one."""
    if limit <= 0:
        return attr_rows
    out = attribution_subset(attr_rows, limit, gen, [taken.get(ex.id, 0) for ex in batch])
    for i in out.nonzero().flatten().tolist():
        taken[batch[i].id] = taken.get(batch[i].id, 0) + 1
    return out


def feedback_tensors(
    batch: Sequence[Example], targets: FeedbackTargets, n_words: int, device: torch.device
) -> FeedbackTensors | None:
    """``(value [B, W], kind [B, W])``: value 1 for add / 0 for remove; kind 1 add, -1 remove, 0 none."""
    kind = torch.zeros(len(batch), n_words, dtype=torch.long)
    any_fb = False
    for b, ex in enumerate(batch):
        for w, action in targets.get(ex.id, {}).items():
            if w < n_words:
                kind[b, w] = 1 if action == Action.ADD else -1
                any_fb = True
    if not any_fb:
        return None
    kind = kind.to(device)
    return (kind == 1).float(), kind


def count_steps(n_examples: int, config: TrainConfig) -> int:
    """Optimiser steps :func:`train_loop` takes over ``n_examples`` (what a job's plan shows)."""
    return math.ceil(math.ceil(n_examples / config.batch_size) / config.grad_accum) * config.epochs


def token_lengths(loaded: LoadedModel, examples: Sequence[Example], max_length: int) -> list[int]:
    """Token count of each example after truncation: the key of length-bucketed batches."""
    ids = loaded.tokenizer([ex.text for ex in examples], truncation=True, max_length=max_length)
    return [len(x) for x in ids["input_ids"]]
