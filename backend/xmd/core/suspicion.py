"""How suspicious a word is: its label skew, the suspicion score and the flag, defined once.

The core's :class:`~xmd.core.aggregate.TaskAggregate` and the service's SQL-backed ranking
(:mod:`xmd.explanations.ranking`, :mod:`xmd.explanations.aggregates`) both call these functions, so a
word gets the same numbers, order and flag wherever it is read.

*Skew* says how much a word predicts a gold label beyond the dataset's label prior: with the
smoothed P(l | word) = (n_l + alpha * prior_l) / (n + alpha), alpha = 1, over the labelled examples
containing the word, and l the label where it is highest, skew = (P(l | word) - prior_l) /
(1 - prior_l), clipped to [0, 1] (:func:`skew_toward`, :func:`label_skew`). *Suspicion* = mean
importance x skew (:func:`suspicion`) ranks likely shortcuts.

*Suspicious* (the flag) needs more than a large product: the skew must be unlikely by chance — a
binomial test of the word's label counts against the prior, with Benjamini–Hochberg control of the
false-discovery rate over the whole vocabulary (:mod:`xmd.core.skewtest`; ``q_value``) — and the
model must lean on the word: its mean importance at least :data:`SUSPICIOUS_LEAN` times the share an
average word gets (``lean``). Both need the whole vocabulary, so they are computed at ranking time
(:class:`Vocabulary`), by the core and by the service from its stored rows alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xmd.core.skewtest import QLookup, skew_p_values

ALPHA = 1.0
"""Pseudo-count pulling P(label | word) toward the prior, so that a word seen once is not 100% skewed."""
SORT_DIGITS = 9
"""Sort keys are rounded to this many digits: float noise (EPS in the shares, drift from incremental
updates) must not decide between values that are equal on paper; the tie-breaks do."""

SUSPICIOUS_Q = 0.05
"""False-discovery rate the flag controls over the vocabulary (Benjamini–Hochberg)."""
SUSPICIOUS_LEAN = 2.0
"""The model leans on a word when its mean importance is at least this many times an average word's."""
SUSPICIOUS_SKEW = 0.5
"""And the skew is large, not just significant: with 100k examples a 2-point lean is 'significant'."""


def skew_toward(n_l: float, n: float, p_l: float) -> float:
    """The skew formula, unclipped: (P(l | word) - p_l) / (1 - p_l) with the smoothed
    P(l | word) = (n_l + alpha p_l) / (n + alpha), for a word seen n times, n_l of them with label l of
    prior p_l < 1. It equals (n_l - p_l n) / ((n + alpha)(1 - p_l)), so it decreases in p_l: what the
    service's stored upper bounds rely on (:func:`xmd.explanations.aggregates.suspicion_bound`)."""
    return ((n_l + ALPHA * p_l) / (n + ALPHA) - p_l) / (1.0 - p_l)


def label_skew(label_counts: Sequence[int], prior: Sequence[float]) -> tuple[float, int | None]:
    """(skew, skew label) of a word with these label counts: the label where the smoothed P(l | word) is
    highest, and :func:`skew_toward` it clipped to [0, 1]."""
    n = sum(label_counts)
    if n == 0:
        return 0.0, None
    best, best_p = 0, -1.0
    for lab, (n_l, p_l) in enumerate(zip(label_counts, prior, strict=True)):
        p = (n_l + ALPHA * p_l) / (n + ALPHA)
        if p > best_p:
            best, best_p = lab, p
    if prior[best] >= 1.0:
        # Only one label in the data: nothing can be skewed toward it.
        return 0.0, best
    return min(1.0, max(0.0, skew_toward(label_counts[best], n, prior[best]))), best


MIN_COUNT_CAP = 50
"""The data-chosen minimum count never asks for more than this."""


def default_min_count(prior: Sequence[float]) -> int:
    """The ranking's default minimum count, chosen from the data: the smallest count (at least 2) at which
    a word could pass the skew test at all (:func:`~xmd.core.skewtest.skew_p_values` below
    :data:`SUSPICIOUS_Q` with every example in the label of the smallest prior), so the top of a small
    data set's suspicion list is not words seen twice. Balanced binary labels: 6; a 30 % label: 4; 2 when
    no label can be tested (one label, or nothing explained yet)."""
    if not any(0.0 < p < 1.0 for p in prior):
        return 2
    for k in range(2, MIN_COUNT_CAP):
        all_in_one = np.eye(len(prior), dtype=float) * k  # row i: k examples, all labelled i
        if float(skew_p_values(all_in_one, prior).min()) < SUSPICIOUS_Q:
            return k
    return MIN_COUNT_CAP


