"""Task-level word rankings read from the incrementally kept aggregates (:mod:`xmd.explanations.service`).

**Ranking.** ``importance`` (mean share, rounded to the core's 9 digits) is stored and indexed together
with ``count``, so the importance and count orders are index range scans with OFFSET/LIMIT in SQL.

*Suspicion* = importance x skew, and skew depends on the label prior, which changes with every batch
of explanations; storing it would mean rewriting every word's row per batch, and computing it in SQL
for every word on each request measured slower than what follows (~115 ms for 30k words on both
databases). Each row instead stores an upper bound: with n_l the word's count for label l,
n = sum n_l and prior p, skew_l = (n_l - p n) / ((n + alpha) (1 - p)), which decreases in p, so for
every prior at or above a floor f (kept by the writers just below the current prior, see
:mod:`xmd.explanations.aggregates`) suspicion <= ``suspicion_bound`` = importance x max_l skew_l(f_l).
(With f = 0, the bound of the first schema, importance x max n_l / (n + alpha), was loose for frequent
words, whose n_l / n is near the prior: at 1M examples the scan read every word, 207 ms.) A page is
a threshold scan: rows in ``suspicion_bound`` order (indexed), exact suspicion computed in Python
with the core's function (:func:`xmd.core.suspicion.suspicion_key`), stop as soon as the next bound is
below the k-th best suspicion found (k = offset + limit) — no later word can enter the page. The bound
is tight for the rare, one-label words that dominate the top and, with the floor, for frequent words
too, so a top-100 page reads a few hundred to a few thousand rows. The result is exact: same numbers, order
and tie-breaks as :meth:`TaskAggregate.ranking`. When no word can be skewed (one label, or nothing
labelled) every suspicion is 0 and the order is a plain SQL sort.

**The flag.** ``suspicious`` needs the whole vocabulary (false-discovery control over every word's skew
test, and the share an average word gets: :class:`xmd.core.suspicion.Vocabulary`). It is built from
all of the (version, method)'s rows once per state of the aggregate (its state row's ``updated_at``)
and cached, so a page costs its own rows only.
"""

from __future__ import annotations

import functools
import heapq
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from xmd.core.aggregate import SORTS
from xmd.core.suspicion import Vocabulary, WordStats, stats_from_sums, suspicion_key
from xmd.core.words import word_key
from xmd.datasets.models import Example
from xmd.db.errors import NotFoundError
from xmd.explanations.aggregates import BOUND_MARGIN, WORD_COLS
from xmd.explanations.models import AggregateState, Explanation, WordAggregate, WordOccurrence
from xmd.explanations.service import MAX_PAGE, get_state, project_of
from xmd.explanations.statecache import state_cache
from xmd.projects.models import Project
from xmd.versions.models import ModelVersion

SCAN_BATCH = 512
"""Rows per fetch when the suspicion scan streams."""
SCAN_FIRST = (2, 32)
"""The scan's first attempt reads a k + b rows, (a, b) = this (k = offset + limit)."""
SCAN_STREAM = 20_000
"""Beyond this many rows the scan streams to the end instead of running a longer LIMIT query."""


def _prior(state: AggregateState | None, num_labels: int) -> list[float]:
    totals = list(state.label_totals) if state is not None else []
    totals += [0] * (num_labels - len(totals))
    n = sum(totals)
    return [t / n if n else 0.0 for t in totals]


def label_prior(state: AggregateState | None, num_labels: int) -> list[float]:
    """The label shares of the explained examples of a (version, method) (all 0 before any)."""
    return _prior(state, num_labels)


