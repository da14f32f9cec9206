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

How suspicious each word is (its label skew, the suspicion score importance x skew, and the flag) is
defined in :mod:`xmd.core.suspicion`, which the service's SQL-backed ranking calls as well.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np

from xmd.core.normalize import EPS
from xmd.core.suspicion import SORT_DIGITS, Vocabulary, WordStats, stats_from_sums, suspicion_key
from xmd.core.types import DataError, Example, Explanation
from xmd.core.words import is_punctuation, word_key

SortKey = Literal["importance", "count", "suspicion"]
SORTS: tuple[str, ...] = ("importance", "count", "suspicion")
FORMAT_VERSION = 1


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
        ws = stats_from_sums(key, acc.count, acc.sum_share, acc.sum_signed, acc.label_counts, prior, self.label_names)
        vocab, p_values = self.vocabulary()
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
            imp = round(max(0.0, acc.sum_share / acc.count), SORT_DIGITS)
            if sort == "importance":
                keys[k] = (-imp, -acc.count, k)
            elif sort == "count":
                keys[k] = (-acc.count, -imp, k)
            else:
                keys[k] = (-suspicion_key(imp, acc.label_counts, prior), -imp, k)
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
