"""Task-level explanations: how much the model relies on each word across a whole dataset.

Instance explanations say which words mattered for one prediction; shortcuts only show up across
many of them. :class:`TaskAggregate` keeps, per word key (:func:`xmd.core.words.word_key`), running
sums over the examples that contain the word, so that adding, removing or rescoring one example
costs O(words in that example) and never a full recompute (a dataset is re-explained a few
examples at a time while people give feedback and the model is retrained).

Per example and word key, the *importance* is the sum of the shares
(:func:`xmd.core.normalize.normalize_scores`) of the key's occurrences among the words the model
saw, and the *signed* value is the same sum with each share carrying the sign of its raw score.
A word's statistics are means over the examples containing it, so a word that is frequent is not
ranked high just for being frequent.

*Skew* says how much a word predicts a gold label beyond the dataset's label prior: with the
smoothed P(l | word) = (n_l + alpha * prior_l) / (n + alpha), alpha = 1, over the labelled examples
containing the word, and l the label where it is highest, skew = (P(l | word) - prior_l) /
(1 - prior_l), clipped to [0, 1]. *Suspicion* = mean importance x skew ranks likely shortcuts.

*Suspicious* (the flag) needs more than a large product: the skew must be unlikely by chance — a
binomial test of the word's label counts against the prior, with Benjamini–Hochberg control of the
false-discovery rate over the whole vocabulary (:mod:`xmd.core.skewtest`; ``q_value``) — and the
model must lean on the word: its mean importance at least :data:`SUSPICIOUS_LEAN` times the share an
average word gets (``lean``). Both need the whole vocabulary, so they are computed at ranking time
(:class:`Vocabulary`), by the core here and by the service from its stored rows alike.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from xmd.core.normalize import EPS
from xmd.core.skewtest import QLookup, skew_p_values
from xmd.core.types import DataError, Example, Explanation
from xmd.core.words import is_punctuation, word_key

SortKey = Literal["importance", "count", "suspicion"]
SORTS: tuple[str, ...] = ("importance", "count", "suspicion")
ALPHA = 1.0
"""Pseudo-count pulling P(label | word) toward the prior, so that a word seen once is not 100% skewed."""

FORMAT_VERSION = 1
_SORT_DIGITS = 9


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


SUSPICIOUS_Q = 0.05
"""False-discovery rate the flag controls over the vocabulary (Benjamini–Hochberg)."""
SUSPICIOUS_LEAN = 2.0
"""The model leans on a word when its mean importance is at least this many times an average word's."""
SUSPICIOUS_SKEW = 0.5
"""And the skew is large, not just significant: with 100k examples a 2-point lean is 'significant'."""


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


class _Acc:
    """Running sums for one word key (slots: there can be hundreds of thousands of these)."""

    __slots__ = ("count", "ids", "label_counts", "sum_share", "sum_signed")

    def __init__(self, num_labels: int) -> None:
        self.count = 0
        self.sum_share = 0.0
        self.sum_signed = 0.0
        self.label_counts = [0] * num_labels
        self.ids: set[str] = set()


# One example's undo record: its gold label and, per word key, (key, share, signed share).
_Entries = tuple[tuple[str, float, float], ...]
_Contribution = tuple[int | None, _Entries]


def _shares(scores: Sequence[float]) -> list[float]:
    """Same formula as :func:`normalize_scores` (|s| / (sum |s| + EPS)) without a torch round trip.

    Adding 100k examples one by one would spend most of its time building tensors otherwise; a test
    checks that both give the same numbers.
    """
    mags = [abs(float(s)) for s in scores]
    total = sum(mags) + EPS
    return [m / total for m in mags]


def label_skew(label_counts: Sequence[int], prior: Sequence[float]) -> tuple[float, int | None]:
    """(skew, skew label) of a word with these label counts (definition in the module docs).

    Public so that the service's SQL-backed ranking computes exactly the same number.
    """
    n = sum(label_counts)
    if n == 0:
        return 0.0, None
    best, best_p = 0, -1.0
    for lab, (n_l, p_l) in enumerate(zip(label_counts, prior, strict=True)):
        p = (n_l + ALPHA * p_l) / (n + ALPHA)
        if p > best_p:
            best, best_p = lab, p
    p_l = prior[best]
    if p_l >= 1.0:
        # Only one label in the data: nothing can be skewed toward it.
        return 0.0, best
    skew = (best_p - p_l) / (1.0 - p_l)
    return min(1.0, max(0.0, skew)), best


