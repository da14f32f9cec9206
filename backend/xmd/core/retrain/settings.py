"""The retrain settings: one definition each (default, bounds, choices, help in the field metadata).

``xmd debug``'s flags, the API's ``RetrainIn`` and the retrain worker's configuration are derived from
these dataclasses by :mod:`xmd.core.options`, which also checks every field against its metadata when
a config is built (:class:`~xmd.core.options.Settings`), so a config is valid from the moment it exists.
Which settings exist, and the measurement behind each, is docs/settings.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xmd.core.options import Settings, opt, redefault
from xmd.core.retrain.batching import BUCKET_POOL_BATCHES

OBJECTIVES = ("erasure", "attribution", "both")


@dataclass
class TrainConfig(Settings):
    """Optimisation settings shared by the baseline fine-tune and the regularised retrain."""

    epochs: int = field(default=1, metadata=opt("passes over the training data", ge=1, le=50))
    lr: float = field(default=2e-5, metadata=opt("peak learning rate (linear warm-up, then decay)", gt=0, le=1))
    batch_size: int = field(default=16, metadata=opt("examples per optimiser step (before accumulation)", ge=1, le=512))
    max_length: int = field(default=128, metadata=opt("truncate inputs to this many tokens", ge=8, le=4096))
    seed: int = field(default=0, metadata=opt("seed for shuffling and initialisation", ge=0, le=2**31 - 1))
    grad_accum: int = field(default=1, metadata=opt("gradient accumulation steps", ge=1, le=1024))
    mixed_precision: bool | None = field(
        default=None,
        metadata=opt(
            "bf16 autocast of the training steps. Unset (auto): on a CPU that computes bf16 natively "
            "(AVX512-BF16 or AMX), where retraining ran 1.2-2.3x faster with the same effect; float32 on a GPU, "
            "where small steps ran slower in bf16. true: wherever the device computes bf16 natively; false: "
            "float32. bf16 is never emulated; the run records whether it was used"
        ),
    )
    weight_decay: float = field(default=0.01, metadata=opt("AdamW weight decay", ge=0, le=1))
    warmup_ratio: float = field(default=0.06, metadata=opt("share of the steps spent warming up", ge=0, le=1))
    max_grad_norm: float = field(default=1.0, metadata=opt("gradient clipping norm", gt=0, le=1000))
    eval_max_examples: int = field(
        default=2000,
        metadata=opt(
            "measure each eval set on at most this many examples (a sample fixed by the seed; Results shows it)",
            ge=10,
            le=10_000_000,
        ),
    )
    cuda_graphs: bool = field(
        default=False,
        metadata=opt(
            "on a GPU, record each training step once as a CUDA graph and replay it (a small model's step waits "
            "on kernel launches, not arithmetic); batches are padded to the batch size and to 16/32/64/128… "
            "tokens. Not with gradient accumulation; the run records whether it was used"
        ),
    )
    length_bucketing: bool = field(
        default=True,
        metadata=opt(
            "batch texts of similar token length together (seeded pools of "
            f"{BUCKET_POOL_BATCHES} batches sorted by length, batches shuffled), so a batch is padded "
            "only to its own longest text; every example still appears once per epoch"
        ),
    )


@dataclass
class RetrainConfig(TrainConfig):
    """Retraining a model that is already fine-tuned, with feedback (``xmd debug``, the retrain job):
    the defaults measured for that (README, "Why both is the default": 2 epochs at 3e-5, batches of 32 —
    the batch every effect benchmark ran with, and half the optimiser steps of 16, whose fixed cost per
    step dominates a CPU retrain), kept apart from :class:`TrainConfig`'s library defaults so that changing
    one changes no other run."""

    epochs: int = redefault(TrainConfig, "epochs", 2)
    lr: float = redefault(TrainConfig, "lr", 3e-5)
    batch_size: int = redefault(TrainConfig, "batch_size", 32)


@dataclass
class ERConfig(Settings):
    """What the explanation regulariser optimises and how strongly (``lam`` is λ).

    With ``objective="both"``, ``L_ER = erasure + attribution_weight · attribution``: the two terms
    work best at different strengths (measured: erasure destabilises training above λ≈1, while the
    attribution term needs ≈10 to silence gradients), so one λ cannot serve both. The attribution term
    is grad x input shares pulled to their targets with MSE; an *add* word's share is signed (it must push
    toward the gold label). A step on a GPU runs the batch and its erased copies in one forward pass
    (:func:`xmd.core.retrain.steps.joint_step`).
    """

    objective: str = field(
        default="both",
        metadata=opt(
            "erasure consistency, the paper's attribution matching, or both (measured best)", choices=OBJECTIVES
        ),
    )
    lam: float = field(default=1.0, metadata=opt("λ, the weight of the ER term", ge=0, le=1000))
    attribution_weight: float = field(
        default=5.0, metadata=opt("weight μ of the attribution term with objective 'both'", ge=0, le=1000)
    )
    attribution_rows: int = field(
        default=8,
        metadata=opt(
            "at most this many feedback rows per batch take the attribution term (its second derivative is "
            "the dearest part of a step): those that took it the fewest times so far in the run, ties drawn "
            "with a seeded generator; 0 = every feedback row; the erasure term still sees every feedback row. "
            "8 (of 32 rows a batch) kept the effect on the demo and on real posts, and brought a whole CPU "
            "retrain from 1.8x to 1.5x λ = 0's time (docs/settings.md)",
            ge=0,
            le=4096,
        ),
    )
    attribution_every: int = field(
        default=1,
        metadata=opt(
            "the attribution term (second derivative) on every k-th batch only, weighted by k so its mean "
            "strength stays; the other batches take the erasure term alone (objective 'both') or no ER term "
            "(objective 'attribution'); 1 = every batch",
            ge=1,
            le=64,
        ),
    )


CONTROL_ARMS = ("lambda0", "deletion", "deletion_base", "strip")
"""The controls a debug run is compared with (:mod:`xmd.core.controls`): λ = 0, deletion of the
removed words, deletion from the base model (the user's recipe on the cleaned data), and ``strip``:
no training, the λ = 0 arm of each seed (else the parent) predicting with the removed words stripped
from its input — the filter anyone can write, so the cheapest rival (issue 30 §4)."""


@dataclass
class ControlOptions(Settings):
    """Controls and seeds of a retrain (issue 14): each arm trains from the same parent with the same
    data order, steps and seeds as the debug run, so its gain can be told from continued training
    and from deleting the words; every arm runs ``seeds`` times (seed, seed + 1, …)."""

    controls: tuple[str, ...] = field(
        default=(),
        metadata=opt("control arms trained beside the debug run (none: no comparison)", choices=CONTROL_ARMS),
    )
    seeds: int = field(
        default=1, metadata=opt("with controls: every arm runs this many seeds (3 is advised)", ge=1, le=10)
    )
    quality: bool = field(default=False, metadata=opt("with controls: faithfulness (AOPC) of every arm before/after"))
    rationale_column: str = field(
        default="",
        metadata=opt("with controls: eval-set column of human rationales for plausibility (AUPRC, token-F1)"),
    )


RETRAIN_SETTINGS = (RetrainConfig, ERConfig, ControlOptions)
"""The dataclasses whose fields are the retrain settings: ``xmd debug``'s flags, the API's ``RetrainIn``
and the retrain worker's configuration are all derived from them (:mod:`xmd.core.options`)."""
