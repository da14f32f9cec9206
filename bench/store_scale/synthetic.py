"""Synthetic explained examples for the store benchmarks: the texts, and their word aggregates by numpy.

``make_data`` draws the texts the full ingest stores; ``numpy_deltas`` computes the aggregates the service
would keep for as many explained examples, so ``--aggregates-only`` (and ``api_latency`` at 1M) builds the
task view's table in seconds, checked against the service's own ``contributions`` + ``accumulate``.
"""

from __future__ import annotations

import itertools
import random
import time
from typing import Any

import numpy as np
from xmd.core.normalize import EPS
from xmd.core.types import Example as CoreExample
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words
from xmd.db.engine import analyze
from xmd.explanations import service as explanations
from xmd.explanations.aggregates import Delta, accumulate, contributions, lock_state

PLANTED = "spielberg"


def make_data(n: int, rng: random.Random) -> list[CoreExample]:
    vocab = [f"w{i}" for i in range(30_000)]
    # Zipf; cumulative once (``choices`` would re-accumulate 30k weights per call), same draws.
    cum_weights = list(itertools.accumulate(1 / (i + 1) for i in range(len(vocab))))
    out = []
    for i in range(n):
        label = int(rng.random() < 0.5)
        words = rng.choices(vocab, cum_weights=cum_weights, k=rng.randint(8, 30))
        if label == 1 and rng.random() < 0.3:
            words.insert(rng.randrange(len(words)), PLANTED)
        out.append(CoreExample(id=str(i), text=" ".join(words) + " .", label=label))
    return out


def draw_explained(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``n`` explained examples as arrays, drawn like :func:`make_data` plus the full run's scores: per
    word slot (example, vocabulary id or -1 for the planted word, score), the final "." as id -2, and
    each example's label."""
    rng = np.random.default_rng(seed)
    cum = np.cumsum(1.0 / np.arange(1, 30_001))
    labels = (rng.random(n) < 0.5).astype(np.int64)
    lengths = rng.integers(8, 31, n)
    planted = (labels == 1) & (rng.random(n) < 0.3)
    slots = lengths + planted + 1  # words, the planted word, "."
    ex = np.repeat(np.arange(n), slots)
    starts = np.concatenate([[0], np.cumsum(slots)[:-1]])
    pos = np.arange(len(ex)) - starts[ex]
    ids = np.searchsorted(cum, rng.random(len(ex)) * cum[-1], side="right")
    ids[pos == lengths[ex] + planted[ex]] = -2
    ids[planted[ex] & (pos == 0)] = -1
    scores = rng.standard_normal(len(ex)) + np.where(ids == -1, 4.0, 0.0)
    return ex, ids, scores, labels, slots


def numpy_deltas(n: int, seed: int) -> tuple[dict[str, Delta], list[int]]:
    """The per-word sums the service would keep for :func:`draw_explained`'s examples, with the core's
    rules (share = |s| / (sum |s| + EPS) over all of an example's words, punctuation left out of the
    table, one entry per word per example); checked against the service's own function by
    :func:`check_numpy_deltas`."""
    ex, ids, scores, labels, _ = draw_explained(n, seed)
    mags = np.abs(scores)
    shares = mags / (np.bincount(ex, weights=mags, minlength=n)[ex] + EPS)
    signed = np.where(scores < 0, -shares, shares)
    keep = ids != -2
    ex, ids, shares, signed = ex[keep], ids[keep], shares[keep], signed[keep]
    key = ex * 30_001 + (ids + 1)  # one entry per (example, word)
    uniq, inv = np.unique(key, return_inverse=True)
    u_word = uniq % 30_001 - 1
    u_label = labels[uniq // 30_001]
    sh = np.bincount(inv, weights=shares)
    sg = np.bincount(inv, weights=signed)
    deltas: dict[str, Delta] = {}
    words, w_inv = np.unique(u_word, return_inverse=True)
    count = np.bincount(w_inv)
    sum_share = np.bincount(w_inv, weights=sh)
    sum_signed = np.bincount(w_inv, weights=sg)
    per_label = [np.bincount(w_inv[u_label == lab], minlength=len(words)) for lab in (0, 1)]
    for j, w in enumerate(words):
        d = deltas[PLANTED if w == -1 else f"w{w}"] = Delta(2)
        d.count, d.sum_share, d.sum_signed = int(count[j]), float(sum_share[j]), float(sum_signed[j])
        d.label_counts = [int(per_label[0][j]), int(per_label[1][j])]
    return deltas, [int((labels == 0).sum()), int((labels == 1).sum())]


def check_numpy_deltas(n: int = 3000, seed: int = 1) -> float:
    """Largest difference between :func:`numpy_deltas` and the service's ``contributions`` + ``accumulate``
    on the same drawn examples (counts and label counts must be equal)."""
    _, ids, scores, labels, slots = draw_explained(n, seed)
    exps, bounds = {}, np.concatenate([[0], np.cumsum(slots)])
    for i in range(n):
        sl = slice(bounds[i], bounds[i + 1])
        words = [PLANTED if w == -1 else "." if w == -2 else f"w{w}" for w in ids[sl]]
        text = " ".join(words)
        exps[i] = CoreExplanation(words, split_words(text)[1], scores[sl].tolist(), 1, [0.3, 0.7], "g", len(words))
    want: dict[str, Delta] = {}
    for eid, entries in contributions(2, exps).items():
        accumulate(want, 2, entries, int(labels[eid]), 1)
    got, _ = numpy_deltas(n, seed)
    assert got.keys() == want.keys()
    worst = 0.0
    for k, d in want.items():
        g = got[k]
        assert (g.count, g.label_counts) == (d.count, d.label_counts), k
        worst = max(worst, abs(g.sum_share - d.sum_share), abs(g.sum_signed - d.sum_signed))
    return worst


def build_aggregates(db: Any, mv: Any, n: int) -> dict[str, Any]:
    """``--aggregates-only``: the word aggregates of ``n`` explained examples without storing the
    explanations and their word occurrences (which take the ingest's time, hours at 1M on a loaded
    machine): the sums are computed with numpy (:func:`numpy_deltas`, checked against the service's own
    function on 3,000 examples in the same run) and written by the service's ``apply_deltas``, which
    keeps the rank keys, in one transaction."""
    worst = check_numpy_deltas()
    t = time.perf_counter()
    deltas, totals = numpy_deltas(n, seed=0)
    compute_s = time.perf_counter() - t
    t = time.perf_counter()
    state = lock_state(db, mv, "g", 2)
    explanations.apply_deltas(db, state, mv, "g", 2, deltas, totals)
    state.n_examples, state.label_totals = n, totals
    # As the service does when the explanations grow past its thresholds (the ingest would have, several
    # times): without statistics PostgreSQL may scan a ranking index per primary-key lookup.
    analyze(db, "word_aggregates")
    db.commit()
    return {
        "mode": "aggregates_only",
        "numpy_vs_service_max_abs_diff": worst,
        "aggregates_compute_s": round(compute_s, 2),
        "aggregates_write_s": round(time.perf_counter() - t, 2),
    }
