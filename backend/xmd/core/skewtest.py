"""Is a word's label skew more than chance? Exact binomial tails and Benjamini–Hochberg q-values.

A word seen in n labelled examples, n_l of them with label l, is tested against the dataset's label
prior p_l: under "the word says nothing about the label" n_l ~ Binomial(n, p_l), and the one-sided
p-value is P(X >= n_l). The word's p-value is the smallest over its labels times the number of labels
that can be tested (a Bonferroni step: a word is tested once per label). Over a vocabulary of tens of
thousands of words many of these are small by chance, so the flag uses Benjamini–Hochberg q-values
(false-discovery rate over the whole vocabulary), never the raw p-value.

Only numpy: the binomial tail is the regularised incomplete beta function I_p(k, n - k + 1),
evaluated with its continued fraction (modified Lentz), vectorised over all words at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_TINY = 1e-300
_EPS = 1e-14


def _log_factorials(n_max: int) -> np.ndarray:
    """``t[i] = lgamma(i)`` for i = 0 .. n_max + 2 (t[0] unused), from a cumulative sum of logs."""
    t = np.zeros(n_max + 3)
    t[2:] = np.cumsum(np.log(np.arange(1, n_max + 2, dtype=float)))
    return t


def _betacf(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Continued fraction of the incomplete beta function (converges for x < (a + 1) / (a + b + 2))."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < _TINY, _TINY, d)
    d = 1.0 / d
    h = d.copy()
    # Iterations needed grow like sqrt(max(a, b)); converged entries just multiply by ~1 afterwards.
    max_iter = int(20 + 4 * np.sqrt(float(np.max(np.maximum(a, b)) if a.size else 1.0)))
    for m in range(1, max_iter + 1):
        m2 = 2.0 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = np.where(np.abs(d) < _TINY, _TINY, d)
            c = 1.0 + aa / c
            c = np.where(np.abs(c) < _TINY, _TINY, c)
            d = 1.0 / d
            step = d * c
            h = h * step
        if np.all(np.abs(step - 1.0) < _EPS):
            break
    return h


def binom_sf(k: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """P(X >= k) for X ~ Binomial(n, p), elementwise (k, n integers >= 0; p in [0, 1])."""
    k, n, p = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float), np.asarray(p, dtype=float))
    out = np.ones(k.shape)
    live = (k > 0) & (k <= n) & (p < 1.0)
    out[(k > n) | ((p <= 0.0) & (k > 0))] = 0.0
    live &= p > 0.0
    if not live.any():
        return out
    a, b, x = k[live], n[live] - k[live] + 1.0, p[live]
    lf = _log_factorials(int(n[live].max()))
    ia, ib, iab = a.astype(np.int64), b.astype(np.int64), (a + b).astype(np.int64)
    log_front = lf[iab] - lf[ia] - lf[ib] + a * np.log(x) + b * np.log1p(-x)
    front = np.exp(log_front)
    direct = x < (a + 1.0) / (a + b + 2.0)
    res = np.empty(a.shape)
    if direct.any():
        res[direct] = front[direct] * _betacf(a[direct], b[direct], x[direct]) / a[direct]
    flip = ~direct
    if flip.any():
        res[flip] = 1.0 - front[flip] * _betacf(b[flip], a[flip], 1.0 - x[flip]) / b[flip]
    out[live] = np.clip(res, 0.0, 1.0)
    return out


def skew_p_values(label_counts: np.ndarray, prior: Sequence[float]) -> np.ndarray:
    """Per word (rows of ``label_counts``, one column per label), the p-value of its label skew.

    Labels with prior 0 or 1 cannot be tested (no word can lean toward the only label there is), so
    they count neither in the minimum nor in the Bonferroni factor; a word with no labelled example
    gets 1.
    """
    counts = np.asarray(label_counts, dtype=float).reshape(-1, len(prior))
    pri = np.asarray(prior, dtype=float)
    testable = (pri > 0.0) & (pri < 1.0)
    if counts.shape[0] == 0 or not testable.any():
        return np.ones(counts.shape[0])
    n = counts.sum(axis=1)
    cols = np.flatnonzero(testable)
    tails = np.stack([binom_sf(counts[:, j], n, np.full(n.shape, pri[j])) for j in cols], axis=1)
    return np.minimum(1.0, tails.min(axis=1) * len(cols))


def bh_q_values(p: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values), in the input's order; ties get equal q."""
    p = np.asarray(p, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    ranked = p[order] * m / np.arange(1, m + 1)
    q_sorted = np.minimum.accumulate(ranked[::-1])[::-1]
    q = np.empty(m)
    q[order] = np.minimum(1.0, q_sorted)
    return q


class QLookup:
    """q-values of a vocabulary kept as its sorted p-values, so the q of any word is found from its own
    p-value (the same float the full computation gives) without a dict of every word."""

    def __init__(self, p: np.ndarray) -> None:
        self.p_sorted = np.sort(np.asarray(p, dtype=float))
        self.q_sorted = bh_q_values(self.p_sorted)

    def __call__(self, p: float) -> float:
        i = int(np.searchsorted(self.p_sorted, p, side="right")) - 1
        if i < 0:
            return 1.0  # not part of the vocabulary this was built from: treat as untested
        return float(self.q_sorted[i])
