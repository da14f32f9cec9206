"""The training loop of a fine-tune and of a retrain: batches in a seeded order, one step per batch
(:mod:`xmd.core.retrain.steps`), the optimiser and its schedule, progress and cancelling.

Training always starts from the weights it is given (the user's fine-tuned model), and nothing here writes
to the model's source directory.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import torch
from torch.profiler import record_function
from tqdm.auto import tqdm

from xmd.core.modeling import LoadedModel, seed_everything, use_bf16
from xmd.core.retrain.batching import FeedbackTargets, batch_order, count_steps, token_lengths
from xmd.core.retrain.history import BatchHook, ProgressCallback, StepInfo, TrainHistory, TrainingCancelled
from xmd.core.retrain.optim import param_groups, schedule
from xmd.core.retrain.settings import ERConfig, TrainConfig
from xmd.core.retrain.steps import make_step
from xmd.core.types import DataError, Example
from xmd.core.words import encode

ER_SEED_OFFSET = 7919
"""The ER sampling's generator is seeded apart from the data order's, so no ER setting moves the batches."""


def train_loop(
    loaded: LoadedModel,
    examples: Sequence[Example],
    config: TrainConfig,
    *,
    er: ERConfig | None = None,
    targets: FeedbackTargets | None = None,
    callback: ProgressCallback | None = None,
    progress: bool = False,
    batch_hook: BatchHook | None = None,
    order_lengths: Sequence[int] | None = None,
    joint: bool | None = None,
) -> TrainHistory:
    """Train ``loaded.model`` in place on ``examples``; ``er`` + ``targets`` add the ER term.

    The callback is called after every optimiser step; returning ``False`` cancels the run with
    :class:`TrainingCancelled`. The data order depends only on ``config.seed``, the number of examples
    and, with length bucketing, their token counts (never on λ); ``order_lengths`` overrides those counts
    so that runs on edited texts (the deletion control) keep the debug run's batches. ``joint`` forces the
    eager ER step's form (None: by device; the loss is the same either way).
    """
    if not examples:
        raise DataError("no training examples")
    if any(ex.label is None for ex in examples):
        raise DataError("every training example needs a label")
    use_er = er is not None and er.lam > 0 and bool(targets)
    model, device = loaded.model, loaded.device
    seed_everything(config.seed)
    gen = torch.Generator().manual_seed(config.seed)
    er_gen = torch.Generator().manual_seed(config.seed + ER_SEED_OFFSET)
    lengths = None  # without length bucketing: batches are slices of one seeded permutation
    if config.length_bucketing:
        given = order_lengths is not None
        lengths = list(order_lengths) if given else token_lengths(loaded, examples, config.max_length)
    bf16 = use_bf16(config.mixed_precision, device)
    params = param_groups(model, config.weight_decay)
    step_fn, graphs = make_step(loaded, params, config, er if use_er else None, targets or {}, er_gen, bf16, joint)
    batches_per_epoch = math.ceil(len(examples) / config.batch_size)
    total_steps = count_steps(len(examples), config)
    sched = schedule(step_fn.optim, total_steps, config.warmup_ratio)
    history = TrainHistory(bf16=bf16, graphs=graphs)
    t0 = time.perf_counter()
    step = 0
    model.train()
    bar = tqdm(total=total_steps, desc="train" + (" (ER)" if use_er else ""), disable=not progress, unit="step")
    acc = {"loss": 0.0, "task": 0.0, "er": 0.0, "n_fb": 0}
    try:
        for epoch in range(config.epochs):
            for bi, rows in enumerate(
                batch_order(len(examples), config.batch_size, gen, lengths if config.length_bucketing else None)
            ):
                batch = [examples[i] for i in rows]
                if batch_hook is not None:
                    batch_hook(epoch, bi, [ex.id for ex in batch])
                enc = encode(loaded.tokenizer, [ex.text for ex in batch], max_length=config.max_length)
                # The attribution term runs on every k-th batch (ERConfig.attribution_every), counted over
                # the whole run so that it does not depend on epoch boundaries.
                skip = use_er and (epoch * batches_per_epoch + bi) % er.attribution_every != 0
                parts = step_fn.run(enc, batch, skip)
                for key, value in zip(("loss", "task", "er"), parts, strict=False):
                    acc[key] += value / config.grad_accum
                acc["n_fb"] += round(parts[3])
                if (bi + 1) % config.grad_accum and bi != batches_per_epoch - 1:
                    continue
                with record_function("xmd.optimizer"):
                    step_fn.update()
                    sched.step()
                step += 1
                info = StepInfo(
                    step=step,
                    total_steps=total_steps,
                    epoch=epoch,
                    loss=acc["loss"],
                    task_loss=acc["task"],
                    er_loss=acc["er"],
                    lr=float(sched.get_last_lr()[0]),
                    n_feedback=acc["n_fb"],
                    elapsed_s=time.perf_counter() - t0,
                )
                acc = {"loss": 0.0, "task": 0.0, "er": 0.0, "n_fb": 0}
                history.steps.append(info)
                bar.update(1)
                bar.set_postfix(loss=f"{info.loss:.4f}", er=f"{info.er_loss:.4f}")
                if callback is not None and callback(info) is False:
                    raise TrainingCancelled(f"training cancelled at step {step}/{total_steps}")
    finally:
        bar.close()
        model.eval()
        history.seconds = time.perf_counter() - t0
    return history
