"""The eager step, per part: the feedback rows' attribution forward, the other rows' plain forward and each
kind's erased copies, each its own pass. On a CPU a pass costs its arithmetic, so running each row only where
it is needed is the fastest form (``bench/er_speed``); the joint step (:mod:`.joint`) is the GPU's."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

import torch
from torch.profiler import record_function

from xmd.core.attribution import forward_embeds, gradient_word_scores
from xmd.core.retrain import objective
from xmd.core.retrain.batching import FeedbackTargets, FeedbackTensors, feedback_tensors, pick_attribution_rows
from xmd.core.retrain.optim import adamw
from xmd.core.retrain.settings import ERConfig, TrainConfig
from xmd.core.retrain.steps.base import Erased, er_term, erased_copies
from xmd.core.types import Example


def split_forward(
    model: torch.nn.Module, enc, labels: torch.Tensor, attr_rows: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits of the whole batch and in-graph word scores of the ``attr_rows``, each row run once.

    Rows with feedback go through the differentiable attribution forward (a second derivative follows),
    and its logits also serve the task loss; only the other rows take a plain forward. Running every row
    through a plain forward as well cost another forward and backward of the feedback rows per step. The
    word embeddings are looked up once for the whole batch and sliced: each lookup's backward builds a dense
    ``[vocab, dim]`` gradient (about 20 ms for MiniLM on one core), which two lookups paid twice a step.
    Returns ``(logits [B, C] in batch order, word_scores [R, W])``.
    """
    embeds = model.get_input_embeddings()(enc.input_ids)
    sub = enc.select(attr_rows)
    attr_logits, word_scores, _ = gradient_word_scores(
        model,
        sub,
        labels[attr_rows],
        method=objective.ER_METHOD,
        create_graph=True,
        embeds=embeds[attr_rows][:, : sub.input_ids.shape[1]],
    )
    return with_rest(model, enc, attr_rows, attr_logits, embeds), word_scores


def with_rest(
    model: torch.nn.Module, enc, attr_rows: torch.Tensor, attr_logits: torch.Tensor, embeds: torch.Tensor
) -> torch.Tensor:
    """Logits of the whole batch in batch order: ``attr_logits`` (of the ``attr_rows``, already run) and a
    plain forward of the other rows from the batch's word ``embeds``."""
    rest = ~attr_rows
    if not bool(rest.any()):
        return attr_logits
    sub = enc.select(rest)
    rest_logits = forward_embeds(model, sub, embeds[rest][:, : sub.input_ids.shape[1]])
    # Rows in (feedback rows, other rows) order, put back in batch order.
    order = torch.cat([attr_rows.nonzero().flatten(), rest.nonzero().flatten()])
    return torch.cat([attr_logits, rest_logits.to(attr_logits.dtype)])[torch.argsort(order)]


class EagerStep:
    """A step whose passes follow the batch (no fixed shapes): per part here, in one pass in the joint step."""

    def __init__(
        self,
        model: torch.nn.Module,
        device: torch.device,
        params: list[dict],
        config: TrainConfig,
        er: ERConfig | None,
        targets: FeedbackTargets,
        er_gen: torch.Generator,
        bf16: bool,
    ) -> None:
        self.model, self.device, self.config, self.er, self.targets, self.er_gen = (
            model,
            device,
            config,
            er,
            targets,
            er_gen,
        )
        self.optim = adamw(params, config.lr, device)
        self.amp = torch.autocast(device.type, dtype=torch.bfloat16) if bf16 else nullcontext()
        self.taken: dict[str, int] = {}  # feedback examples' attribution-term count (ERConfig.attribution_rows)

    def forward(
        self, enc, labels: torch.Tensor, fb: FeedbackTensors | None, attr_rows: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor | None, Erased | None]:
        """``(logits, word scores of attr_rows or None, erased copies)`` of the batch, per part."""
        if attr_rows is not None:
            logits, word_scores = split_forward(self.model, enc, labels, attr_rows)
        else:
            logits, word_scores = self.model(**enc.model_inputs()).logits, None
        erased = None
        if fb is not None and self.er is not None:
            erased = erased_copies(self.model, enc, fb[1], objective.erased_kinds(self.er))
        return logits, word_scores, erased

    def run(self, enc, batch: Sequence[Example], skip_attribution: bool) -> list[float]:
        er, device = self.er, self.device
        enc = enc.to(device)
        labels = torch.tensor([ex.label for ex in batch], device=device)
        fb = feedback_tensors(batch, self.targets, enc.max_words, device) if er is not None else None
        # Named ranges for torch.profiler (bench/er_speed/er_profile.py); a few microseconds when none runs.
        with self.amp, record_function("xmd.forward_and_loss"):
            attr_rows = None
            if fb is not None and er.objective != "erasure" and not skip_attribution:
                rows = (fb[1] != 0).any(dim=1)
                attr_rows = pick_attribution_rows(rows, er.attribution_rows, self.er_gen, batch, self.taken)
            logits, word_scores, erased = self.forward(enc, labels, fb, attr_rows)
            task = objective.task_loss(logits, labels)
            term = None
            if fb is not None:
                term = er_term(self.model, enc, labels, logits, word_scores, fb, er, attr_rows, erased)
            loss = objective.total_loss(task, term, er)
        with record_function("xmd.backward"):
            (loss / self.config.grad_accum).backward()
        # One device-to-host copy per batch: each is a sync, which a GPU step bound by launches feels.
        n_fb = (fb[1] != 0).sum() if fb is not None else torch.zeros((), device=device)
        er_value = term if term is not None else task.new_zeros(())
        return torch.stack([t.detach().float() for t in (loss, task, er_value, n_fb)]).tolist()

    def update(self) -> None:
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
        self.optim.step()
        self.optim.zero_grad(set_to_none=True)
