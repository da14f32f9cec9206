"""Fine-tuning and explanation-regularised retraining: ``L = L_task + λ·L_ER``.

Where each part lives:

- :mod:`.settings` — the settings dataclasses (``TrainConfig``, ``RetrainConfig``, ``ERConfig``,
  ``ControlOptions``; which exist and why: docs/settings.md);
- :mod:`.objective` — the loss: one function per ER term and the single ``task + λ·L_ER``;
- :mod:`.steps` — the training step in its three forms (eager, joint, graphed), one interface;
- :mod:`.loop` — :func:`train_loop`: batches, steps, the schedule, progress;
- :mod:`.batching` — the batches' order, the steps they make, the feedback of a batch as tensors;
- :mod:`.optim` — AdamW and the learning-rate schedule; :mod:`.history` — what a run reports.
"""

from xmd.core.retrain.batching import FeedbackTargets, batch_order, count_steps, token_lengths
from xmd.core.retrain.history import (
    BatchHook,
    ProgressCallback,
    StepInfo,
    TrainHistory,
    TrainingCancelled,
)
from xmd.core.retrain.loop import train_loop
from xmd.core.retrain.settings import (
    CONTROL_ARMS,
    OBJECTIVES,
    RETRAIN_SETTINGS,
    ControlOptions,
    ERConfig,
    RetrainConfig,
    TrainConfig,
)

__all__ = [
    "CONTROL_ARMS",
    "OBJECTIVES",
    "RETRAIN_SETTINGS",
    "BatchHook",
    "ControlOptions",
    "ERConfig",
    "FeedbackTargets",
    "ProgressCallback",
    "RetrainConfig",
    "StepInfo",
    "TrainConfig",
    "TrainHistory",
    "TrainingCancelled",
    "batch_order",
    "count_steps",
    "token_lengths",
    "train_loop",
]
