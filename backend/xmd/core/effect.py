"""How much of the model's attribution falls on corrected words, before and after a retrain.

The *share* of a word is read on the same normalised scale the UI shows (``normalize``); a word
that occurs several times in one example contributes the sum of its occurrences' shares.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from xmd.core.attribution import explain
from xmd.core.modeling import LoadedModel
from xmd.core.normalize import normalize_scores
from xmd.core.types import Action, Example, Progress
from xmd.core.words import encode, split_words, word_key


def _summary(values: list[float]) -> dict[str, float | int | None]:
    if not values:
        return {"mean_share": None, "n": 0}
    return {"mean_share": float(np.mean(values)), "n": len(values)}


def feedback_shares(
    loaded: LoadedModel,
    examples: Sequence[Example],
    targets: dict[str, dict[int, Action]],
    *,
    method: str = "grad_x_input",
    max_examples: int = 256,
    batch_size: int = 32,
    max_length: int = 256,
    on_batch: Progress | None = None,
) -> dict[str, dict]:
    """Mean share of the words marked *remove* and *add*, over (at most ``max_examples``) examples
    that have feedback, explained toward their gold label."""
    chosen = [ex for ex in examples if targets.get(ex.id)][:max_examples]
    if not chosen:
        return {"remove": _summary([]), "add": _summary([]), "method": method}
    exps = explain(
        loaded,
        [ex.text for ex in chosen],
        method=method,
        target=[ex.label for ex in chosen],
        batch_size=batch_size,
        max_length=max_length,
        on_batch=on_batch,
    )
    removed, added = [], []
    for ex, e in zip(chosen, exps, strict=True):
        s = normalize_scores(e.scores)
        rem = sum(s[w] for w, a in targets[ex.id].items() if a == Action.REMOVE and w < e.n_seen)
        add = sum(s[w] for w, a in targets[ex.id].items() if a == Action.ADD and w < e.n_seen)
        if any(a == Action.REMOVE for a in targets[ex.id].values()):
            removed.append(rem)
        if any(a == Action.ADD for a in targets[ex.id].values()):
            added.append(add)
    return {"remove": _summary(removed), "add": _summary(added), "method": method}


def word_share(
    loaded: LoadedModel,
    examples: Sequence[Example],
    word: str,
    *,
    method: str = "grad_x_input",
    target: str = "predicted",
    max_examples: int = 512,
    batch_size: int = 32,
    max_length: int = 256,
) -> dict:
    """Mean share of ``word`` over the examples that contain it (toward the predicted class by
    default, or ``target="gold"``)."""
    key = word_key(word)
    chosen = [ex for ex in examples if key in {word_key(w) for w in split_words(ex.text)[0]}][:max_examples]
    if not chosen:
        return {"word": key, **_summary([]), "method": method}
    exps = explain(
        loaded,
        [ex.text for ex in chosen],
        method=method,
        target=[ex.label for ex in chosen] if target == "gold" else None,
        batch_size=batch_size,
        max_length=max_length,
    )
    values = []
    for e in exps:
        s = normalize_scores(e.scores)
        values.append(sum(s[i] for i, w in enumerate(e.words[: e.n_seen]) if word_key(w) == key))
    return {"word": key, **_summary(values), "method": method}


@torch.no_grad()
def erasure_effect(
    loaded: LoadedModel,
    examples: Sequence[Example],
    targets: dict[str, dict[int, Action]],
    *,
    max_examples: int = 256,
    batch_size: int = 32,
    max_length: int = 256,
) -> dict[str, float | int | None]:
    """Mean total-variation distance between the prediction with and without the *removed* words
    (hidden from attention, as the erasure objective hides them): 0 means the words do not matter."""
    chosen = [ex for ex in examples if any(a == Action.REMOVE for a in targets.get(ex.id, {}).values())]
    chosen = chosen[:max_examples]
    if not chosen:
        return {"mean_tv": None, "n": 0}
    model = loaded.model
    was_training = model.training
    model.eval()
    values: list[float] = []
    try:
        for start in range(0, len(chosen), batch_size):
            batch = chosen[start : start + batch_size]
            enc = encode(loaded.tokenizer, [ex.text for ex in batch], max_length=max_length).to(loaded.device)
            hidden = torch.zeros_like(enc.word_index, dtype=torch.bool)
            for b, ex in enumerate(batch):
                for w, a in targets[ex.id].items():
                    if a == Action.REMOVE:
                        hidden[b] |= enc.word_index[b] == w
            p_full = torch.softmax(model(**enc.model_inputs()).logits.float(), dim=-1)
            inputs = enc.model_inputs()
            inputs["attention_mask"] = enc.attention_mask * (~hidden).long()
            p_erased = torch.softmax(model(**inputs).logits.float(), dim=-1)
            values.extend((0.5 * (p_full - p_erased).abs().sum(-1)).tolist())
    finally:
        model.train(was_training)
    return {"mean_tv": float(np.mean(values)), "n": len(values)}
