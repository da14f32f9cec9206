"""Builders shared by the store tests (hand-made explanations, no model)."""

from __future__ import annotations

import random

from xmd.core.types import Example as CoreExample
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words

VOCAB = ["spielberg", "great", "bad", "movie", "the", "plot", "acting", "boring", "fun", "Spielberg", "GREAT", "it's"]


def make_explanation(text: str, scores: list[float], n_seen: int | None = None, probs=(0.5, 0.5)) -> CoreExplanation:
    words, spans = split_words(text)
    assert len(words) == len(scores)
    return CoreExplanation(
        words=words,
        spans=spans,
        scores=list(scores),
        target=0,
        probs=list(probs),
        method="grad_x_input",
        n_seen=len(words) if n_seen is None else n_seen,
    )


def random_examples(n: int, rng: random.Random, num_labels: int = 2, prefix: str = "e") -> list[CoreExample]:
    out = []
    for i in range(n):
        k = rng.randint(1, 8)
        words = [rng.choice(VOCAB) for _ in range(k)]
        if rng.random() < 0.3:
            words.append(rng.choice([".", "!", ","]))
        label = None if rng.random() < 0.1 else rng.randrange(num_labels)
        out.append(CoreExample(id=f"{prefix}{i}", text=" ".join(words), label=label))
    return out