class _Vocabularies:
    """Per state of a (version, method) aggregate, its :class:`Vocabulary` and each word's p-value."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._data: dict[tuple[Any, ...], tuple[Vocabulary, dict[str, float]]] = {}
        self._lock = threading.Lock()

    def get(
        self, db: Session, model_version_id: int, method: str, prior: list[float], state: AggregateState | None
    ) -> tuple[Vocabulary, dict[str, float]]:
        key = None
        if state is not None:
            key = (db.get_bind().url.render_as_string(), model_version_id, method, state.updated_at, state.n_examples)
            with self._lock:
                hit = self._data.get(key)
            if hit is not None:
                return hit
        rows = db.execute(
            select(WordAggregate.word, WordAggregate.label_counts, WordAggregate.sum_share, WordAggregate.count).where(
                WordAggregate.model_version_id == model_version_id, WordAggregate.method == method
            )
        ).all()
        n = len(prior)
        counts = np.zeros((len(rows), n))
        for i, r in enumerate(rows):
            lc = list(r[1])[:n]
            counts[i, : len(lc)] = lc
        vocab = Vocabulary(counts, prior, sum(max(0.0, r[2]) for r in rows), sum(r[3] for r in rows))
        out = vocab, dict(zip((r[0] for r in rows), vocab.p_values.tolist(), strict=True))
        if key is not None:
            with self._lock:
                if len(self._data) >= self.size:
                    self._data.clear()
                self._data[key] = out
        return out


_vocabularies = _Vocabularies()


def _stats(
    row: Any, prior: Sequence[float], labels: Sequence[str], num_labels: int, vocab: tuple[Vocabulary, dict[str, float]]
) -> WordStats:
    word, count, sum_share, sum_signed, _, label_counts = row[:6]
    lc = list(label_counts) + [0] * (num_labels - len(label_counts))
    ws = stats_from_sums(word, count, sum_share, sum_signed, lc, prior, labels)
    return vocab[0].fill(ws, vocab[1].get(word))


def _where(model_version_id: int, method: str, label: int | None, min_count: int, search: str | None) -> list[Any]:
    where: list[Any] = [WordAggregate.model_version_id == model_version_id, WordAggregate.method == method]
    if min_count > 1:
        where.append(WordAggregate.count >= min_count)
    if label is not None:
        where.append(WordAggregate.label_counts[label].as_integer() > 0)
    needle = word_key(search.strip()) if search else ""
    if needle:
        where.append(WordAggregate.word.contains(needle, autoescape=True))
    return where


def _project_and_state(
    db_session: Session, model_version_id: int, method: str
) -> tuple[Project, AggregateState | None]:
    """The version's project and its (version, method) state row (None before any explanation), in one
    query: a ranking page is a handful of round trips, and on a loaded server each one waits for a core."""
    found = db_session.execute(
        select(Project, AggregateState)
        .join(ModelVersion, ModelVersion.project_id == Project.id)
        .outerjoin(
            AggregateState,
            (AggregateState.model_version_id == ModelVersion.id) & (AggregateState.method == method),
        )
        .where(ModelVersion.id == model_version_id)
    ).first()
    if found is None:
        raise NotFoundError(f"model version {model_version_id} not found")
    return found[0], found[1]


def ranking(
    *,
    db_session: Session,
    model_version_id: int,
    method: str,
    sort: str = "importance",
    label: int | None = None,
    search: str | None = None,
    min_count: int = 1,
    offset: int = 0,
    limit: int = 100,
) -> list[WordStats]:
    """One page of the task-level word ranking, with the same numbers, order and tie-breaks as
    :meth:`xmd.core.aggregate.TaskAggregate.ranking` (``label`` filters, ``search`` is a substring of
    the word key). How each sort is computed is in the module docs."""
    _check_page(sort, offset, limit)
    project, state = _project_and_state(db_session, model_version_id, method)
    return _ranking(db_session, project, state, model_version_id, method, sort, label, search, min_count, offset, limit)


def _check_page(sort: str, offset: int, limit: int) -> None:
    if sort not in SORTS:
        raise ValueError(f"unknown sort {sort!r}; allowed: {', '.join(SORTS)}")
    if offset < 0 or not 0 <= limit <= MAX_PAGE:
        raise ValueError(f"offset must be >= 0 and limit in 0..{MAX_PAGE}")


def _ranking(
    db_session: Session,
    project: Project,
    state: AggregateState | None,
    model_version_id: int,
    method: str,
    sort: str,
    label: int | None,
    search: str | None,
    min_count: int,
    offset: int,
    limit: int,
) -> list[WordStats]:
    """:func:`ranking` once the version's project and (version, method) state row are read."""
    num_labels = len(project.labels)
    if label is not None and not 0 <= label < num_labels:
        raise ValueError(f"label {label} is outside 0..{num_labels - 1}")
    prior = _prior(state, num_labels)
    floor = state.bound_floor if state is not None else None
    # The stored bounds hold for priors at or above the floor; the writers keep it so (aggregates.py).
    bounds_hold = floor is None or all(p >= f for p, f in zip(prior, floor, strict=False))
    where = _where(model_version_id, method, label, min_count, search)
    stmt = select(*WORD_COLS).where(*where)
    if limit == 0:
        return []
    vocab = _vocabularies.get(db_session, model_version_id, method, prior, state)

    def page(order: Sequence[Any]) -> list[WordStats]:
        rows = db_session.execute(stmt.order_by(*order).offset(offset).limit(limit)).all()
        return [_stats(r, prior, project.labels, num_labels, vocab) for r in rows]

    importance_order = (WordAggregate.importance.desc(), WordAggregate.count.desc(), WordAggregate.word)
    if sort == "importance":
        return page(importance_order)
    if sort == "count":
        return page((WordAggregate.count.desc(), WordAggregate.importance.desc(), WordAggregate.word))
    if sum(prior) == 0 or max(prior) >= 1.0:
        # No word can be skewed: every suspicion is 0, so the core's key (-0, -importance, word) applies.
        return page((WordAggregate.importance.desc(), WordAggregate.word))

    # Threshold scan (module docs), first over a bounded prefix of the bound order: at 1M examples a top-100
    # stops after ~130 rows, and a plain LIMIT query answers in one round trip where a streamed cursor
    # (PostgreSQL: DECLARE / FETCH / CLOSE) takes several. Only if the prefix ends before the scan could
    # stop is it run again, 8x longer, and past SCAN_STREAM rows streamed to the end; each attempt is one
    # statement, so the page always comes from one consistent read.
    k = offset + limit
    scan = stmt.add_columns(WordAggregate.suspicion_bound).order_by(WordAggregate.suspicion_bound.desc())
    # Without valid bounds nothing can stop the scan early: stream it.
    want = SCAN_FIRST[0] * k + SCAN_FIRST[1] if bounds_hold else None
    while True:
        bounded = want is not None and want <= SCAN_STREAM
        query = scan.limit(want) if bounded else scan.execution_options(yield_per=SCAN_BATCH)
        heap, complete = _threshold_scan(
            db_session, query, want if bounded else None, k, bounds_hold, prior, num_labels
        )
        if complete or not bounded:
            break
        want *= 8
    best = sorted(heap, reverse=True)[offset:]
    return [_stats(e[3], prior, project.labels, num_labels, vocab) for e in best]


