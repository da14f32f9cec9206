"""The three forms of a training step, one interface (:class:`base.Step`), and which one a run takes.

- :mod:`.eager` — per part: the feedback rows' attribution forward, the other rows' plain forward, each kind's
  erased copies (the CPU's step);
- :mod:`.joint` — the same passes joined into one forward (the GPU's step: fewer kernel launches);
- :mod:`.graphed` — the static step (:mod:`.static`) recorded as CUDA graphs and replayed
  (``TrainConfig.cuda_graphs``, on a GPU).

Each computes ``task + λ·L_ER`` with :mod:`xmd.core.retrain.objective`; float64 tests hold them to the same
loss and gradients.
"""

from __future__ import annotations

import torch

from xmd.core.modeling import LoadedModel
from xmd.core.retrain.batching import FeedbackTargets
from xmd.core.retrain.settings import ERConfig, TrainConfig
from xmd.core.retrain.steps.base import Step
from xmd.core.retrain.steps.eager import EagerStep
from xmd.core.retrain.steps.graphed import build
from xmd.core.retrain.steps.joint import JointStep
from xmd.core.types import XMDError

__all__ = ["EagerStep", "JointStep", "Step", "joint_step", "make_step"]


def joint_step(device: torch.device) -> bool:
    """Whether an ER step on ``device`` runs the batch and its erased copies in one forward pass: on a GPU,
    where a step waits on kernel launches (H200: the default ER step 4.43x -> 2.59x a plain step); on a CPU
    the erased rows in the backward pass cost more than the launches saved (1.75x -> 2.31x)."""
    return device.type == "cuda"


def eager_attention(model: torch.nn.Module) -> None:
    """The attribution term differentiates the attention twice, which only the eager attention does."""
    impl = getattr(model.config, "_attn_implementation", "eager")
    if impl in ("eager", None):
        return
    if not hasattr(model, "set_attn_implementation"):  # pragma: no cover - older transformers
        raise XMDError(f"attribution-matching needs attn_implementation='eager' (the model uses {impl!r})")
    model.set_attn_implementation("eager")


def make_step(
    loaded: LoadedModel,
    params: list[dict],
    config: TrainConfig,
    er: ERConfig | None,
    targets: FeedbackTargets,
    er_gen: torch.Generator,
    bf16: bool,
    joint: bool | None = None,
) -> tuple[Step, dict | None]:
    """The step a run takes (``er`` None: no ER term) and what ``TrainHistory.graphs`` records: the graphs'
    counts, why none ran, or None where the run did not ask for them. ``joint`` forces the eager ER step's
    form (None: :func:`joint_step` of the device; the loss is the same either way)."""
    if er is not None and er.objective != "erasure":
        eager_attention(loaded.model)
    graphed, why = build(loaded, params, config, er, targets, er_gen, bf16)
    if graphed is not None:
        return graphed, graphed.record
    together = er is not None and (joint_step(loaded.device) if joint is None else joint)
    kind = JointStep if together else EagerStep
    step = kind(loaded.model, loaded.device, params, config, er, targets, er_gen, bf16)
    return step, ({"not_used": why} if config.cuda_graphs else None)
