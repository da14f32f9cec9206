"""How much several people's word-level feedback agrees: Cohen's κ, Fleiss' κ, Krippendorff's α.

Each annotator's feedback is their own :class:`~xmd.core.feedback.FeedbackSet`. The unit of agreement
is one word position of one example (a *token*), coded ``none`` / ``remove`` / ``add`` after resets and
overrides; only examples that at least ``min_raters`` people *saw* count (a person who saw an example
and marked nothing said "none" on every word of it; one who never saw it said nothing). Which examples
a person saw comes from the caller (a work queue); by default, the examples they marked.

The statistics take arrays and counts, not feedback objects, so a service can keep their sufficient
statistics and update them per click in O(1): Cohen's κ needs a pair's 3×3 confusion counts
(:func:`kappa_from_confusion`), α the 3×3 coincidence matrix (:func:`coincidences`, a sum over tokens:
a click subtracts its token's old term and adds the new one; :func:`alpha_from_coincidences`), Fleiss'
κ the per-token category counts (:func:`value_counts`). Cost of the full computation here: the table
O(R·T) for R annotators and T tokens of the shared examples; Cohen's κ O(R²·T); Fleiss' κ O(T); α O(R·T)
(the ``krippendorff`` package). Tables over :data:`MAX_TOKENS` are refused, not truncated.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from xmd.core.feedback import FeedbackSet, resolve_instance, resolve_task
from xmd.core.types import Action, DataError
from xmd.core.words import split_words, word_key

CATEGORIES = ("none", "remove", "add")
CODE = {Action.REMOVE: 1, Action.ADD: 2}
MAX_TOKENS = 5_000_000
"""Largest token table built in memory (R×T floats): beyond it the caller must sample or page."""


@dataclass(frozen=True)
class AnnotatorMarks:
    """One person's effective marks (resets and overrides applied) and the examples they saw."""

    name: str
    marks: Mapping[str, Mapping[int, Action]]
    seen: frozenset[str]
    task: Mapping[str, Action] = field(default_factory=dict)


def annotator_marks(name: str, feedback: FeedbackSet, seen: Sequence[str] | None = None) -> AnnotatorMarks:
    """``feedback`` reduced to its effective marks. ``seen`` defaults to the examples it marks.

    Task entries collapse to their word key (label and scope aside): the one set last wins, as in
    :func:`~xmd.core.feedback.expand_feedback`.
    """
    marks: dict[str, dict[int, Action]] = {}
    for (eid, i), action in resolve_instance(feedback.instance).items():
        marks.setdefault(eid, {})[i] = action
    task: dict[str, Action] = {}
    for (key, _, _), action in resolve_task(feedback.task).items():
        task.pop(key, None)
        task[key] = action
    shown = frozenset(marks) if seen is None else frozenset(seen) | frozenset(marks)
    return AnnotatorMarks(name, marks, shown, task)


@dataclass
class TokenTable:
    """Codes of every token of the shared examples: ``codes[r, t]`` in {0, 1, 2}, NaN where ``r`` did not see it."""

    annotators: list[str]
    units: list[tuple[str, int]]
    codes: np.ndarray
    words: list[str] | None = None

    @property
    def n_examples(self) -> int:
        return len({eid for eid, _ in self.units})


def token_table(
    annotators: Sequence[AnnotatorMarks],
    n_words: Mapping[str, int],
    *,
    min_raters: int = 2,
    texts: Mapping[str, str] | None = None,
) -> TokenTable:
    """The tokens of the examples seen by ≥ ``min_raters`` annotators, in example then position order.

    ``n_words`` gives each example's number of word positions (:func:`xmd.core.words.split_words`);
    ``texts``, when given, names each token's word key (for :func:`per_word`). A mark beyond an
    example's length, or a shared example of unknown length, is a :class:`DataError`.
    """
    names = [a.name for a in annotators]
    if len(set(names)) != len(names):
        raise DataError(f"annotator names must be distinct, got {names}")
    seen_by: dict[str, int] = {}
    for a in annotators:
        for eid in a.seen:
            seen_by[eid] = seen_by.get(eid, 0) + 1
    shared = sorted(eid for eid, n in seen_by.items() if n >= max(min_raters, 1))
    missing = [eid for eid in shared if eid not in n_words]
    if missing:
        raise DataError(f"{len(missing)} shared example(s) have no known length, e.g. {missing[0]!r}")
    total = sum(n_words[eid] for eid in shared)
    if total * max(len(annotators), 1) > MAX_TOKENS:
        raise DataError(f"{total} tokens × {len(annotators)} annotators exceed MAX_TOKENS={MAX_TOKENS}")
    codes = np.full((len(annotators), total), np.nan)
    units: list[tuple[str, int]] = []
    words: list[str] | None = [] if texts is not None else None
    start = 0
    for eid in shared:
        n = n_words[eid]
        units.extend((eid, i) for i in range(n))
        if words is not None and texts is not None:
            ws = [word_key(w) for w in split_words(texts[eid])[0]]
            if len(ws) != n:
                raise DataError(f"example {eid!r}: text has {len(ws)} words, n_words says {n}")
            words.extend(ws)
        for r, a in enumerate(annotators):
            if eid not in a.seen:
                continue
            codes[r, start : start + n] = 0
            for i, action in a.marks.get(eid, {}).items():
                if not 0 <= i < n:
                    raise DataError(f"{a.name}: mark on word {i} of example {eid!r}, which has {n} words")
                codes[r, start + i] = CODE[action]
        start += n
    return TokenTable(names, units, codes, words)