@dataclass
class WordPageRows:
    """One page of a ranking as the task view shows it: the words, how many words the filters match
    (for the pager), and the (version, method)'s state row the page was read under (None before any
    explanation) -- handed on so that nothing later in the request reads it again."""

    rows: list[WordStats]
    total: int
    state: AggregateState | None

    @property
    def n_examples(self) -> int:
        """Examples aggregated into the ranking."""
        return self.state.n_examples if self.state is not None else 0


def word_page(
    *,
    db_session: Session,
    project: Project,
    model_version: ModelVersion,
    method: str,
    sort: str = "importance",
    label: int | None = None,
    search: str | None = None,
    min_count: int = 1,
    offset: int = 0,
    limit: int = 100,
) -> WordPageRows:
    """:func:`ranking` and its word count (:func:`count_words_cached`) for a version already read with its
    ``project``: the state row is read once for both (the page is a handful of round trips, each of
    which waits for a core on a loaded server)."""
    _check_page(sort, offset, limit)
    if model_version.project_id != project.id:
        raise ValueError(f"model version {model_version.id} is not a version of project {project.id}")
    mv_id = model_version.id
    state = get_state(db_session=db_session, model_version_id=mv_id, method=method)
    rows = _ranking(db_session, project, state, mv_id, method, sort, label, search, min_count, offset, limit)
    args = {"model_version_id": mv_id, "method": method, "label": label, "search": search, "min_count": min_count}
    return WordPageRows(rows=rows, total=count_words_cached(db_session, args, state), state=state)


def _threshold_scan(
    db_session: Session,
    query: Any,
    limit: int | None,
    k: int,
    bounds_hold: bool,
    prior: Sequence[float],
    num_labels: int,
) -> tuple[list[tuple[float, float, _Neg, Any]], bool]:
    """The k best rows of ``query`` (rows in ``suspicion_bound`` order, at most ``limit``) and whether they
    are the k best of every row: the scan stopped at a bound below the k-th suspicion, or ``query`` ran
    out of rows before its limit. ``heap`` is a min-heap of the k best entries, "better" meaning a larger tuple
    (suspicion, importance, reversed word), i.e. earlier in the core's order; heap[0] is the k-th best."""
    heap: list[tuple[float, float, _Neg, Any]] = []
    n = 0
    result = db_session.execute(query)
    try:
        for row in result:
            imp = row[4]
            if bounds_hold and len(heap) == k and row[6] < heap[0][0] - BOUND_MARGIN:
                return heap, True  # suspicion <= bound: neither this word nor any later one can enter the page
            n += 1
            key = suspicion_key(imp, list(row[5]) + [0] * (num_labels - len(row[5])), prior)
            entry = (key, imp, _Neg(row[0]), row)
            if len(heap) < k:
                heapq.heappush(heap, entry)
            elif entry > heap[0]:
                heapq.heapreplace(heap, entry)
    finally:
        result.close()
    return heap, limit is None or n < limit


@functools.total_ordering
class _Neg:
    """A word with reversed order: among equal (suspicion, importance), the larger tuple is then the
    word that sorts first, as in the core's tie-break."""

    __slots__ = ("s",)

    def __init__(self, s: str) -> None:
        self.s = s

    def __lt__(self, other: _Neg) -> bool:
        return self.s > other.s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Neg) and self.s == other.s

    def __hash__(self) -> int:
        return hash(self.s)


