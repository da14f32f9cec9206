"""Word-level attributions for batches of texts, behind one entry point.

Methods (all return one signed score per word, merged from sub-words by summing, see ``words.py``):

- ``grad_x_input`` (default): gradient of the target logit w.r.t. the input embeddings, times the
  embeddings, summed over the hidden dimension. One forward and one backward per batch.
- ``saliency``: L2 norm of that gradient per token (unsigned).
- ``integrated_gradients``: what Captum's ``LayerIntegratedGradients`` computes on the word-embedding
  layer (Gauss-Legendre rule), from a ``[CLS] [PAD] … [SEP]`` baseline, run in passes of about
  ``IG_TOKEN_BUDGET`` tokens; reports the convergence delta per example.
- ``occlusion``: leave-one-word-out — the drop in the target class probability when the word's
  tokens are deleted from the input. Forward passes only, all variants batched.

``grad_x_input`` and ``saliency`` are differentiable (``create_graph=True``) and are the same code
the explanation-regularised loss uses, so what the UI shows is what training optimises.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import torch
from tqdm.auto import tqdm

from xmd.core.modeling import LoadedModel
from xmd.core.types import Explanation, Progress, tick
from xmd.core.words import Encoded, encode, merge_to_words

METHODS = ("grad_x_input", "saliency", "integrated_gradients", "occlusion")
DIFFERENTIABLE_METHODS = ("grad_x_input", "saliency")
DEFAULT_METHOD = "grad_x_input"
"""The method a project explains with unless it says otherwise (fast, signed, and the one the loss uses)."""


def forward_embeds(model: torch.nn.Module, enc: Encoded, embeds: torch.Tensor) -> torch.Tensor:
    kwargs = {"inputs_embeds": embeds, "attention_mask": enc.attention_mask}
    if enc.token_type_ids is not None:
        kwargs["token_type_ids"] = enc.token_type_ids
    return model(**kwargs).logits


def gradient_word_scores(
    model: torch.nn.Module,
    enc: Encoded,
    targets: torch.Tensor | None = None,
    *,
    method: str = "grad_x_input",
    create_graph: bool = False,
    embeds: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Forward once, differentiate the target logits w.r.t. the input embeddings.

    ``targets`` of ``None`` or ``-1`` in a row mean "the predicted class", taken from the same
    forward pass. Returns ``(logits [B, C], word_scores [B, W], targets [B])``. With ``create_graph=True`` the
    word scores stay in the autograd graph so a loss on them trains the model (decision 1 of the
    architecture guide); without it the embeddings are detached leaves and no parameter gradient
    is built. ``embeds``: ``enc``'s word embeddings, already looked up (a slice of a larger batch's).
    """
    if method not in DIFFERENTIABLE_METHODS:
        raise ValueError(f"method {method!r} is not gradient-based; use one of {DIFFERENTIABLE_METHODS}")
    if embeds is None:
        embeds = model.get_input_embeddings()(enc.input_ids)
    if not create_graph:
        embeds = embeds.detach().requires_grad_(True)
    logits = forward_embeds(model, enc, embeds)
    predicted = logits.detach().argmax(dim=-1)
    targets = predicted if targets is None else torch.where(targets < 0, predicted, targets)
    picked = logits.gather(1, targets.view(-1, 1)).sum()
    (grads,) = torch.autograd.grad(picked, embeds, create_graph=create_graph)
    return logits, gradient_to_words(grads, embeds, enc, method), targets


def gradient_to_words(grads: torch.Tensor, embeds: torch.Tensor, enc: Encoded, method: str) -> torch.Tensor:
    """Word scores ``[B, W]`` from the gradient w.r.t. the input embeddings ``[B, T, D]``: grad x input or
    the gradient's norm (saliency) per token, real tokens only, summed per word (differentiable)."""
    token_scores = (grads * embeds).sum(dim=-1) if method == "grad_x_input" else grads.norm(dim=-1)
    token_scores = token_scores * enc.attention_mask.to(token_scores.dtype)
    return merge_to_words(token_scores, enc.word_index, enc.max_words)


