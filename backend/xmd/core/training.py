"""Fine-tuning and explanation-regularised retraining: ``L = L_task + λ·L_ER``.

Two families of ``L_ER`` are offered, and their combination, because measurement showed they behave
very differently (README, "Why both is the default"; ``bench/effect_sweep.py``):

- ``attribution`` (the XMD paper's): the model's own word attributions, computed *inside* the
  training graph (``create_graph=True``), normalised to shares (``normalize.shares``) and pulled
  toward the feedback targets — 0 for *remove*, 1 for *add* — with MSE, MAE or Huber. It needs a
  second derivative, so the model must use eager attention. On its own it can silence the
  gradients while the model keeps using the word.
- ``erasure``: for *remove*, the prediction must not change when the word is hidden from attention
  (KL from the erased prediction, held fixed, to the full prediction); for *add*, hiding the word
  must lower the gold-class log-probability by at least a margin. It fixes the behaviour, but the
  gradient explanations people look at may still light the word up.
- ``both`` (default): ``erasure + attribution_weight · attribution`` — behaviour and display agree.

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
from tqdm.auto import tqdm

from xmd.core.attribution import DIFFERENTIABLE_METHODS, gradient_word_scores
from xmd.core.modeling import LoadedModel, seed_everything
from xmd.core.normalize import shares
from xmd.core.options import opt, redefault
from xmd.core.types import Action, DataError, Example, XMDError
from xmd.core.words import encode, word_mask

OBJECTIVES = ("erasure", "attribution", "both")
LOSSES = ("mse", "mae", "huber")

FeedbackTargets = dict[str, dict[int, Action]]


class TrainingCancelled(XMDError):
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
    mixed_precision: bool = field(default=False, metadata=opt("bf16 autocast (CUDA only)"))
    weight_decay: float = field(default=0.01, metadata=opt("AdamW weight decay", ge=0, le=1))
    warmup_ratio: float = field(default=0.06, metadata=opt("share of the steps spent warming up", ge=0, le=1))
    max_grad_norm: float = field(default=1.0, metadata=opt("gradient clipping norm", gt=0, le=1000))

    def validate(self) -> None:
        if self.epochs < 1 or self.batch_size < 1 or self.grad_accum < 1 or self.max_length < 8:
            raise ValueError("epochs, batch_size and grad_accum must be >= 1 and max_length >= 8")
        if not self.lr > 0:
            raise ValueError("lr must be positive")


@dataclass
class RetrainConfig(TrainConfig):
    """Retraining a model that is already fine-tuned, with feedback (``xmd debug``, the retrain job):
    the defaults measured for that (README, "Why both is the default": 2 epochs at 3e-5), kept apart
    from :class:`TrainConfig`'s library defaults so that changing one changes no other run."""

    epochs: int = redefault(TrainConfig, "epochs", 2)
    lr: float = redefault(TrainConfig, "lr", 3e-5)


@dataclass
class ERConfig:
    """What the explanation regulariser optimises and how strongly (``lam`` is λ).

    With ``objective="both"``, ``L_ER = erasure + attribution_weight · attribution``: the two terms
    work best at different strengths (measured: erasure destabilises training above λ≈1, while the
    attribution term needs ≈10 to silence gradients), so one λ cannot serve both.
    """

    objective: str = field(
        default="both",
        metadata=opt(
            "erasure consistency, the paper's attribution matching, or both (measured best)", choices=OBJECTIVES
        ),
    )
    loss: str = field(default="mse", metadata=opt("loss of the attribution term", choices=LOSSES))
    lam: float = field(default=1.0, metadata=opt("λ, the weight of the ER term", ge=0, le=1000))
    method: str = field(default="grad_x_input", metadata=opt("attribution in the loss", choices=DIFFERENTIABLE_METHODS))
    add_margin: float = field(default=0.5, metadata=opt("nats that hiding an 'add' word must cost", ge=0, le=100))
    attribution_weight: float = field(
        default=5.0, metadata=opt("weight μ of the attribution term with objective 'both'", ge=0, le=1000)
    )

    def validate(self) -> None:
        if self.objective not in OBJECTIVES:
            raise ValueError(f"unknown ER objective {self.objective!r}; choose one of {OBJECTIVES}")
        if self.loss not in LOSSES:
            raise ValueError(f"unknown ER loss {self.loss!r}; choose one of {LOSSES}")
        if self.method not in DIFFERENTIABLE_METHODS:
            raise ValueError(f"ER attributions need a differentiable method: {DIFFERENTIABLE_METHODS}")
        if self.lam < 0 or self.attribution_weight < 0:
            raise ValueError("lam (λ) and attribution_weight must be >= 0")


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

    def to_dict(self) -> dict:
        return {"seconds": self.seconds, "steps": [asdict(s) for s in self.steps]}