def value_counts(codes: np.ndarray, n_categories: int = len(CATEGORIES)) -> np.ndarray:
    """Per token (column), how many raters chose each category: shape (tokens, categories); NaN ignored."""
    codes = np.asarray(codes, dtype=float)
    out = np.zeros((codes.shape[1], n_categories), dtype=np.int64)
    for c in range(n_categories):
        out[:, c] = (codes == c).sum(axis=0)
    return out


def fleiss_kappa(counts: np.ndarray) -> float | None:
    """Fleiss' κ (1971) from per-item category counts, every item rated by the same n ≥ 2 raters.

    κ = (P̄ − P̄e) / (1 − P̄e) with P̄ the mean pairwise agreement within items and P̄e = Σ p_j² over
    the category shares. None when P̄e = 1 (everyone used one category: chance explains it all, κ is
    undefined). ValueError for unequal rater counts (use :func:`krippendorff_alpha`).
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2 or counts.shape[0] == 0:
        raise ValueError("fleiss_kappa needs a non-empty (items, categories) count matrix")
    n = counts.sum(axis=1)
    if not np.all(n == n[0]) or n[0] < 2:
        raise ValueError(f"fleiss_kappa needs the same number (≥ 2) of raters per item, got {sorted(set(n.tolist()))}")
    rater_n = n[0]
    p_j = counts.sum(axis=0) / counts.sum()
    p_i = ((counts * counts).sum(axis=1) - rater_n) / (rater_n * (rater_n - 1))
    p_bar, p_e = float(p_i.mean()), float((p_j * p_j).sum())
    if np.isclose(p_e, 1.0):
        return None
    return (p_bar - p_e) / (1 - p_e)


def krippendorff_alpha(codes: np.ndarray) -> float | None:
    """Nominal α over raters × units (NaN = missing), by the ``krippendorff`` package.

    None when undefined: fewer than two distinct values among the pairable units (units with ≥ 2 raters).
    """
    import krippendorff

    codes = np.asarray(codes, dtype=float)
    pairable = codes[:, (~np.isnan(codes)).sum(axis=0) >= 2]
    if pairable.size == 0 or len(np.unique(pairable[~np.isnan(pairable)])) < 2:
        return None
    return float(krippendorff.alpha(reliability_data=pairable, level_of_measurement="nominal"))


def kappa_from_confusion(confusion: np.ndarray) -> float | None:
    """Cohen's κ from a pair's confusion counts (rows: one rater's category, columns: the other's).

    None when undefined (no units, or expected agreement 1). Equal to scikit-learn's on the same labels.
    """
    c = np.asarray(confusion, dtype=float)
    n = c.sum()
    if n == 0:
        return None
    p_o = np.trace(c) / n
    p_e = float((c.sum(axis=1) * c.sum(axis=0)).sum() / (n * n))
    return None if np.isclose(p_e, 1.0) else float((p_o - p_e) / (1 - p_e))


def coincidences(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's coincidence matrix from per-unit category counts (units with < 2 values add nothing).

    o[c, k] = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1), m_u the values of unit u: a sum over units, so it
    can be kept up to date per change.
    """
    n = np.asarray(counts, dtype=float)
    m = n.sum(axis=1)
    n, m = n[m >= 2], m[m >= 2]
    if not len(n):
        return np.zeros((counts.shape[1], counts.shape[1]))
    pairs = np.einsum("uc,uk->uck", n, n) - np.einsum("uc,ck->uck", n, np.eye(n.shape[1]))
    return (pairs / (m - 1)[:, None, None]).sum(axis=0)


def alpha_from_coincidences(o: np.ndarray) -> float | None:
    """Nominal α = 1 − (n − 1)·Σ_{c≠k} o_ck / Σ_{c≠k} n_c n_k; None when fewer than two values occur."""
    o = np.asarray(o, dtype=float)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    off = ~np.eye(len(n_c), dtype=bool)
    expected = (np.outer(n_c, n_c)[off]).sum()
    if n < 2 or expected == 0:
        return None
    return float(1 - (n - 1) * o[off].sum() / expected)


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """Cohen's κ of two raters on the units both rated (scikit-learn), with the raw agreement.

    ``kappa`` is None when undefined: both used one and the same category everywhere (expected
    agreement 1), or no shared unit.
    """
    from sklearn.metrics import cohen_kappa_score

    both = ~np.isnan(a) & ~np.isnan(b)
    x, y = a[both].astype(int), b[both].astype(int)
    out: dict[str, Any] = {"n_tokens": int(both.sum()), "observed": None, "kappa": None}
    if not len(x):
        return out
    out["observed"] = float((x == y).mean())
    if len(set(x.tolist()) | set(y.tolist())) < 2:
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        k = cohen_kappa_score(x, y, labels=list(range(len(CATEGORIES))))
    out["kappa"] = None if np.isnan(k) else float(k)
    return out


