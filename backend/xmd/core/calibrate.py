"""A retrain's kinds of work, timed on the user's model and data before any retrain has run.

A job's expected duration comes from the rates an earlier job of the same kind measured
(``xmd.jobs.phases``); the first retrain of a fresh install had none, so the screen could say nothing
before it started. Guessing from a constant factor of some other job would be wrong by a factor that
depends on the model, the texts and the machine, so instead a few batches of each kind of work the
retrain does are run here, through the same code the retrain runs (``train_loop``, ``evaluate_sets``,
``feedback_shares``), on a throw-away copy of the model: a training step without feedback, one where
every row carries feedback (the ER term's cost at its dearest), a forward pass (measuring) and the two
explanations of the corrected words. The caller turns them into rates per example
(:func:`xmd.jobs.phases.calibrated_rates`), mixing the two training rates by the share of training
rows that carry feedback.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xmd.core.effect import feedback_shares
from xmd.core.evaluate import evaluate_sets
from xmd.core.modeling import LoadedModel, native_bf16, use_bf16
from xmd.core.retrain import ERConfig, RetrainConfig, TrainConfig, token_lengths, train_loop
from xmd.core.retrain.steps import graphed as graphs
from xmd.core.retrain.steps import static
from xmd.core.types import Action, Example

POOL_BATCHES = 16
"""The pool the timed batches are drawn from, in batches: 512 texts at the retrain's batch of 32."""
KINDS = ("train_plain", "train_feedback", "train_erasure", "measure", "shares_grad_x_input", "shares_occlusion")
"""What :func:`time_retrain_work` times, by the phase kinds of ``xmd.jobs.phases`` (``train_*`` are the
two ends of the ``train`` kind)."""
BF16_KINDS = ("train_plain_bf16", "train_feedback_bf16")
"""Timed as well on a device that computes bf16 but does not train in it unless asked (a GPU): what a
retrain with ``mixed_precision`` true costs there."""
FP32_KINDS = ("train_plain_fp32", "train_feedback_fp32")
"""Timed as well where the default (auto) trains in bf16 (a CPU that computes bf16): what a retrain with
``mixed_precision`` false costs there. The ``train_*`` kinds of :data:`KINDS` are always timed in the
precision a retrain with the default settings runs."""
GRAPH_KINDS = ("train_plain_graphs", "train_feedback_graphs")
"""Timed as well where a retrain with ``cuda_graphs`` would take graphed steps (a CUDA device, a model that reads
the prepared mask): replayed steps only, after each graph's warm-up and capture, which a retrain pays once per
graph. Without them a graphed retrain was priced on eager steps, about 2x long on the H200 that measured both."""


@dataclass
class Timing:
    """``seconds`` that ``examples`` examples of work of ``kind`` took."""

    kind: str
    examples: int
    seconds: float