def suspicion(importance: float, skew: float) -> float:
    """The suspicion score, importance x skew.

    A word the model leans on (importance) that also predicts one label (skew) is the textbook
    shortcut. Either alone is a weak signal: importance flags any word the model uses, skew flags rare
    words the model may ignore. The product puts first what is worth a person's look; shortcut
    ("Spielberg") or real signal ("great") is theirs to say.
    """
    return importance * skew


def suspicion_key(importance: float, label_counts: Sequence[int], prior: Sequence[float]) -> float:
    """A word's suspicion as the rankings sort by it: ``importance`` is the mean share already rounded
    to :data:`SORT_DIGITS`, and the product is rounded the same way (core and SQL order alike)."""
    return round(suspicion(importance, label_skew(label_counts, prior)[0]), SORT_DIGITS)


@dataclass
class WordStats:
    """Aggregated statistics of one word key; ``label_counts`` counts labelled examples only."""

    word: str
    count: int
    mean_importance: float
    mean_signed: float
    label_counts: list[int]
    skew: float
    skew_label: int | None
    suspicion: float
    skew_label_name: str | None = None
    p_value: float = 1.0
    q_value: float = 1.0
    lean: float = 0.0

    @property
    def suspicious(self) -> bool:
        """The rule the UI flags words by (:func:`is_suspicious`), so every reader shows the same flag."""
        return is_suspicious(self)

    def to_dict(self) -> dict[str, Any]:
        """The fields plus the flag; shallow (``asdict`` deep-copies field by field, and the task view
        builds a hundred of these per request: it was most of the request's CPU time)."""
        return {**self.__dict__, "label_counts": list(self.label_counts), "suspicious": self.suspicious}


def stats_from_sums(
    word: str,
    count: int,
    sum_share: float,
    sum_signed: float,
    label_counts: Sequence[int],
    prior: Sequence[float],
    label_names: Sequence[str] | None,
) -> WordStats:
    """A word's statistics from its running sums (the core's accumulators or the service's stored row),
    before the vocabulary's :meth:`Vocabulary.fill`."""
    mean_importance = max(0.0, sum_share / count)
    skew, skew_label = label_skew(label_counts, prior)
    name = None
    if label_names is not None and skew_label is not None and skew_label < len(label_names):
        name = label_names[skew_label]
    return WordStats(
        word=word,
        count=count,
        mean_importance=mean_importance,
        mean_signed=sum_signed / count,
        label_counts=list(label_counts),
        skew=skew,
        skew_label=skew_label,
        suspicion=suspicion(mean_importance, skew),
        skew_label_name=name,
    )


def is_suspicious(ws: WordStats) -> bool:
    """A word is *suggested suspicious* when its label skew is unlikely by chance (q <= 0.05 over the
    vocabulary), at least half-way beyond the label prior, and the model leans on it (mean importance
    >= 2x an average word's): the one definition, which the API sends as ``suspicious`` and the UI
    shows as it is."""
    return ws.q_value <= SUSPICIOUS_Q and ws.skew >= SUSPICIOUS_SKEW and ws.lean >= SUSPICIOUS_LEAN


class Vocabulary:
    """What a word's flag needs from the whole vocabulary: the q-values of every word's skew test and
    the share an average word gets (sum of shares / occurrences over all words)."""

    def __init__(self, label_counts: np.ndarray, prior: Sequence[float], total_share: float, total_count: int) -> None:
        self.prior = list(prior)
        self.p_values = skew_p_values(label_counts, self.prior)
        self.q = QLookup(self.p_values)
        self.mean_share = total_share / total_count if total_count > 0 else 0.0

    def p_value(self, label_counts: Sequence[int]) -> float:
        """The word's own p-value, computed as for the whole vocabulary."""
        return float(skew_p_values(np.asarray([label_counts]), self.prior)[0])

    def fill(self, ws: WordStats, p: float | None = None) -> WordStats:
        """Set ``p_value``, ``q_value`` and ``lean`` of one word's statistics (in place; returned)."""
        ws.p_value = self.p_value(ws.label_counts) if p is None else p
        ws.q_value = self.q(ws.p_value)
        ws.lean = ws.mean_importance / self.mean_share if self.mean_share > 0 else 0.0
        return ws