def _er_loss_fn(name: str) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    if name == "mse":
        return F.mse_loss
    if name == "mae":
        return F.l1_loss
    return lambda a, b: F.huber_loss(a, b, delta=0.1)


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


def _attribution_term(enc, word_scores: torch.Tensor, fb: tuple[torch.Tensor, torch.Tensor], er: ERConfig):
    """Shares of the in-graph attributions pulled to 1 (add) / 0 (remove) on feedback positions."""
    value, kind = fb
    mask = word_mask(enc.word_index, word_scores.shape[1])
    s = shares(word_scores, mask)
    sel = kind != 0
    return _er_loss_fn(er.loss)(s[sel], value[sel])


def _erasure_term(model, enc, labels, logits, fb: tuple[torch.Tensor, torch.Tensor], er: ERConfig):
    """Remove: KL(erased ‖ full), erased held fixed. Add: erasing must cost ``add_margin`` nats."""
    _, kind = fb
    terms = []
    logp_full = F.log_softmax(logits.float(), dim=-1)
    inputs, rows = _erase(enc, kind, -1)
    if rows.any():
        with torch.no_grad():
            sub = {k: v[rows] for k, v in inputs.items()}
            logp_erased = F.log_softmax(model(**sub).logits.float(), dim=-1)
        terms.append(F.kl_div(logp_full[rows], logp_erased, log_target=True, reduction="batchmean"))
    inputs, rows = _erase(enc, kind, 1)
    if rows.any():
        sub = {k: v[rows] for k, v in inputs.items()}
        logp_erased = F.log_softmax(model(**sub).logits.float(), dim=-1)
        y = labels[rows].view(-1, 1)
        drop = logp_full[rows].gather(1, y) - logp_erased.gather(1, y)
        terms.append(F.relu(er.add_margin - drop).mean())
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
) -> torch.Tensor:
    """``L_ER`` for one batch under the configured objective (``both`` adds the two terms).

    ``word_scores`` may cover only the rows in ``attr_rows`` (the rows with feedback), which is
    how :func:`train_loop` avoids a second derivative through rows that have none.
    """
    total = logits.new_zeros(())
    if er.objective in ("attribution", "both"):
        assert word_scores is not None, "attribution objectives need in-graph word scores"
        sub_enc, sub_fb = enc, fb
        if attr_rows is not None:
            sub_enc = enc.select(attr_rows)
            sub_fb = tuple(t[attr_rows][:, : word_scores.shape[1]] for t in fb)
        weight = er.attribution_weight if er.objective == "both" else 1.0
        total = total + weight * _attribution_term(sub_enc, word_scores, sub_fb, er)
    if er.objective in ("erasure", "both"):
        total = total + _erasure_term(model, enc, labels, logits, fb, er)
    return total