def _baseline_ids(loaded: LoadedModel, enc: Encoded) -> torch.Tensor:
    """``[CLS] [PAD] … [SEP]``: keep special tokens, replace every word piece by the pad token."""
    pad = loaded.tokenizer.pad_token_id
    if pad is None:
        pad = loaded.tokenizer.unk_token_id or 0
    special = (enc.word_index < 0) & enc.attention_mask.bool()
    base = torch.full_like(enc.input_ids, pad)
    return torch.where(special, enc.input_ids, base)


# Rows x padded tokens per forward + backward of integrated gradients on a CPU. Throughput per token
# falls as one pass's activations outgrow the caches: on the 2-core benchmark machine (50 steps, quiet
# machine) one pass per batch of 32 texts ran at 0.3x the per-text Captum loop, passes of 1,024 to 4,096
# tokens in example-major order at 1.03-1.05x and 512-token passes at 0.98x
# (bench/attribution/results/ig_chunking.json).
IG_TOKEN_BUDGET = 2048
# On a GPU bigger passes keep it busy: batched IG ran at 19-32x the per-text loop on an H100
# (bench/attribution/results/attribution_throughput_cuda.json).
IG_TOKEN_BUDGET_GPU = 65536


def _ig_quadrature(n_steps: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Gauss-Legendre points mapped to [0, 1] and their weights: Captum's default rule, so scores match it."""
    import numpy as np

    points, weights = np.polynomial.legendre.leggauss(n_steps)
    return (
        torch.tensor(0.5 * (points + 1), dtype=torch.float32, device=device),
        torch.tensor(0.5 * weights, dtype=torch.float32, device=device),
    )


def _integrated_gradients(
    loaded: LoadedModel,
    enc: Encoded,
    targets: torch.Tensor,
    n_steps: int,
    internal_batch_size: int | None,
    token_budget: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Integrated gradients on the word-embedding output, as Captum's ``LayerIntegratedGradients``.

    Same path (``[CLS] [PAD] … [SEP]`` baseline to the input, interpolated on the word embeddings
    before position and token-type embeddings are added), same Gauss-Legendre rule and the same
    convergence delta, computed here so that the (example, step) rows can be cut into passes of about
    ``token_budget`` tokens (default ``IG_TOKEN_BUDGET``, on a GPU ``IG_TOKEN_BUDGET_GPU``; or
    ``internal_batch_size`` rows), each trimmed to the longest text it holds, and so that Captum's
    two extra forward passes to record the layer are skipped.
    """
    model = loaded.model
    embedding = model.get_input_embeddings()
    with torch.no_grad():
        x = embedding(enc.input_ids)
        base = embedding(_baseline_ids(loaded, enc))
    diff = x - base
    n, length = enc.input_ids.shape
    lengths = enc.attention_mask.sum(dim=1)
    alphas, weights = _ig_quadrature(n_steps, x.device)
    weights = weights.to(x.dtype)
    budget = token_budget or (IG_TOKEN_BUDGET if x.device.type == "cpu" else IG_TOKEN_BUDGET_GPU)
    rows = internal_batch_size or max(1, budget // max(1, length))
    # Right padding: a pass can be cut to its longest text (left padding keeps the full width).
    trim = getattr(loaded.tokenizer, "padding_side", "right") == "right"
    # Example-major order (every step of text 0, then of text 1, …), cut into passes of ``rows`` rows: a
    # pass then holds one or two texts of (length-sorted) similar length, so trimming it to its longest
    # text leaves almost no padding. Step-major order mixed ~20 lengths per pass: 0.87x the per-text loop
    # against 1.01x for this order, both at 512 tokens (bench/attribution/ig_chunking.py, 50 steps, same machine).
    step_of = torch.arange(n_steps, device=x.device).repeat(n)
    example_of = torch.arange(n, device=x.device).repeat_interleave(n_steps)
    total = torch.zeros_like(x)
    with torch.enable_grad():
        for start in range(0, n * n_steps, rows):
            ex, st = example_of[start : start + rows], step_of[start : start + rows]
            width = int(lengths[ex].max()) if trim else length
            scaled = base[ex, :width] + alphas[st].view(-1, 1, 1).to(x.dtype) * diff[ex, :width]
            scaled.requires_grad_(True)
            kwargs = {"inputs_embeds": scaled, "attention_mask": enc.attention_mask[ex, :width]}
            if enc.token_type_ids is not None:
                kwargs["token_type_ids"] = enc.token_type_ids[ex, :width]
            picked = model(**kwargs).logits.gather(1, targets[ex].view(-1, 1)).sum()
            (grads,) = torch.autograd.grad(picked, scaled)
            total[:, :width].index_add_(0, ex, grads.detach() * weights[st].view(-1, 1, 1))
    attrs = total * diff
    with torch.no_grad():
        kwargs = {"inputs_embeds": torch.cat([x, base]), "attention_mask": enc.attention_mask.repeat(2, 1)}
        if enc.token_type_ids is not None:
            kwargs["token_type_ids"] = enc.token_type_ids.repeat(2, 1)
        ends = model(**kwargs).logits.float().gather(1, targets.repeat(2).view(-1, 1)).view(2, n)
    delta = attrs.float().sum(dim=(1, 2)) - (ends[0] - ends[1])
    token_scores = attrs.sum(dim=-1) * enc.attention_mask.to(attrs.dtype)
    return merge_to_words(token_scores, enc.word_index, enc.max_words), delta


@torch.no_grad()
def _occlusion(
    loaded: LoadedModel, enc: Encoded, probs: torch.Tensor, targets: torch.Tensor, batch_size: int
) -> torch.Tensor:
    """Delete each seen word's tokens in turn and record the drop in the target probability."""
    model = loaded.model
    pad = loaded.tokenizer.pad_token_id or 0
    variants: list[tuple[int, int, torch.Tensor, torch.Tensor | None]] = []
    for b in range(enc.input_ids.shape[0]):
        real = enc.attention_mask[b].bool()
        ids, widx = enc.input_ids[b][real], enc.word_index[b][real]
        tt = enc.token_type_ids[b][real] if enc.token_type_ids is not None else None
        for w in range(enc.n_seen[b]):
            keep = widx != w
            variants.append((b, w, ids[keep], tt[keep] if tt is not None else None))
    scores = torch.zeros(enc.input_ids.shape[0], enc.max_words, device=enc.input_ids.device)
    for start in range(0, len(variants), batch_size):
        chunk = variants[start : start + batch_size]
        length = max(v[2].numel() for v in chunk)
        ids = torch.full((len(chunk), length), pad, dtype=torch.long, device=enc.input_ids.device)
        mask = torch.zeros_like(ids)
        tts = torch.zeros_like(ids) if enc.token_type_ids is not None else None
        for i, (_, _, v_ids, v_tt) in enumerate(chunk):
            ids[i, : v_ids.numel()] = v_ids
            mask[i, : v_ids.numel()] = 1
            if tts is not None:
                tts[i, : v_ids.numel()] = v_tt
        kwargs = {"input_ids": ids, "attention_mask": mask}
        if tts is not None:
            kwargs["token_type_ids"] = tts
        p = torch.softmax(model(**kwargs).logits.float(), dim=-1)
        for i, (b, w, _, _) in enumerate(chunk):
            scores[b, w] = probs[b, targets[b]] - p[i, targets[b]]
    return scores


def _resolve_targets(target, n: int) -> list[int | None]:
    if target is None:
        return [None] * n
    if isinstance(target, int):
        return [target] * n
    targets = list(target)
    if len(targets) != n:
        raise ValueError(f"got {len(targets)} targets for {n} texts")
    return targets


def explain(
    loaded: LoadedModel,
    texts: Sequence[str],
    *,
    method: str = "grad_x_input",
    target: int | Sequence[int | None] | None = None,
    batch_size: int = 32,
    max_length: int = 256,
    n_steps: int = 20,
    internal_batch_size: int | None = None,
    example_ids: Sequence[str] | None = None,
    progress: bool = False,
    on_batch: Progress | None = None,
) -> list[Explanation]:
    """Explain ``texts`` toward ``target`` (default: each text's predicted class), in batches
    (``on_batch`` hears how many are done after each, and may stop the loop).

    Texts are processed in length-sorted batches (less padding) and returned in input order. The
    model is put in eval mode, so results are deterministic for fixed weights.
    """
    if method not in METHODS:
        raise ValueError(f"unknown attribution method {method!r}; choose one of {METHODS}")
    targets_in = _resolve_targets(target, len(texts))
    for t in targets_in:
        if t is not None and not 0 <= t < loaded.num_labels:
            raise ValueError(f"target class {t} is out of range for {loaded.num_labels} classes")
    if texts:  # the phase starts now, not when its first batch is done (a job times its phases by these)
        tick(on_batch, 0, len(texts))
    model = loaded.model
    was_training = model.training
    model.eval()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    results: list[Explanation | None] = [None] * len(texts)
    batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]

    def encode_batch(idx: list[int]) -> Encoded:
        return encode(loaded.tokenizer, [texts[i] for i in idx], max_length=max_length)

    # Tokenising the next batch overlaps the model's work on this one: on a GPU the word mapping
    # otherwise leaves the device idle for a third of the time (bench/attribution/attribution_throughput.py).
    prefetch = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xmd-encode")
    try:
        pending = prefetch.submit(encode_batch, batches[0]) if batches else None
        for k, idx in enumerate(tqdm(batches, desc=f"explain ({method})", disable=not progress, unit="batch")):
            assert pending is not None
            enc = pending.result().to(loaded.device)
            pending = prefetch.submit(encode_batch, batches[k + 1]) if k + 1 < len(batches) else None
            fixed = [targets_in[i] for i in idx]
            delta = None
            if method in DIFFERENTIABLE_METHODS:
                with torch.enable_grad():
                    tgt = torch.tensor([-1 if t is None else t for t in fixed], device=loaded.device)
                    logits, word_scores, tgt = gradient_word_scores(model, enc, tgt, method=method)
                probs = torch.softmax(logits.detach().float(), dim=-1)
            else:
                with torch.no_grad():
                    probs = torch.softmax(model(**enc.model_inputs()).logits.float(), dim=-1)
                predicted = probs.argmax(dim=-1).tolist()
                tgt = torch.tensor(
                    [predicted[j] if t is None else t for j, t in enumerate(fixed)], device=loaded.device
                )
                if method == "integrated_gradients":
                    word_scores, delta = _integrated_gradients(loaded, enc, tgt, n_steps, internal_batch_size)
                else:
                    word_scores = _occlusion(loaded, enc, probs, tgt, batch_size=max(batch_size, 32))
            # One device-to-host copy per batch, not one per row or per score.
            scores_l = word_scores.detach().float().cpu().tolist()
            probs_l = probs.cpu().tolist()
            tgt_l = tgt.tolist()
            delta_l = delta.abs().tolist() if delta is not None else None
            for j, i in enumerate(idx):
                n_words = len(enc.words[j])
                results[i] = Explanation(
                    words=enc.words[j],
                    spans=enc.spans[j],
                    scores=scores_l[j][:n_words],
                    target=int(tgt_l[j]),
                    probs=probs_l[j],
                    method=method,
                    n_seen=enc.n_seen[j],
                    delta=float(delta_l[j]) if delta_l is not None else None,
                    example_id=str(example_ids[i]) if example_ids is not None else None,
                )
            tick(on_batch, sum(len(b) for b in batches[: k + 1]), len(texts))
    finally:
        prefetch.shutdown(wait=True, cancel_futures=True)
        model.train(was_training)
    return [r for r in results if r is not None]
