"""The retrain's loss, ``L = L_task + λ·L_ER``, one function per term: every step calls these.

``L_ER`` has two families of terms, and ``objective="both"`` (the default) adds them, because measurement
showed they behave very differently (docs/er-loss.md, ``bench/effect``):

- the **attribution term** (the XMD paper's): the model's own grad x input word attributions, computed
  inside the training graph, normalised to shares and pulled toward the feedback targets — 0 for
  *remove*, 1 for *add* (signed: an added word must push toward the gold label) — with MSE. On its own
  it can silence the gradients while the model keeps using the word;
- the **erasure terms**: for *remove*, the prediction must not change when the word is hidden from
  attention (KL from the erased prediction, held fixed, to the full one); for *add*, hiding the word must
  lower the gold-class log-probability by at least :data:`ADD_MARGIN` nats. They fix the behaviour, but the
  gradient explanations people look at may still light the word up.

Each term is a per-row (or per-word) value reduced by :func:`masked_mean`: a step with ragged batches passes
only the rows concerned (``weight=None``, a plain mean), the static step of CUDA graphs passes every row with
a 0/1 weight, so both compute the same number from the same function.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from xmd.core.normalize import shares
from xmd.core.retrain.settings import ERConfig
from xmd.core.words import word_mask

ER_METHOD = "grad_x_input"
"""The attribution in the loss: grad x input, the method the screen shows by default."""
ADD_MARGIN = 0.5
"""Nats that hiding an *add* word must cost (the erasure term's add half)."""


def wide(x: torch.Tensor) -> torch.Tensor:
    """Losses in at least float32 (a bf16 step's logits are widened), float64 kept (the equality tests)."""
    return x if x.dtype == torch.float64 else x.float()


def masked_mean(values: torch.Tensor, weight: torch.Tensor | None = None) -> torch.Tensor:
    """Mean of ``values`` where ``weight`` is 1 (0 where it is 0 everywhere, with no host sync to ask); a
    plain mean without a weight (0 for no values)."""
    if weight is None:
        return values.mean() if values.numel() else values.new_zeros(())
    return (values * weight).sum() / weight.sum().clamp(min=1.0)


def task_loss(logits: torch.Tensor, labels: torch.Tensor, weight: torch.Tensor | None = None) -> torch.Tensor:
    """Cross-entropy with the gold labels (rows of weight 0 are padding)."""
    return masked_mean(F.cross_entropy(wide(logits), labels, reduction="none"), weight)


def signed_shares(word_scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """``score / Σ|scores|`` per example: :func:`xmd.core.normalize.shares` with the sign kept, so a
    word pushing toward the explained class (the gold label in training) is positive, against it negative."""
    mag = shares(word_scores, mask)
    return torch.where(word_scores < 0, -mag, mag)


def feedback_shares(word_index: torch.Tensor, word_scores: torch.Tensor, kind: torch.Tensor) -> torch.Tensor:
    """Each word's share of its example's attribution, signed for *add* words (``kind == 1``): what the
    attribution term pulls to its targets."""
    mask = word_mask(word_index, word_scores.shape[1])
    return torch.where(kind == 1, signed_shares(word_scores, mask), shares(word_scores, mask))


def attribution_term(
    word_index: torch.Tensor,
    word_scores: torch.Tensor,
    kind: torch.Tensor,
    weight: torch.Tensor | None = None,
) -> torch.Tensor:
    """Shares of the in-graph attributions pulled to 1 (*add*, signed) / 0 (*remove*) on feedback words, MSE.

    ``kind`` ``[R, W]`` is 1 add, -1 remove, 0 none; ``weight`` ``[R]`` leaves rows out (0) of the mean over
    the feedback words. A *remove* word's absolute share goes to 0: it must not matter either way."""
    kind = kind[:, : word_scores.shape[1]]
    s = feedback_shares(word_index, word_scores, kind)
    value = (kind == 1).to(s.dtype)
    sel = kind != 0
    if weight is None:
        return masked_mean(F.mse_loss(s[sel], value[sel], reduction="none"))
    return masked_mean(F.mse_loss(s, value, reduction="none"), sel.to(s.dtype) * weight.view(-1, 1))


def erasure_kl(full: torch.Tensor, erased: torch.Tensor, weight: torch.Tensor | None = None) -> torch.Tensor:
    """*Remove*: KL(erased ‖ full) per row, the erased prediction held fixed (the words hidden from attention
    must not change the prediction). ``full`` and ``erased`` are the logits of the same rows."""
    logp_full = F.log_softmax(wide(full), dim=-1)
    logp_erased = F.log_softmax(wide(erased.detach()), dim=-1)
    return masked_mean((logp_erased.exp() * (logp_erased - logp_full)).sum(dim=-1), weight)


def add_margin(
    full: torch.Tensor, erased: torch.Tensor, labels: torch.Tensor, weight: torch.Tensor | None = None
) -> torch.Tensor:
    """*Add*: hiding the words must lower the gold-class log-probability by :data:`ADD_MARGIN` nats (a hinge
    per row); gradients flow through both passes."""
    y = labels.view(-1, 1)
    logp_full = F.log_softmax(wide(full), dim=-1)
    logp_erased = F.log_softmax(wide(erased), dim=-1)
    drop = (logp_full.gather(1, y) - logp_erased.gather(1, y)).squeeze(1)
    return masked_mean(F.relu(ADD_MARGIN - drop), weight)


def erased_kinds(er: ERConfig) -> tuple[int, ...]:
    """Feedback kinds (-1 remove, 1 add) whose erased copies the ER terms read: the erasure terms', both."""
    return (-1, 1) if er.objective != "attribution" else ()


def attribution_weight(er: ERConfig) -> float:
    """The attribution term's weight in ``L_ER``: μ with ``both`` (1 alone), times ``attribution_every``, so
    a term taken on every k-th batch keeps its mean strength."""
    return (er.attribution_weight if er.objective == "both" else 1.0) * er.attribution_every


def er_loss(
    er: ERConfig, like: torch.Tensor, attribution: torch.Tensor | None, erasure: torch.Tensor | None
) -> torch.Tensor:
    """``L_ER`` from its terms: the weighted attribution term (None: not taken this batch) plus the erasure
    terms (None: the objective has none), from a zero like ``like`` (the batch's logits: device and dtype)."""
    total = like.new_zeros(())
    if attribution is not None:
        total = total + attribution_weight(er) * attribution
    if erasure is not None:
        total = total + erasure
    return total


def total_loss(task: torch.Tensor, er_term: torch.Tensor | None, er: ERConfig | None) -> torch.Tensor:
    """The single ``L_task + λ·L_ER`` (the task loss alone without an ER term)."""
    return task if er_term is None or er is None else task + er.lam * er_term