def _split_forward(
    model: torch.nn.Module, enc, labels: torch.Tensor, attr_rows: torch.Tensor, method: str
) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits of the whole batch and in-graph word scores of the ``attr_rows``, each row run once.

    Rows with feedback go through the differentiable attribution forward (a second derivative follows),
    and its logits also serve the task loss; only the other rows take a plain forward. Running every row
    through a plain forward as well cost another forward and backward of the feedback rows per step
    (``bench/er_overhead.py``). Returns ``(logits [B, C] in batch order, word_scores [R, W])``.
    """
    attr_logits, word_scores, _ = gradient_word_scores(
        model, enc.select(attr_rows), labels[attr_rows], method=method, create_graph=True
    )
    rest = ~attr_rows
    if not bool(rest.any()):
        return attr_logits, word_scores
    rest_logits = model(**enc.select(rest).model_inputs()).logits
    # Rows in (feedback rows, other rows) order, put back in batch order.
    order = torch.cat([attr_rows.nonzero().flatten(), rest.nonzero().flatten()])
    logits = torch.cat([attr_logits, rest_logits.to(attr_logits.dtype)])[torch.argsort(order)]
    return logits, word_scores


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
) -> TrainHistory:
    """Train ``loaded.model`` in place on ``examples``; ``er`` + ``targets`` add the ER term.

    The callback is called after every optimiser step; returning ``False`` cancels the run with
    :class:`TrainingCancelled`. The data order depends only on ``config.seed`` and the number of
    examples (never on the texts or on λ), which is what lets controls share it with the debug run.
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
    if use_er and er.objective != "erasure":
        impl = getattr(model.config, "_attn_implementation", "eager")
        if impl not in ("eager", None):
            if hasattr(model, "set_attn_implementation"):
                model.set_attn_implementation("eager")
            else:  # pragma: no cover - older transformers
                raise XMDError(f"attribution-matching needs attn_implementation='eager' (the model uses {impl!r})")
    seed_everything(config.seed)
    gen = torch.Generator().manual_seed(config.seed)
    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight", "norm.weight")
    params = [
        {
            "params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)],
            "weight_decay": config.weight_decay,
        },
        {"params": [p for n, p in model.named_parameters() if n.endswith(no_decay)], "weight_decay": 0.0},
    ]
    optim = torch.optim.AdamW(params, lr=config.lr)
    batches_per_epoch = math.ceil(len(examples) / config.batch_size)
    total_steps = math.ceil(batches_per_epoch / config.grad_accum) * config.epochs
    warmup = int(config.warmup_ratio * total_steps)

    def lr_lambda(step: int) -> float:
        if step < warmup:
            return (step + 1) / (warmup + 1)
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup))

    sched = torch.optim.lr_scheduler.LambdaLR(optim, lr_lambda)
    amp = (
        torch.autocast("cuda", dtype=torch.bfloat16)
        if config.mixed_precision and device.type == "cuda"
        else nullcontext()
    )
    history = TrainHistory()
    t0 = time.perf_counter()
    step = 0
    model.train()
    bar = tqdm(total=total_steps, desc="train" + (" (ER)" if use_er else ""), disable=not progress, unit="step")
    acc = {"loss": 0.0, "task": 0.0, "er": 0.0, "n_fb": 0}
    try:
        for epoch in range(config.epochs):
            perm = torch.randperm(len(examples), generator=gen).tolist()
            for bi in range(batches_per_epoch):
                batch = [examples[i] for i in perm[bi * config.batch_size : (bi + 1) * config.batch_size]]
                if batch_hook is not None:
                    batch_hook(epoch, bi, [ex.id for ex in batch])
                enc = encode(loaded.tokenizer, [ex.text for ex in batch], max_length=config.max_length)
                enc = enc.to(device)
                labels = torch.tensor([ex.label for ex in batch], device=device)
                fb = _feedback_tensors(batch, targets or {}, enc.max_words, device) if use_er else None
                with amp:
                    word_scores, attr_rows = None, None
                    if fb is not None and er.objective != "erasure":
                        attr_rows = (fb[1] != 0).any(dim=1)
                        logits, word_scores = _split_forward(model, enc, labels, attr_rows, er.method)
                    else:
                        logits = model(**enc.model_inputs()).logits
                    task_loss = F.cross_entropy(logits.float(), labels)
                    er_loss = (
                        _er_term(model, enc, labels, logits, word_scores, fb, er, attr_rows)
                        if fb is not None
                        else task_loss.new_zeros(())
                    )
                    loss = task_loss + (er.lam * er_loss if use_er else 0.0)
                (loss / config.grad_accum).backward()
                acc["loss"] += float(loss.detach()) / config.grad_accum
                acc["task"] += float(task_loss.detach()) / config.grad_accum
                acc["er"] += float(er_loss.detach()) / config.grad_accum
                acc["n_fb"] += int((fb[1] != 0).sum()) if fb is not None else 0
                last = bi == batches_per_epoch - 1
                if (bi + 1) % config.grad_accum and not last:
                    continue
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
                optim.step()
                sched.step()
                optim.zero_grad(set_to_none=True)
                step += 1
                info = StepInfo(
                    step=step,
                    total_steps=total_steps,
                    epoch=epoch,
                    loss=acc["loss"],
                    task_loss=acc["task"],
                    er_loss=acc["er"],
                    lr=sched.get_last_lr()[0],
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


RETRAIN_SETTINGS = (RetrainConfig, ERConfig)
"""The dataclasses whose fields are the retrain settings: ``xmd debug``'s flags, the API's ``RetrainIn``
and the retrain worker's configuration are all derived from them (:mod:`xmd.core.options`)."""