def _length_groups(
    loaded: LoadedModel, pool: Sequence[Example], batch_size: int, steps: int, max_length: int
) -> list[Example]:
    """``steps`` batches of texts of similar length, one from the middle of each of ``steps`` equal
    slices of ``pool`` sorted by length: like a retrain's length-bucketed batches (which pad little),
    spread over the lengths the data has."""
    lengths = token_lengths(loaded, pool, max_length)
    order = sorted(range(len(pool)), key=lengths.__getitem__)
    out: list[Example] = []
    for q in range(steps):
        lo, hi = q * len(order) // steps, (q + 1) * len(order) // steps
        start = max(lo, (lo + hi) // 2 - batch_size // 2)
        out.extend(pool[i] for i in order[start : min(hi, start + batch_size)])
    return out


def time_retrain_work(
    loaded: LoadedModel,
    examples: Sequence[Example],
    *,
    config: TrainConfig | None = None,
    er: ERConfig | None = None,
    steps: int = 3,
    occlusion_examples: int = 8,
    seed: int = 0,
    on_kind: Callable[[str], None] | None = None,
) -> list[Timing]:
    """Time each kind of a retrain's work with ``config`` and ``er`` (the retrain's defaults when None).

    Training runs ``steps`` batches of ``config.batch_size`` labelled examples of similar length
    (:func:`_length_groups`, from a pool of at most :func:`sample_size` drawn with ``seed``), after one
    untimed warm-up batch, on a deep copy of the model, so ``loaded`` is left as it was. Measuring
    predicts random batches, as an eval set's are. ``on_kind`` hears each kind before it runs
    (progress, cancel: it may raise). Returns nothing when ``examples`` has no labelled example.
    """
    config = dataclasses.replace(
        config or RetrainConfig(), epochs=1, grad_accum=1, length_bucketing=True, mixed_precision=None
    )
    # The ER step at its dearest, every feedback row taking the attribution term on every batch: the estimate
    # scales that term down for the retrain's attribution_rows and attribution_every (retrain.plan).
    er = dataclasses.replace(er or ERConfig(), attribution_rows=0, attribution_every=1)
    labelled = [ex for ex in examples if ex.label is not None]
    if not labelled:
        return []
    rng = random.Random(seed)
    pool = rng.sample(labelled, min(len(labelled), sample_size(config)))
    timed = _length_groups(loaded, pool, config.batch_size, steps, config.max_length)
    warm = timed[len(timed) // 2 : len(timed) // 2 + config.batch_size]
    measured = pool[: steps * config.batch_size]
    # Every row carries feedback: a *remove* on its first word, the ER term at its dearest.
    every = {ex.id: {0: Action.REMOVE} for ex in pool}
    scratch = dataclasses.replace(loaded, model=copy.deepcopy(loaded.model))
    out: list[Timing] = []

    def timed_run(kind: str, run: Callable[[], object], count: int) -> None:
        if on_kind is not None:
            on_kind(kind)
        t0 = time.perf_counter()
        run()
        out.append(Timing(kind, count, time.perf_counter() - t0))

    # The first steps pay one-off costs; an ER run also switches the copy to eager attention, as a
    # retrain does for all its steps, the plain ones included.
    if on_kind is not None:
        on_kind("train_feedback")
    train_loop(scratch, warm, config, er=er, targets=every)
    timed_run("train_plain", lambda: train_loop(scratch, timed, config), len(timed))
    timed_run("train_feedback", lambda: train_loop(scratch, timed, config, er=er, targets=every), len(timed))
    # The erasure term alone: what is left of the ER step where its attribution term is skipped
    # (attribution_every, attribution_rows), so the estimate can price those settings.
    erasure = dataclasses.replace(er, objective="erasure")
    timed_run("train_erasure", lambda: train_loop(scratch, timed, config, er=erasure, targets=every), len(timed))
    if native_bf16(loaded.device):  # the other precision a retrain may ask for here: price it too
        other = not use_bf16(None, loaded.device)
        plain_kind, feedback_kind = BF16_KINDS if other else FP32_KINDS
        alt = dataclasses.replace(config, mixed_precision=other)
        train_loop(scratch, warm, alt, er=er, targets=every)
        timed_run(plain_kind, lambda: train_loop(scratch, timed, alt), len(timed))
        timed_run(feedback_kind, lambda: train_loop(scratch, timed, alt, er=er, targets=every), len(timed))
    graphed = dataclasses.replace(config, cuda_graphs=True)
    if graphs.wanted(graphed, loaded.device) and graphs.takes_4d_mask(scratch.model):
        group = _one_bucket(loaded, pool, config.batch_size, config.max_length)
        for kind, targets in zip(GRAPH_KINDS, (None, every), strict=True):
            if on_kind is not None:
                on_kind(kind)
            out.append(_replays(scratch, group, graphed, er if targets else None, targets, kind, steps))
    evaluate_sets(loaded, {"warm-up": measured[:8]}, max_length=config.max_length)
    timed_run(
        "measure",
        lambda: evaluate_sets(loaded, {"calibration": measured}, max_length=config.max_length),
        len(measured),
    )
    for method, chosen in (("grad_x_input", timed), ("occlusion", pool[:occlusion_examples])):
        timed_run(
            f"shares_{method}",
            lambda m=method, c=chosen: feedback_shares(
                loaded, c, every, method=m, max_examples=len(c), max_length=config.max_length
            ),
            len(chosen),
        )
    return out


def _one_bucket(loaded: LoadedModel, pool: Sequence[Example], batch_size: int, max_length: int) -> list[Example]:
    """``batch_size`` texts of ``pool`` whose lengths fall in the length bucket of its median text and are
    nearest to it (repeated if the bucket holds fewer): any batch drawn from them replays one graph."""
    lengths = token_lengths(loaded, pool, max_length)
    order = sorted(range(len(pool)), key=lengths.__getitem__)
    median = order[len(order) // 2]
    bucket = static.bucket(lengths[median], max_length)
    same = [i for i in order if static.bucket(lengths[i], max_length) == bucket]
    start = max(0, min(same.index(median) - batch_size // 2, len(same) - batch_size))
    chosen = same[start : start + batch_size]
    return [pool[i] for i in (chosen * batch_size)[:batch_size]]


def _replays(
    loaded: LoadedModel,
    group: Sequence[Example],
    config: TrainConfig,
    er: ERConfig | None,
    targets: dict | None,
    kind: str,
    steps: int,
) -> Timing:
    """``steps`` graphed steps of ``group`` (one batch of texts of similar length, so one graph), timed after
    the graph's :data:`xmd.core.retrain.steps.graphed.WARMUP` eager steps and the step that records it."""
    first = graphs.WARMUP + 1
    history = train_loop(loaded, list(group) * (first + steps), config, er=er, targets=targets)
    elapsed = [s.elapsed_s for s in history.steps]
    timed = len(elapsed) - first
    return Timing(kind, timed * len(group), elapsed[-1] - elapsed[first - 1])


def sample_size(config: TrainConfig | None = None) -> int:
    """Examples :func:`time_retrain_work` draws its batches from (a store reads this many, not a whole
    dataset): enough for its length groups to be as even as a retrain's length-bucketed batches."""
    return (config or RetrainConfig()).batch_size * POOL_BATCHES


__all__ = ["BF16_KINDS", "FP32_KINDS", "GRAPH_KINDS", "KINDS", "Timing", "sample_size", "time_retrain_work"]