def pairwise(table: TokenTable) -> list[dict[str, Any]]:
    """Cohen's κ for every pair of annotators (in the order given), on the tokens both saw."""
    rows = []
    for i, j in combinations(range(len(table.annotators)), 2):
        rows.append({"a": table.annotators[i], "b": table.annotators[j], **cohen_kappa(table.codes[i], table.codes[j])})
    return rows


def per_word(table: TokenTable, *, min_tokens: int = 2, top: int = 20) -> list[dict[str, Any]]:
    """Per word key: tokens, tokens anyone marked / all raters marked alike, and α; most disputed first.

    Disputed = tokens someone marked and the raters did not all agree on. Needs ``table.words``.
    O(R·T) for the counts, then α for the ``top`` words only.
    """
    if table.words is None:
        raise ValueError("per_word needs a token table built with texts")
    n_rated = (~np.isnan(table.codes)).sum(axis=0)
    vc = value_counts(table.codes)
    marked = vc[:, 1:].sum(axis=1) > 0
    unanimous = (vc.max(axis=1) == n_rated) & marked
    cols: dict[str, list[int]] = {}
    for t, key in enumerate(table.words):
        if n_rated[t] >= 2:
            cols.setdefault(key, []).append(t)
    stats: list[tuple[int, int, str, int, int]] = []  # (-disputed, -marked, word, tokens, unanimous)
    for key, idx in cols.items():
        if len(idx) >= min_tokens:
            m, u = int(marked[idx].sum()), int(unanimous[idx].sum())
            stats.append((u - m, -m, key, len(idx), u))
    stats.sort()
    return [
        {
            "word": key,
            "n_tokens": n,
            "marked": -neg_m,
            "unanimous": u,
            "disputed": -neg_d,
            "alpha": krippendorff_alpha(table.codes[:, np.asarray(cols[key], dtype=np.intp)]),
        }
        for neg_d, neg_m, key, n, u in stats[:top]
    ]


def task_agreement(annotators: Sequence[AnnotatorMarks]) -> dict[str, Any]:
    """Agreement on task-level words: units = every word key anyone set, each person's action or none.

    Everyone is taken to have seen the whole task (a word left alone is a "none").
    """
    keys = sorted({k for a in annotators for k in a.task})
    codes = np.array([[CODE[a.task[k]] if k in a.task else 0 for k in keys] for a in annotators], dtype=float).reshape(
        len(annotators), len(keys)
    )
    table = TokenTable([a.name for a in annotators], [(k, 0) for k in keys], codes)
    words = [{"word": k, **{a.name: a.task[k].value if k in a.task else "none" for a in annotators}} for k in keys]
    return {
        "n_words": len(keys),
        "pairs": pairwise(table) if len(annotators) >= 2 else [],
        "alpha": krippendorff_alpha(codes) if len(annotators) >= 2 else None,
        "words": words,
    }


def agreement(
    annotators: Sequence[AnnotatorMarks],
    n_words: Mapping[str, int],
    *,
    texts: Mapping[str, str] | None = None,
    min_raters: int = 2,
    top_words: int = 20,
) -> dict[str, Any]:
    """The whole summary: tokens compared, per-pair Cohen's κ, Fleiss' κ, α, per word, task level.

    Fleiss' κ is given only with ≥ 3 annotators and every shared token rated by all of them
    (otherwise None, with the reason); α covers any missing-data pattern. With fewer than two
    annotators there is nothing to compare: the numbers are None and ``note`` says why.
    """
    table = token_table(annotators, n_words, min_raters=min_raters, texts=texts)
    out: dict[str, Any] = {
        "annotators": table.annotators,
        "categories": list(CATEGORIES),
        "n_examples": table.n_examples,
        "n_tokens": len(table.units),
        "marks": {a.name: sum(len(m) for m in a.marks.values()) for a in annotators},
        "pairs": [],
        "fleiss_kappa": None,
        "alpha": None,
        "per_word": [],
        "task": task_agreement(annotators),
        "note": None,
    }
    if len(annotators) < 2:
        out["note"] = "fewer than two annotators: no agreement to measure"
        return out
    if not table.units:
        out["note"] = f"no example was seen by {min_raters} or more annotators"
        return out
    out["pairs"] = pairwise(table)
    out["alpha"] = krippendorff_alpha(table.codes)
    if len(annotators) >= 3 and not np.isnan(table.codes).any():
        out["fleiss_kappa"] = fleiss_kappa(value_counts(table.codes))
    else:
        out["note"] = "Fleiss' κ needs ≥ 3 annotators who all saw every shared example; see α"
    if table.words is not None:
        out["per_word"] = per_word(table, top=top_words)
    return out
