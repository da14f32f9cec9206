"""A fine-tune as a job shows it: the phases, the step hook and the phase hooks that the demo's preparation
(:mod:`xmd.workspace.demo`) and a project started from a CSV (:mod:`xmd.workspace.from_data`) share, so
both report steps, an ETA from the measured step rate, and listen for a cancel the same way."""

from __future__ import annotations

from collections.abc import Callable

from xmd.core.retrain import StepInfo, TrainConfig, count_steps
from xmd.core.types import Progress
from xmd.jobs import phases as job_phases
from xmd.jobs.context import JobContext

ROUGH_TRAIN_SHARE = 90.0
"""Before a step was measured (no ETA yet), the bar moves by the steps over this share of the job."""


def fine_tune_phases(model: str, n_train: int, config: TrainConfig) -> list[job_phases.Phase]:
    """The load and train phases of fine-tuning ``model`` (its name as the screen says it) on ``n_train``
    examples; the train phase counts optimiser steps, scaled by the batch size for the rate prior."""
    return [
        job_phases.Phase("load", f"loading {model}", 1, unit="model", kind="load", minor=True),
        job_phases.Phase(
            "train",
            f"fine-tuning {model}",
            count_steps(n_train, config),
            unit="steps",
            kind="train",
            scale=config.batch_size,
        ),
    ]


def phase_hooks(ctx: JobContext) -> Callable[[str], Progress]:
    """``on_phase(name)`` for the core: each phase's hook, whose start is written at once (so the screen
    names the phase before its first step) and which answers False once a cancel was asked for."""

    def phase(name: str) -> Progress:
        hook = ctx.phase(name)

        def report(done: int, total: int) -> bool:
            go = hook(done, total)
            return bool(go) and not (done == 0 and ctx.progress())  # a phase's start shows at once

        return report

    return phase


def step_hook(ctx: JobContext, config: TrainConfig) -> Callable[[StepInfo], bool]:
    """The core's per-step callback: the train phase's steps, epoch and loss on the job row, and False
    (stop) once a cancel was asked for."""

    def on_step(info: StepInfo) -> bool:
        assert ctx.tracker is not None, "declare the phases with plan() first"
        ctx.tracker.update("train", info.step, info.total_steps)
        per_epoch = max(1.0, info.total_steps / config.epochs)
        rough = None if ctx.tracker.eta() is not None else ROUGH_TRAIN_SHARE * info.progress
        cancel = ctx.progress(
            rough, step=info.step, total_steps=info.total_steps, epoch=info.step / per_epoch, task_loss=info.task_loss
        )
        return not cancel

    return on_step
