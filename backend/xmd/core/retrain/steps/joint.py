"""The joint step: the batch, its erased copies and the attribution rows' word scores from one forward pass.

The same loss as the per-part step (:mod:`.eager`), in one pass: on a GPU a step of this size waits on kernel
launches, not arithmetic (H200: the default ER step 4.43x -> 2.59x a plain step). Every row then enters the
(second-order) backward pass, which on a CPU costs more than the launches it saves (1.75x -> 2.31x), so
:func:`xmd.core.retrain.steps.joint_step` takes it on a GPU only.
"""

from __future__ import annotations

import torch

from xmd.core.attribution import gradient_to_words
from xmd.core.retrain import objective
from xmd.core.retrain.batching import FeedbackTensors
from xmd.core.retrain.settings import ERConfig
from xmd.core.retrain.steps.base import Erased, erase
from xmd.core.retrain.steps.eager import EagerStep


def joint_forward(
    model: torch.nn.Module,
    enc,
    labels: torch.Tensor,
    fb: FeedbackTensors,
    er: ERConfig,
    attr_rows: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor | None, Erased]:
    """One forward pass over the batch and the erased copies the ER terms need, and the in-graph word scores
    of ``attr_rows`` (None: no attribution term this step) from the same pass. Returns ``(logits [B, C], word
    scores [R, W] or None, erased copies)``."""
    kind = fb[1]
    b = enc.input_ids.shape[0]
    hide = objective.erased_kinds(er)
    picks, masks, hit = [torch.arange(b, device=enc.input_ids.device)], [enc.attention_mask], {}
    for which in hide:
        inputs, rows = erase(enc, kind, which)
        hit[which] = rows
        picks.append(rows.nonzero().flatten())
        masks.append(inputs["attention_mask"][rows])
    idx = torch.cat(picks)
    embeds = model.get_input_embeddings()(enc.input_ids[idx])
    kwargs = {"inputs_embeds": embeds, "attention_mask": torch.cat(masks)}
    if enc.token_type_ids is not None:
        kwargs["token_type_ids"] = enc.token_type_ids[idx]
    out = model(**kwargs).logits
    logits, erased, start = out[:b], {}, b
    for which, part in zip(hide, picks[1:], strict=True):
        erased[which] = (out[start : start + len(part)], hit[which])
        start += len(part)
    if attr_rows is None:
        return logits, None, erased
    picked = logits[attr_rows].gather(1, labels[attr_rows].view(-1, 1)).sum()
    (grads,) = torch.autograd.grad(picked, embeds, create_graph=True)
    sub = enc.select(attr_rows)
    width = sub.input_ids.shape[1]
    g, e = grads[:b][attr_rows][:, :width], embeds[:b][attr_rows][:, :width]
    return logits, gradient_to_words(g, e, sub, objective.ER_METHOD), erased


class JointStep(EagerStep):
    """:class:`EagerStep` with the batch's passes joined into one (:func:`joint_forward`)."""

    def forward(
        self, enc, labels: torch.Tensor, fb: FeedbackTensors | None, attr_rows: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor | None, Erased | None]:
        if fb is None or self.er is None:
            return super().forward(enc, labels, fb, attr_rows)
        return joint_forward(self.model, enc, labels, fb, self.er, attr_rows)
