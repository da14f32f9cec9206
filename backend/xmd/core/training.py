"""Fine-tuning and explanation-regularised retraining: ``L = L_task + λ·L_ER``.

Two families of ``L_ER`` are offered, and their combination, because measurement showed they behave
very differently (README, "Why both is the default"; ``bench/effect_sweep.py``):

- ``attribution`` (the XMD paper's): the model's own word attributions, computed *inside* the
  training graph (``create_graph=True``), normalised to shares (``normalize.shares``) and pulled
  toward the feedback targets — 0 for *remove*, 1 for *add* — with MSE. It needs a
  second derivative, so the model must use eager attention. On its own it can silence the
  gradients while the model keeps using the word.
- ``erasure``: for *remove*, the prediction must not change when the word is hidden from attention
  (KL from the erased prediction, held fixed, to the full prediction); for *add*, hiding the word
  must lower the gold-class log-probability by at least a margin. It fixes the behaviour, but the
  gradient explanations people look at may still light the word up.
- ``both`` (default): ``erasure + attribution_weight · attribution`` — behaviour and display agree.

The attribution term's gradient is a second derivative, taken through a double backward pass.

On a GPU, ``TrainConfig.cuda_graphs`` replays each step from a CUDA graph (:mod:`xmd.core.graphs`: the same
loss as the joint step, with static shapes).

Training always starts from the weights it is given (the user's fine-tuned model), and the
functions here never write to the model's source directory.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field

import torch
import torch.nn.functional as F
from torch.profiler import record_function
from tqdm.auto import tqdm

from xmd.core import graphs
from xmd.core.attribution import _forward_embeds, gradient_to_words, gradient_word_scores
from xmd.core.modeling import LoadedModel, seed_everything, use_bf16
from xmd.core.normalize import shares
from xmd.core.options import opt, redefault
from xmd.core.types import Action, Cancelled, DataError, Example, XMDError
from xmd.core.words import encode, word_mask

OBJECTIVES = ("erasure", "attribution", "both")
ER_METHOD = "grad_x_input"
"""The attribution in the loss: grad x input, the method the screen shows by default."""
ADD_MARGIN = 0.5
"""Nats that hiding an *add* word must cost (the erasure term's add half)."""
#: Length bucketing sorts pools of this many batches by length (bigger pools pad less, but the
#: batches of a pool then differ more in length and are less random in content).
BUCKET_POOL_BATCHES = 50

FeedbackTargets = dict[str, dict[int, Action]]


class TrainingCancelled(Cancelled):
    """Raised when the progress callback asks to stop; the model given in is left as it was."""


@dataclass
class TrainConfig:
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
            "tokens. Not with gradient accumulation; the "
            "run records whether it was used"
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

    def validate(self) -> None:
        if self.epochs < 1 or self.batch_size < 1 or self.grad_accum < 1 or self.max_length < 8:
            raise ValueError("epochs, batch_size and grad_accum must be >= 1 and max_length >= 8")
        if not self.lr > 0:
            raise ValueError("lr must be positive")


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
class ERConfig:
    """What the explanation regulariser optimises and how strongly (``lam`` is λ).

    With ``objective="both"``, ``L_ER = erasure + attribution_weight · attribution``: the two terms
    work best at different strengths (measured: erasure destabilises training above λ≈1, while the
    attribution term needs ≈10 to silence gradients), so one λ cannot serve both. The attribution term
    is grad x input shares pulled to their targets with MSE; an *add* word's share is signed (it must push
    toward the gold label). A step on a GPU runs the batch and its erased copies in one forward pass
    (:func:`joint_step`).
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
        default=0,
        metadata=opt(
            "at most this many feedback rows per batch take the attribution term (its second derivative is "
            "the dearest part of a step): those that took it the fewest times so far in the run, ties drawn "
            "with a seeded generator; 0 = every feedback row; the erasure term still sees every feedback row",
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

    def validate(self) -> None:
        if self.objective not in OBJECTIVES:
            raise ValueError(f"unknown ER objective {self.objective!r}; choose one of {OBJECTIVES}")
        if self.lam < 0 or self.attribution_weight < 0 or self.attribution_rows < 0 or self.attribution_every < 1:
            raise ValueError("lam (λ), attribution_weight and attribution_rows must be >= 0, attribution_every >= 1")


def joint_step(device: torch.device) -> bool:
    """Whether an ER step on ``device`` runs the batch and its erased copies in one forward pass
    (:func:`_joint_forward`): on a GPU, where a step waits on kernel launches (BENCHMARKS.md, H200: the
    default ER step 4.43x -> 2.59x a plain step); on a CPU the erased rows in the backward pass cost more
    than the launches saved (``er_overhead_joint.json``: 1.75x -> 2.31x). Same loss either way."""
    return device.type == "cuda"


def batch_order(
    n: int,
    batch_size: int,
    gen: torch.Generator,
    lengths: Sequence[int] | None = None,
    pool_batches: int = BUCKET_POOL_BATCHES,
) -> list[list[int]]:
    """The batches of one epoch as lists of example indices: a permutation of ``range(n)``.

    Without ``lengths``: consecutive slices of one seeded permutation (the order training always had).
    With ``lengths`` (token counts): the permutation is cut into pools of ``pool_batches`` batches,
    each pool sorted by length (stable) and cut into batches, and the batches are shuffled; a batch
    then holds texts of similar length, so dynamic padding pads little, and the order is still drawn
    from ``gen`` alone, so a seed reproduces it.
    """
    perm = torch.randperm(n, generator=gen).tolist()
    if lengths is None:
        return [perm[i : i + batch_size] for i in range(0, n, batch_size)]
    pool = batch_size * pool_batches
    batches: list[list[int]] = []
    for start in range(0, n, pool):
        chunk = sorted(perm[start : start + pool], key=lambda i: lengths[i])
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    return [batches[i] for i in torch.randperm(len(batches), generator=gen).tolist()]


def _attribution_subset(
    attr_rows: torch.Tensor, limit: int, gen: torch.Generator, taken: Sequence[int] | None = None
) -> torch.Tensor:
    """At most ``limit`` of the True rows of ``attr_rows`` (0 keeps them all): those that took the attribution
    term the fewest times so far (``taken``, per batch row), ties in an order drawn from ``gen``. With no
    counts, or equal ones (a run's first epoch), that is a seeded random draw."""
    idx = attr_rows.nonzero().flatten()
    if limit <= 0 or len(idx) <= limit:
        return attr_rows
    rank = torch.randperm(len(idx), generator=gen)
    pos = torch.empty_like(rank)
    pos[rank] = torch.arange(len(idx))
    if taken is not None:
        pos = pos + len(idx) * torch.tensor([taken[i] for i in idx.tolist()], dtype=pos.dtype)
    keep = idx[pos.argsort()[:limit].to(idx.device)]
    out = torch.zeros_like(attr_rows)
    out[keep] = True
    return out


def pick_attribution_rows(
    attr_rows: torch.Tensor, limit: int, gen: torch.Generator, batch: Sequence[Example], taken: dict[str, int]
) -> torch.Tensor:
    """``ERConfig.attribution_rows``: the batch's rows that take the attribution term, fewest-taken first over
    the run (``taken`` counts them by example id), so a second epoch gives the term to the feedback examples
    the first left out before it repeats one."""
    if limit <= 0:
        return attr_rows
    out = _attribution_subset(attr_rows, limit, gen, [taken.get(ex.id, 0) for ex in batch])
    for i in out.nonzero().flatten().tolist():
        taken[batch[i].id] = taken.get(batch[i].id, 0) + 1
    return out


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


def _mse(a: torch.Tensor, b: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    """The attribution term's loss; ``reduction="none"`` per entry (the graphed step masks and averages them)."""
    return F.mse_loss(a, b, reduction=reduction)


def _feedback_tensors(
    batch: Sequence[Example], targets: FeedbackTargets, n_words: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor] | None:
    """``(value [B, W], kind [B, W])``: value 1 for add / 0 for remove; kind 1 add, -1 remove, 0 none."""
    kind = torch.zeros(len(batch), n_words, dtype=torch.long)
    any_fb = False
    for b, ex in enumerate(batch):
        for w, action in targets.get(ex.id, {}).items():
            if w < n_words:
                kind[b, w] = 1 if action == Action.ADD else -1
                any_fb = True
    if not any_fb:
        return None
    kind = kind.to(device)
    return (kind == 1).float(), kind


def _erase(enc, word_kind: torch.Tensor, which: int) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """Inputs with the tokens of words of ``kind == which`` hidden from attention, and the rows hit."""
    idx = enc.word_index.clamp(min=0)
    token_kind = word_kind.gather(1, idx) * (enc.word_index >= 0).long()
    hit = token_kind == which
    rows = hit.any(dim=1)
    inputs = enc.model_inputs()
    inputs["attention_mask"] = enc.attention_mask * (~hit).long()
    return inputs, rows


def signed_shares(word_scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """``score / Σ|scores|`` per example: :func:`xmd.core.normalize.shares` with the sign kept, so a
    word pushing toward the explained class (the gold label in training) is positive, against it negative."""
    mag = shares(word_scores, mask)
    return torch.where(word_scores < 0, -mag, mag)


def _attribution_term(enc, word_scores: torch.Tensor, fb: tuple[torch.Tensor, torch.Tensor], er: ERConfig):
    """Shares of the in-graph attributions pulled to 1 (add) / 0 (remove) on feedback positions.

    A *remove* word's absolute share goes to 0 (it must not matter either way). An *add* word's share
    goes to 1 signed: it must push toward the gold label, the class the scores are taken for.
    """
    value, kind = fb
    s = _feedback_shares(enc, word_scores, kind, er)
    sel = kind != 0
    return _mse(s[sel], value[sel])


def _feedback_shares(enc, word_scores: torch.Tensor, kind: torch.Tensor, er: ERConfig) -> torch.Tensor:
    """Each word's share of its example's attribution, signed for *add* words: what the attribution term
    pulls to its targets."""
    mask = word_mask(enc.word_index, word_scores.shape[1])
    s = shares(word_scores, mask)
    return torch.where(kind == 1, signed_shares(word_scores, mask), s)


Erased = dict[int, tuple[torch.Tensor, torch.Tensor]]
"""Logits of erased copies already computed, in the graph, by the feedback kind hidden (-1 remove, 1 add):
``(logits of the hit rows, hit rows [B] bool)`` (:func:`_joint_forward`)."""


def _erasure_term(
    model, enc, labels, logits, fb: tuple[torch.Tensor, torch.Tensor], er: ERConfig, erased: Erased | None = None
):
    """Remove: KL(erased ‖ full), erased held fixed. Add: erasing must cost :data:`ADD_MARGIN` nats.

    ``erased``: erased copies already run (the joint forward's), reused instead
    of another forward of the same inputs; the *remove* ones are detached here."""
    _, kind = fb
    erased = erased or {}
    terms = []
    logp_full = F.log_softmax(logits.float(), dim=-1)
    if -1 in erased:
        cf_logits, rows = erased[-1]
        logp_erased = F.log_softmax(cf_logits.detach().float(), dim=-1) if rows.any() else None
    else:
        inputs, rows = _erase(enc, kind, -1)
        logp_erased = None
        if rows.any():
            with torch.no_grad():
                sub = {k: v[rows] for k, v in inputs.items()}
                logp_erased = F.log_softmax(model(**sub).logits.float(), dim=-1)
    if logp_erased is not None:
        terms.append(F.kl_div(logp_full[rows], logp_erased, log_target=True, reduction="batchmean"))
    if 1 in erased:
        add_logits, rows = erased[1]
    else:
        inputs, rows = _erase(enc, kind, 1)
        add_logits = model(**{k: v[rows] for k, v in inputs.items()}).logits if rows.any() else None
    if rows.any():
        logp_erased = F.log_softmax(add_logits.float(), dim=-1)
        y = labels[rows].view(-1, 1)
        drop = logp_full[rows].gather(1, y) - logp_erased.gather(1, y)
        terms.append(F.relu(ADD_MARGIN - drop).mean())
    return torch.stack(terms).sum() if terms else logits.new_zeros(())


def _er_term(
    model: torch.nn.Module,
    enc,
    labels: torch.Tensor,
    logits: torch.Tensor,
    word_scores: torch.Tensor | None,
    fb: tuple[torch.Tensor, torch.Tensor],
    er: ERConfig,
    attr_rows: torch.Tensor | None = None,
    skip_attribution: bool = False,
    erased: Erased | None = None,
) -> torch.Tensor:
    """``L_ER`` for one batch under the configured objective (``both`` adds the two terms).

    ``word_scores`` may cover only the rows in ``attr_rows`` (the rows with feedback), which is
    how :func:`train_loop` avoids a second derivative through rows that have none.
    ``skip_attribution`` leaves the attribution term out on the batches that
    ``ERConfig.attribution_every`` skips (it is weighted by k on the others). ``erased``: the erased
    copies :func:`_joint_forward` already ran.
    """
    total = logits.new_zeros(())
    weight = (er.attribution_weight if er.objective == "both" else 1.0) * er.attribution_every
    if er.objective in ("attribution", "both") and (word_scores is not None or not skip_attribution):
        assert word_scores is not None, "attribution objectives need in-graph word scores"
        sub_enc, sub_fb = enc, fb
        if attr_rows is not None:
            sub_enc = enc.select(attr_rows)
            sub_fb = tuple(t[attr_rows][:, : word_scores.shape[1]] for t in fb)
        total = total + weight * _attribution_term(sub_enc, word_scores, sub_fb, er)
    if er.objective in ("erasure", "both"):
        total = total + _erasure_term(model, enc, labels, logits, fb, er, erased)
    return total


def _split_forward(
    model: torch.nn.Module, enc, labels: torch.Tensor, attr_rows: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits of the whole batch and in-graph word scores of the ``attr_rows``, each row run once.

    Rows with feedback go through the differentiable attribution forward (a second derivative follows),
    and its logits also serve the task loss; only the other rows take a plain forward. Running every row
    through a plain forward as well cost another forward and backward of the feedback rows per step
    (``bench/er_overhead.py``). The word embeddings are looked up once for the whole batch and sliced:
    each lookup's backward builds a dense ``[vocab, dim]`` gradient (about 20 ms for MiniLM on one core),
    which two lookups paid twice a step. Returns ``(logits [B, C] in batch order, word_scores [R, W])``.
    """
    embeds = model.get_input_embeddings()(enc.input_ids)
    sub = enc.select(attr_rows)
    attr_logits, word_scores, _ = gradient_word_scores(
        model,
        sub,
        labels[attr_rows],
        method=ER_METHOD,
        create_graph=True,
        embeds=embeds[attr_rows][:, : sub.input_ids.shape[1]],
    )
    return _with_rest(model, enc, attr_rows, attr_logits, embeds), word_scores


def _with_rest(
    model: torch.nn.Module,
    enc,
    attr_rows: torch.Tensor,
    attr_logits: torch.Tensor,
    embeds: torch.Tensor | None = None,
) -> torch.Tensor:
    """Logits of the whole batch in batch order: ``attr_logits`` (of the ``attr_rows``, already run) and a
    plain forward of the other rows (from the batch's word ``embeds`` where given)."""
    rest = ~attr_rows
    if not bool(rest.any()):
        return attr_logits
    sub = enc.select(rest)
    if embeds is None:
        rest_logits = model(**sub.model_inputs()).logits
    else:
        rest_logits = _forward_embeds(model, sub, embeds[rest][:, : sub.input_ids.shape[1]])
    # Rows in (feedback rows, other rows) order, put back in batch order.
    order = torch.cat([attr_rows.nonzero().flatten(), rest.nonzero().flatten()])
    return torch.cat([attr_logits, rest_logits.to(attr_logits.dtype)])[torch.argsort(order)]


def erased_kinds(er: ERConfig) -> list[int]:
    """Feedback kinds (-1 remove, 1 add) whose erased copies the ER terms read: the erasure term's, both."""
    return [-1, 1] if er.objective != "attribution" else []


def _joint_forward(
    model: torch.nn.Module,
    enc,
    labels: torch.Tensor,
    fb: tuple[torch.Tensor, torch.Tensor],
    er: ERConfig,
    attr_rows: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor | None, Erased]:
    """One forward pass over the batch and the erased copies the ER term needs, and the in-graph word
    scores of ``attr_rows`` (None: no attribution term this step) from the same pass.

    The same loss as :func:`_split_forward` plus the erasure term's own forwards, in one pass: on a GPU a
    step of this size waits on kernel launches, not arithmetic. Every row then enters the (second-order)
    backward pass, which on a CPU costs more than the launches it saves. Returns ``(logits [B, C], word
    scores [R, W] or None, erased copies)``.
    """
    kind = fb[1]
    b = enc.input_ids.shape[0]
    hide = erased_kinds(er)
    picks, masks, hit = [torch.arange(b, device=enc.input_ids.device)], [enc.attention_mask], {}
    for which in hide:
        inputs, rows = _erase(enc, kind, which)
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
    return logits, gradient_to_words(g, e, sub, ER_METHOD), erased


def adamw(params: list[dict], lr: float, device: torch.device) -> torch.optim.AdamW:
    """AdamW with torch's fused kernel where it has one for the device, else its default (foreach).

    The same update rule; on the 2-core CPU the optimiser phase of a plain MiniLM step at batch 16 took
    39 ms fused against 117 ms with the default loop, of a 310 ms step (``bench/results/er_profile.json``)."""
    if device.type in ("cpu", "cuda"):
        try:
            return torch.optim.AdamW(params, lr=lr, fused=True)
        except (RuntimeError, ValueError):  # a dtype or device the fused kernel does not take
            pass
    return torch.optim.AdamW(params, lr=lr)


def count_steps(n_examples: int, config: TrainConfig) -> int:
    """Optimiser steps :func:`train_loop` takes over ``n_examples`` (what a job's plan shows)."""
    return math.ceil(math.ceil(n_examples / config.batch_size) / config.grad_accum) * config.epochs


def token_lengths(loaded: LoadedModel, examples: Sequence[Example], max_length: int) -> list[int]:
    """Token count of each example after truncation: the key of length-bucketed batches."""
    ids = loaded.tokenizer([ex.text for ex in examples], truncation=True, max_length=max_length)
    return [len(x) for x in ids["input_ids"]]


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
    eager ER step's form (None: :func:`joint_step` of the device; the loss is the same either way).
    """
    config.validate()
    if er is not None:
        er.validate()
    if any(ex.label is None for ex in examples):
        raise DataError("every training example needs a label")
    if not examples:
        raise DataError("no training examples")
    use_er = er is not None and er.lam > 0 and bool(targets)
    model, device = loaded.model, loaded.device
    joint = use_er and (joint_step(device) if joint is None else joint)
    if use_er and er.objective != "erasure":
        impl = getattr(model.config, "_attn_implementation", "eager")
        if impl not in ("eager", None):
            if hasattr(model, "set_attn_implementation"):
                model.set_attn_implementation("eager")
            else:  # pragma: no cover - older transformers
                raise XMDError(f"attribution-matching needs attn_implementation='eager' (the model uses {impl!r})")
    seed_everything(config.seed)
    gen = torch.Generator().manual_seed(config.seed)
    # ER sampling draws from its own generator, so the data order does not depend on the ER settings.
    er_gen = torch.Generator().manual_seed(config.seed + 7919)
    taken: dict[str, int] = {}  # feedback examples' attribution-term count (ERConfig.attribution_rows)
    lengths = list(order_lengths) if order_lengths is not None else None
    if config.length_bucketing and lengths is None:
        lengths = token_lengths(loaded, examples, config.max_length)
    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight", "norm.weight")
    params = [
        {
            "params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)],
            "weight_decay": config.weight_decay,
        },
        {"params": [p for n, p in model.named_parameters() if n.endswith(no_decay)], "weight_decay": 0.0},
    ]
    graphed, graphs_not_used = graphs.build(loaded, params, config, er if use_er else None, targets or {})
    optim = graphed.optim if graphed is not None else adamw(params, config.lr, device)
    batches_per_epoch = math.ceil(len(examples) / config.batch_size)
    total_steps = count_steps(len(examples), config)
    warmup = int(config.warmup_ratio * total_steps)

    def lr_lambda(step: int) -> float:
        if step < warmup:
            return (step + 1) / (warmup + 1)
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup))

    sched = torch.optim.lr_scheduler.LambdaLR(optim, lr_lambda)
    bf16 = use_bf16(config.mixed_precision, device)
    amp = torch.autocast(device.type, dtype=torch.bfloat16) if bf16 else nullcontext()
    history = TrainHistory(bf16=bf16)
    if config.cuda_graphs:
        history.graphs = graphed.record if graphed is not None else {"not_used": graphs_not_used}
    t0 = time.perf_counter()
    step = 0
    model.train()
    bar = tqdm(total=total_steps, desc="train" + (" (ER)" if use_er else ""), disable=not progress, unit="step")
    acc = {"loss": 0.0, "task": 0.0, "er": 0.0, "n_fb": 0}
    try:
        for epoch in range(config.epochs):
            order = batch_order(len(examples), config.batch_size, gen, lengths if config.length_bucketing else None)
            for bi, rows in enumerate(order):
                batch = [examples[i] for i in rows]
                if batch_hook is not None:
                    batch_hook(epoch, bi, [ex.id for ex in batch])
                enc = encode(loaded.tokenizer, [ex.text for ex in batch], max_length=config.max_length)
                # The attribution term runs on every k-th batch (ERConfig.attribution_every), counted over
                # the whole run so that it does not depend on epoch boundaries.
                gi = epoch * batches_per_epoch + bi
                skip_attr = use_er and gi % er.attribution_every != 0
                if graphed is not None:
                    er_run = er if use_er else None
                    parts = graphs.run(graphed, enc, batch, targets or {}, config, er_run, skip_attr, er_gen, taken)
                else:
                    enc = enc.to(device)
                    labels = torch.tensor([ex.label for ex in batch], device=device)
                    fb = _feedback_tensors(batch, targets or {}, enc.max_words, device) if use_er else None
                    # Named ranges for torch.profiler (bench/er_profile.py); a few microseconds when none runs.
                    with amp, record_function("xmd.forward_and_loss"):
                        word_scores, attr_rows, erased = None, None, None
                        if fb is not None and er.objective != "erasure" and not skip_attr:
                            attr_rows = (fb[1] != 0).any(dim=1)
                            attr_rows = pick_attribution_rows(attr_rows, er.attribution_rows, er_gen, batch, taken)
                        if fb is not None and joint:
                            logits, word_scores, erased = _joint_forward(model, enc, labels, fb, er, attr_rows)
                        elif attr_rows is not None:
                            logits, word_scores = _split_forward(model, enc, labels, attr_rows)
                        else:
                            logits = model(**enc.model_inputs()).logits
                        task_loss = F.cross_entropy(logits.float(), labels)
                        er_loss = (
                            _er_term(model, enc, labels, logits, word_scores, fb, er, attr_rows, skip_attr, erased)
                            if fb is not None
                            else task_loss.new_zeros(())
                        )
                        loss = task_loss + (er.lam * er_loss if use_er else 0.0)
                    with record_function("xmd.backward"):
                        (loss / config.grad_accum).backward()
                    # One device-to-host copy per batch: each is a sync, which a GPU step bound by launches feels.
                    n_fb = (fb[1] != 0).sum() if fb is not None else torch.zeros((), device=device)
                    parts = torch.stack([t.detach().float() for t in (loss, task_loss, er_loss, n_fb)]).tolist()
                for key, value in zip(("loss", "task", "er"), parts, strict=False):
                    acc[key] += value / config.grad_accum
                acc["n_fb"] += round(parts[3])
                last = bi == batches_per_epoch - 1
                if (bi + 1) % config.grad_accum and not last:
                    continue
                with record_function("xmd.optimizer"):
                    if graphed is None:  # a graphed step clipped and stepped already
                        torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
                        optim.step()
                        optim.zero_grad(set_to_none=True)
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


CONTROL_ARMS = ("lambda0", "deletion", "deletion_base")
"""The controls a debug run is compared with (:mod:`xmd.core.controls`): λ = 0, deletion of the
removed words, and deletion from the base model (the user's recipe on the cleaned data)."""


@dataclass
class ControlOptions:
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

    def validate(self) -> None:
        if any(a not in CONTROL_ARMS for a in self.controls) or len(set(self.controls)) != len(self.controls):
            raise ValueError(f"controls must be distinct names from {CONTROL_ARMS}, got {list(self.controls)}")
        if self.seeds < 1:
            raise ValueError("seeds must be >= 1")


RETRAIN_SETTINGS = (RetrainConfig, ERConfig, ControlOptions)
"""The dataclasses whose fields are the retrain settings: ``xmd debug``'s flags, the API's ``RetrainIn``
and the retrain worker's configuration are all derived from them (:mod:`xmd.core.options`)."""
