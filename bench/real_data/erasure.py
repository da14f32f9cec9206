"""The pure pieces of the ceiling study: where the identity words are, erasing them, rates by group, top words.

Kept apart from ``real_data_ceiling.py`` (the model runs) so each piece is tested on its own, fast.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np
from xmd.core.deletion import delete_positions
from xmd.core.types import Explanation
from xmd.core.words import is_punctuation, split_words, word_key


def identity_positions(text: str, keys: set[str] | Sequence[str]) -> list[int]:
    """xmd word positions of ``text`` whose :func:`word_key` (NFKC, case-folded) is in ``keys`` — the same
    positions the task-level *remove* feedback regularises and the deletion control deletes."""
    wanted = {word_key(k) for k in keys}
    return [i for i, w in enumerate(split_words(text)[0]) if word_key(w) in wanted]


def replace_positions(text: str, positions: Sequence[int], placeholder: str) -> str:
    """``text`` with the word at each of ``positions`` replaced by ``placeholder`` (everything else intact)."""
    drop = set(positions)
    if not drop:
        return text
    out, cursor = [], 0
    for i, (s, e) in enumerate(split_words(text)[1]):
        if i in drop:
            out += [text[cursor:s], placeholder]
            cursor = e
    return "".join(out) + text[cursor:]


def erase(text: str, positions: Sequence[int], placeholder: str | None = None) -> str:
    """Delete the words at ``positions`` (``placeholder`` None) or replace each by ``placeholder``."""
    return delete_positions(text, positions) if placeholder is None else replace_positions(text, positions, placeholder)


def _in_placeholder(words: Sequence[str], i: int) -> bool:
    """The ``user`` of ``< user >``: a HateXplain placeholder that xmd splits into three words."""
    return 0 < i < len(words) - 1 and words[i - 1] == "<" and words[i + 1] == ">"


def random_positions(text: str, n: int, keys: set[str] | Sequence[str], rng: random.Random) -> list[int]:
    """``n`` positions of other words to delete as the control: not punctuation, not an identity word, not the
    inside of a ``<user>``-style placeholder; all of them when the post has fewer."""
    wanted = {word_key(k) for k in keys}
    words = split_words(text)[0]
    cands = [
        i
        for i, w in enumerate(words)
        if not is_punctuation(w) and word_key(w) not in wanted and not _in_placeholder(words, i)
    ]
    return sorted(rng.sample(cands, min(n, len(cands))))


def count_bucket(n: int) -> str:
    """The identity-word count bucket of a post: ``"0"``, ``"1"``, ``"2"``, ``"3+"``."""
    return str(n) if n < 3 else "3+"


def rate(flags: np.ndarray) -> float | None:
    return float(np.mean(flags)) if flags.size else None


def rates_by_group(pred: np.ndarray, groups: Sequence[str], order: Sequence[str]) -> dict[str, dict]:
    """For each group in ``order``: how many posts, how many predicted positive, and the rate (None if empty)."""
    g = np.asarray(groups, dtype=object)
    out = {}
    for name in order:
        sel = pred[g == name]
        out[name] = {"n": int(sel.size), "positive": int(sel.sum()), "rate": rate(sel)}
    return out


def top_word(exp: Explanation) -> int | None:
    """Position of the word with the largest signed score toward the explained class (None if no word scored)."""
    n = min(exp.n_seen, len(exp.scores))
    if n <= 0:
        return None
    return int(np.argmax(exp.scores[:n]))


def top_word_table(exps: Sequence[Explanation], keys: set[str], k: int = 12) -> list[dict]:
    """The words the model relies on over ``exps``: for each word key, in how many explanations it is the top
    word and among the top 3, and its mean share of the positive score where it occurs; ``k`` most frequent
    top words (then top-3 counts) first."""
    top1: Counter[str] = Counter()
    top3: Counter[str] = Counter()
    share: dict[str, list[float]] = defaultdict(list)
    for e in exps:
        scores = np.asarray(e.scores[: e.n_seen], dtype=np.float64)
        if not scores.size:
            continue
        pos_total = float(np.clip(scores, 0, None).sum()) or 1.0
        order = np.argsort(-scores)
        t = top_word(e)
        if t is not None:
            top1[word_key(e.words[t])] += 1
        for i in order[:3]:
            top3[word_key(e.words[int(i)])] += 1
        seen: dict[str, float] = defaultdict(float)
        for w, s in zip(e.words[: scores.size], scores, strict=True):
            seen[word_key(w)] += max(float(s), 0.0) / pos_total
        for w, s in seen.items():
            share[w].append(s)
    ranked = sorted(set(top1) | set(top3), key=lambda w: (-top1[w], -top3[w], w))[:k]
    return [
        {
            "word": w,
            "identity": w in keys,
            "top1": top1[w],
            "top3": top3[w],
            "posts": len(share[w]),
            "mean_positive_share": round(float(np.mean(share[w])), 4),
        }
        for w in ranked
    ]