class TaskAggregate:
    """Incrementally updatable per-word aggregate of word-level explanations over a dataset.

    Only compact per-example contributions are kept (enough to undo them), never the explanations.
    Punctuation is skipped unless ``include_punctuation``; ``stopwords`` (compared by word key) are
    skipped always. Skipped words still take part in the shares, which are computed over the whole
    example: dropping "the" from the table must not inflate the importance of the other words.
    """

    def __init__(
        self,
        num_labels: int,
        label_names: list[str] | None = None,
        include_punctuation: bool = False,
        stopwords: frozenset[str] = frozenset(),
    ) -> None:
        if num_labels < 1:
            raise ValueError(f"num_labels must be at least 1, got {num_labels}")
        if label_names is not None and len(label_names) != num_labels:
            raise ValueError(f"got {len(label_names)} label names for {num_labels} labels")
        self.num_labels = num_labels
        self.label_names = list(label_names) if label_names is not None else None
        self.include_punctuation = include_punctuation
        self.stopwords = frozenset(word_key(w) for w in stopwords)
        self._examples: dict[str, _Contribution] = {}
        self._words: dict[str, _Acc] = {}
        self._label_totals = [0] * num_labels
        self._order: dict[str, list[str]] = {}
        self._vocab: tuple[Vocabulary, dict[str, float]] | None = None

    # ------------------------------------------------------------------ updates

    def add(self, example_id: str, label: int | None, explanation: Explanation) -> None:
        """Add one example's explanation, or replace it if ``example_id`` is already present."""
        if label is not None and not 0 <= label < self.num_labels:
            raise DataError(f"example {example_id!r} has label {label}, outside 0..{self.num_labels - 1}")
        if example_id in self._examples:
            self.remove(example_id)
        scores = explanation.scores
        shares = _shares(scores)
        n_seen = min(explanation.n_seen, len(explanation.words), len(scores))
        per_key: dict[str, list[float]] = {}
        for i in range(n_seen):
            word = explanation.words[i]
            if not self.include_punctuation and is_punctuation(word):
                continue
            key = word_key(word)
            if not key or key in self.stopwords:
                continue
            share = shares[i]
            signed = -share if scores[i] < 0 else share
            acc = per_key.get(key)
            if acc is None:
                per_key[key] = [share, signed]
            else:
                acc[0] += share
                acc[1] += signed
        contrib = tuple((k, v[0], v[1]) for k, v in per_key.items())
        self._apply(example_id, label, contrib)
        self._examples[example_id] = (label, contrib)
        self._changed()

    def remove(self, example_id: str) -> None:
        """Undo one example's contribution; KeyError if it was never added."""
        label, contrib = self._examples.pop(example_id)
        if label is not None:
            self._label_totals[label] -= 1
        for key, share, signed in contrib:
            acc = self._words[key]
            acc.count -= 1
            if acc.count == 0:
                # Drop the entry instead of keeping float residue from the subtractions.
                del self._words[key]
                continue
            acc.sum_share -= share
            acc.sum_signed -= signed
            if label is not None:
                acc.label_counts[label] -= 1
            acc.ids.discard(example_id)
        self._changed()

    def _changed(self) -> None:
        self._order.clear()
        self._vocab = None

    def _apply(self, example_id: str, label: int | None, contrib: _Entries) -> None:
        if label is not None:
            self._label_totals[label] += 1
        words = self._words
        for key, share, signed in contrib:
            acc = words.get(key)
            if acc is None:
                acc = words[key] = _Acc(self.num_labels)
            acc.count += 1
            acc.sum_share += share
            acc.sum_signed += signed
            if label is not None:
                acc.label_counts[label] += 1
            acc.ids.add(example_id)

    # ------------------------------------------------------------------ queries

    def __contains__(self, example_id: object) -> bool:
        return example_id in self._examples

    def __len__(self) -> int:
        return len(self._examples)

    @property
    def n_words(self) -> int:
        """Number of distinct word keys with at least one example."""
        return len(self._words)

    @property
    def label_totals(self) -> list[int]:
        """Labelled examples per gold label (the counts behind the prior)."""
        return list(self._label_totals)

    @property
    def prior(self) -> list[float]:
        """Label distribution of the labelled examples (all zeros when none is labelled)."""
        n = sum(self._label_totals)
        return [t / n if n else 0.0 for t in self._label_totals]

    def vocabulary(self) -> tuple[Vocabulary, dict[str, float]]:
        """The vocabulary's tests (cached until the next update) and each word's p-value."""
        if self._vocab is None:
            keys = list(self._words)
            counts = np.asarray([self._words[k].label_counts for k in keys], dtype=float).reshape(-1, self.num_labels)
            total_share = sum(max(0.0, a.sum_share) for a in self._words.values())
            total_count = sum(a.count for a in self._words.values())
            vocab = Vocabulary(counts, self.prior, total_share, total_count)
            self._vocab = vocab, dict(zip(keys, vocab.p_values.tolist(), strict=True))
        return self._vocab

    def _make(self, key: str, acc: _Acc, prior: list[float]) -> WordStats:
        mean_importance = max(0.0, acc.sum_share / acc.count)
        skew, skew_label = label_skew(acc.label_counts, prior)
        vocab, p_values = self.vocabulary()
        ws = WordStats(
            word=key,
            count=acc.count,
            mean_importance=mean_importance,
            mean_signed=acc.sum_signed / acc.count,
            label_counts=list(acc.label_counts),
            skew=skew,
            skew_label=skew_label,
            # A word the model leans on (importance) that also predicts one label (skew) is the
            # textbook shortcut. Either alone is a weak signal: importance flags any word the model
            # uses, skew flags rare words the model may ignore. The product puts first what is
            # worth a person's look; shortcut ("Spielberg") or real signal ("great") is theirs to say.
            suspicion=mean_importance * skew,
            skew_label_name=(
                self.label_names[skew_label] if self.label_names is not None and skew_label is not None else None
            ),
        )
        return vocab.fill(ws, p_values[key])

    def stats(self, key: str) -> WordStats | None:
        """Statistics of one word (``key`` is passed through :func:`word_key`), or None if unseen."""
        key = word_key(key)
        acc = self._words.get(key)
        return None if acc is None else self._make(key, acc, self.prior)

    def examples(self, key: str, offset: int = 0, limit: int | None = None) -> list[str]:
        """Sorted ids of the examples containing ``key``, paged (kept out of WordStats: "the" is in
        every example, and a ranking page should not copy 100k ids per row)."""
        acc = self._words.get(word_key(key))
        if acc is None:
            return []
        if offset < 0 or (limit is not None and limit < 0):
            raise ValueError("offset and limit must be non-negative")
        if limit is None or (offset + limit) * 8 > len(acc.ids):
            ids = sorted(acc.ids)
        else:
            ids = heapq.nsmallest(offset + limit, acc.ids)  # first pages of a frequent word
        return ids[offset:] if limit is None else ids[offset : offset + limit]

    def _sorted_keys(self, sort: str) -> list[str]:
        """All word keys in ``sort`` order, cached until the next update."""
        order = self._order.get(sort)
        if order is not None:
            return order
        prior = self.prior
        keys: dict[str, tuple[float, float, str]] = {}
        for k, acc in self._words.items():
            # Rounded so that float noise (EPS in the shares, drift from incremental updates) does
            # not decide between values that are equal on paper; the tie-breaks do.
            imp = round(max(0.0, acc.sum_share / acc.count), _SORT_DIGITS)
            if sort == "importance":
                keys[k] = (-imp, -acc.count, k)
            elif sort == "count":
                keys[k] = (-acc.count, -imp, k)
            else:
                skew = label_skew(acc.label_counts, prior)[0]
                keys[k] = (-round(imp * skew, _SORT_DIGITS), -imp, k)
        order = sorted(keys, key=keys.__getitem__)
        self._order[sort] = order
        return order

    def _filtered(self, sort: str, label: int | None, min_count: int, search: str | None) -> Iterable[str]:
        if sort not in SORTS:
            raise ValueError(f"unknown sort {sort!r}; allowed: {', '.join(SORTS)}")
        if label is not None and not 0 <= label < self.num_labels:
            raise ValueError(f"label {label} is outside 0..{self.num_labels - 1}")
        needle = word_key(search.strip()) if search else ""
        words = self._words
        for k in self._sorted_keys(sort):
            acc = words[k]
            if acc.count < min_count:
                continue
            if label is not None and acc.label_counts[label] == 0:
                continue
            if needle and needle not in k:
                continue
            yield k

    def ranking(
        self,
        *,
        sort: SortKey = "importance",
        label: int | None = None,
        min_count: int = 1,
        search: str | None = None,
        offset: int = 0,
        limit: int = 100,
    ) -> list[WordStats]:
        """One page of words, best first; ties broken by the other measure, then by word.

        ``label`` only *filters* (words seen in at least one example of that gold label); the
        statistics and the order stay those over the whole dataset, so a word's numbers do not
        change when the filter does. ``search`` is a substring of the word key (case-insensitive).
        """
        if offset < 0 or limit < 0:
            raise ValueError("offset and limit must be non-negative")
        prior = self.prior
        out: list[WordStats] = []
        for i, k in enumerate(self._filtered(sort, label, min_count, search)):
            if i < offset:
                continue
            if len(out) >= limit:
                break
            out.append(self._make(k, self._words[k], prior))
        return out

    def n_matching(self, *, label: int | None = None, min_count: int = 1, search: str | None = None) -> int:
        """How many words :meth:`ranking` would page through with these filters (for pagers)."""
        return sum(1 for _ in self._filtered("count", label, min_count, search))

    # ------------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready state: settings plus the per-example contributions (running sums are rebuilt)."""
        return {
            "version": FORMAT_VERSION,
            "num_labels": self.num_labels,
            "label_names": self.label_names,
            "include_punctuation": self.include_punctuation,
            "stopwords": sorted(self.stopwords),
            "examples": [
                [eid, label, [[k, s, g] for k, s, g in contrib]] for eid, (label, contrib) in self._examples.items()
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskAggregate:
        if data.get("version") != FORMAT_VERSION:
            raise DataError(f"unsupported task aggregate format version {data.get('version')!r}")
        agg = cls(
            num_labels=int(data["num_labels"]),
            label_names=data.get("label_names"),
            include_punctuation=bool(data.get("include_punctuation", False)),
            stopwords=frozenset(data.get("stopwords", ())),
        )
        for eid, label, contrib in data["examples"]:
            if label is not None and not 0 <= label < agg.num_labels:
                raise DataError(f"example {eid!r} has label {label}, outside 0..{agg.num_labels - 1}")
            c = tuple((str(k), float(s), float(g)) for k, s, g in contrib)
            agg._apply(eid, label, c)
            agg._examples[eid] = (label, c)
        agg._changed()
        return agg


def aggregate(
    explanations: Iterable[Explanation],
    examples: Sequence[Example],
    *,
    num_labels: int | None = None,
    label_names: list[str] | None = None,
    include_punctuation: bool = False,
    stopwords: frozenset[str] = frozenset(),
) -> TaskAggregate:
    """Build a :class:`TaskAggregate` in one go.

    An explanation is matched to its example by ``example_id`` when set, else by position in
    ``examples``. ``num_labels`` defaults to the length of the first explanation's ``probs``.
    """
    by_id = {ex.id: ex for ex in examples}
    agg: TaskAggregate | None = None
    if num_labels is not None:
        agg = TaskAggregate(num_labels, label_names, include_punctuation, stopwords)
    for i, exp in enumerate(explanations):
        if exp.example_id is not None:
            ex = by_id.get(exp.example_id)
            if ex is None:
                raise DataError(f"explanation refers to unknown example {exp.example_id!r}")
        elif i < len(examples):
            ex = examples[i]
        else:
            raise DataError(f"explanation {i} has no example_id and there are only {len(examples)} examples")
        if agg is None:
            agg = TaskAggregate(len(exp.probs), label_names, include_punctuation, stopwords)
        agg.add(ex.id, ex.label, exp)
    if agg is None:
        agg = TaskAggregate(
            num_labels if num_labels is not None else max(1, len(label_names or ())),
            label_names,
            include_punctuation,
            stopwords,
        )
    return agg
