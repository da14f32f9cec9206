"""What a retrain reports: each optimiser step (:class:`StepInfo`, to the progress callback and the loss
curve), the whole run (:class:`TrainHistory`), and how a caller stops it (:class:`TrainingCancelled`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from xmd.core.types import Cancelled


class TrainingCancelled(Cancelled):
    """Raised when the progress callback asks to stop; the model given in is left as it was."""


@dataclass
class StepInfo:
    """One optimiser step, as reported to the progress callback (and drawn as the loss curve)."""

    step: int
    total_steps: int
    epoch: int
    loss: float
    task_loss: float
    er_loss: float
    lr: float
    n_feedback: int
    elapsed_s: float

    @property
    def progress(self) -> float:
        return self.step / max(self.total_steps, 1)


ProgressCallback = Callable[[StepInfo], bool | None]
#: Called with ``(epoch, batch index, example ids)`` before each batch's forward pass, so that runs
#: meant to share their data order (a debug run and its controls) can be checked to do so.
BatchHook = Callable[[int, int, list[str]], None]


@dataclass
class TrainHistory:
    steps: list[StepInfo] = field(default_factory=list)
    seconds: float = 0.0
    #: Whether the steps ran under bf16 autocast (``TrainConfig.mixed_precision`` on a device that has it).
    bf16: bool = False
    #: With ``TrainConfig.cuda_graphs``: graphs recorded, eager steps and replays, or why none ran.
    graphs: dict | None = None

    def to_dict(self) -> dict:
        out = {"seconds": self.seconds, "steps": [asdict(s) for s in self.steps], "bf16": self.bf16}
        if self.graphs is not None:
            out["graphs"] = self.graphs
        return out
