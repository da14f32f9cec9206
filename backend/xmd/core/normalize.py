"""The one normalised attribution scale, shared by the UI, the aggregates and the ER loss.

A word's *share* is its absolute score divided by the sum of absolute scores over the words of the
same example: shares lie in [0, 1] and sum to 1 per example. Feedback targets live on this scale:
*remove* asks for a share of 0, *add* for a share of 1.

The L1 share is used rather than dividing by the largest score because a max-normalised score is
constant (1) for the top word and so has no gradient exactly where a shortcut word dominates.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

EPS = 1e-12


def shares(word_scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Differentiable shares of ``word_scores`` ``[B, W]``; masked-out words get 0."""
    mag = word_scores.abs()
    if mask is not None:
        mag = mag * mask.to(mag.dtype)
    return mag / (mag.sum(dim=-1, keepdim=True) + EPS)


def normalize_scores(scores: Sequence[float]) -> list[float]:
    """Shares of one example's word scores, as plain floats (what the API and UI show)."""
    if len(scores) == 0:
        return []
    t = torch.tensor(list(scores), dtype=torch.float64).unsqueeze(0)
    return shares(t)[0].tolist()