def count_words(
    *,
    db_session: Session,
    model_version_id: int,
    method: str,
    label: int | None = None,
    search: str | None = None,
    min_count: int = 1,
) -> int:
    """How many words :func:`ranking` pages through with these filters (for pagers)."""
    where = _where(model_version_id, method, label, min_count, search)
    return int(db_session.scalar(select(func.count()).select_from(WordAggregate).where(*where)) or 0)


WORDS_PER_STATEMENT = 500  # an imported word list can hold thousands


def word_counts(*, db_session: Session, model_version_id: int, method: str, words: Sequence[str]) -> dict[str, int]:
    """Examples of the explained set that contain each of ``words`` (keyed by ``word_key``; unseen words left
    out): primary-key lookups, at most :data:`WORDS_PER_STATEMENT` words per statement."""
    keys = sorted({word_key(w.strip()) for w in words})
    out: dict[str, int] = {}
    for i in range(0, len(keys), WORDS_PER_STATEMENT):
        where = (WordAggregate.model_version_id == model_version_id, WordAggregate.method == method)
        chunk = WordAggregate.word.in_(keys[i : i + WORDS_PER_STATEMENT])
        rows = db_session.execute(select(WordAggregate.word, WordAggregate.count).where(*where, chunk))
        out.update({w: int(c) for w, c in rows})
    return out


def word_stats(*, db_session: Session, model_version_id: int, method: str, word: str) -> WordStats | None:
    """Statistics of one word (any spelling; it is normalised with ``word_key``), or None if unseen."""
    project = project_of(db_session, model_version_id)
    num_labels = len(project.labels)
    row = db_session.execute(
        select(*WORD_COLS).where(
            WordAggregate.model_version_id == model_version_id,
            WordAggregate.method == method,
            WordAggregate.word == word_key(word.strip()),
        )
    ).first()
    if row is None:
        return None
    state = get_state(db_session=db_session, model_version_id=model_version_id, method=method)
    prior = _prior(state, num_labels)
    return _stats(
        row, prior, project.labels, num_labels, _vocabularies.get(db_session, model_version_id, method, prior, state)
    )


def _word_examples_stmt(
    *, model_version_id: int, method: str, word: str, label: int | None = None, prediction: str | None = None
) -> Any:
    stmt = (
        select(Example)
        .join(WordOccurrence, WordOccurrence.example_id == Example.id)
        .where(
            WordOccurrence.model_version_id == model_version_id,
            WordOccurrence.method == method,
            WordOccurrence.word == word_key(word.strip()),
        )
    )
    if label is not None:
        stmt = stmt.where(Example.label == label)
    if prediction is not None:
        if prediction not in ("correct", "incorrect"):
            raise ValueError(f"prediction must be 'correct' or 'incorrect', got {prediction!r}")
        agree = Explanation.target == Example.label if prediction == "correct" else Explanation.target != Example.label
        stmt = stmt.join(
            Explanation,
            (Explanation.example_id == Example.id)
            & (Explanation.model_version_id == model_version_id)
            & (Explanation.method == method),
        ).where(Example.label.is_not(None), agree)
    return stmt


def examples_with_word(
    *, db_session: Session, after_id: int | None = None, offset: int = 0, limit: int = 50, **filters: Any
) -> list[Example]:
    """One page of the examples whose explanation counts ``word`` (among the words the model saw), by id;
    filters: ``model_version_id``, ``method``, ``word``, ``label``, and ``prediction`` = ``correct`` /
    ``incorrect`` to keep those the version predicts right / wrong."""
    if offset < 0 or not 0 <= limit <= MAX_PAGE:
        raise ValueError(f"offset must be >= 0 and limit in 0..{MAX_PAGE}")
    stmt = _word_examples_stmt(**filters)
    if after_id is not None:
        stmt = stmt.where(WordOccurrence.example_id > after_id)
    stmt = stmt.order_by(WordOccurrence.example_id).offset(offset).limit(limit)
    return list(db_session.scalars(stmt))


def count_examples_with_word(*, db_session: Session, **filters: Any) -> int:
    """How many examples :func:`examples_with_word` pages through with these filters."""
    stmt = _word_examples_stmt(**filters)
    return int(db_session.scalar(select(func.count()).select_from(stmt.subquery())) or 0)


def count_words_cached(db: Session, args: dict[str, Any], state: AggregateState | None) -> int:
    """:func:`count_words` for the ranking route, cached per state of the aggregate."""
    key = ("count_words", *sorted(args.items()))
    return state_cache.get(db, state, key, lambda: count_words(db_session=db, **args))
