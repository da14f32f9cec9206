"""Batched inference: class probabilities for many texts without one giant pass."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from xmd.core.modeling import LoadedModel
from xmd.core.types import Progress, tick


@torch.no_grad()
def predict_proba(
    loaded: LoadedModel,
    texts: Sequence[str],
    *,
    batch_size: int = 64,
    max_length: int = 256,
    progress: bool = False,
    on_batch: Progress | None = None,
) -> np.ndarray:
    """Return ``[N, num_labels]`` softmax probabilities, computed in batches (``on_batch`` hears of
    each and may stop the loop)."""
    if len(texts):  # the phase starts now, not when its first batch is done
        tick(on_batch, 0, len(texts))
    model, tok = loaded.model, loaded.tokenizer
    was_training = model.training
    model.eval()
    out = np.zeros((len(texts), loaded.num_labels), dtype=np.float32)
    max_length = min(max_length, int(getattr(tok, "model_max_length", max_length) or max_length))
    starts = range(0, len(texts), batch_size)
    for start in tqdm(starts, desc="predict", disable=not progress, unit="batch"):
        chunk = list(texts[start : start + batch_size])
        enc = tok(chunk, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        enc = {k: v.to(loaded.device) for k, v in enc.items()}
        logits = model(**enc).logits.float()
        out[start : start + len(chunk)] = torch.softmax(logits, dim=-1).cpu().numpy()
        if on_batch is not None:
            try:
                tick(on_batch, start + len(chunk), len(texts))
            except BaseException:
                model.train(was_training)
                raise
    model.train(was_training)
    return out
