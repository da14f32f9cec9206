"""Which examples the Results screen offers to show under two versions side by side.

Three groups, each a bounded page computed here so the browser never scans a dataset:

* ``feedback`` — examples with per-example (instance) feedback, in file order;
* ``task_words`` — examples that contain a word of the task-level feedback as a whole word (the core's
  word rule, as the feedback applies), in file order: the README's story (one task-level *remove*) has
  no instance feedback at all; at most :data:`WORD_SCAN_CAP` candidate texts are read;
* ``changed`` — examples whose predicted probabilities moved most between the two versions (the
  largest absolute change of one class's probability), read from the explanations both versions have
  stored with the method; at most :data:`SCAN_CAP` pairs are read, so the answer is exact for sets up to
  that size and says ``capped`` beyond it.

Every pick carries the probability change when both versions have an explanation of it.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from sqlalchemy import distinct, func, or_, select
from sqlalchemy.orm import Session, aliased

from xmd.core.words import split_words, word_key
from xmd.datasets.models import Dataset, Example
from xmd.explanations.models import Explanation
from xmd.feedback.models import Feedback, FeedbackLevel
from xmd.versions.models import ModelVersion

Group = Literal["feedback", "task_words", "changed"]
GROUPS: tuple[Group, ...] = ("feedback", "task_words", "changed")
MAX_PICKS = 500
"""The deepest a group can be paged (offset + limit): a picker, not an export."""
SCAN_CAP = 20_000
"""Explanation pairs read to rank the most changed examples (the request stays bounded)."""
SCAN_CHUNK = 2_000
WORD_SCAN_CAP = 20_000
"""Texts read (those containing a task word as a substring) to find the examples with the whole word."""


@dataclass
class Pick:
    example: Example
    dataset: str
    change: float | None = None
    pred_a: int | None = None
    pred_b: int | None = None
    words: list[str] = field(default_factory=list)


@dataclass
class Picks:
    items: list[Pick]
    total: int
    scanned: int | None = None
    capped: bool = False
    note: str | None = None
    words: list[str] = field(default_factory=list)


def change_of(pa: Sequence[float], pb: Sequence[float]) -> float:
    """How far the prediction moved: the largest absolute change of one class's probability."""
    return max((abs(float(b) - float(a)) for a, b in zip(pa, pb, strict=False)), default=0.0)


def _argmax(p: Sequence[float]) -> int:
    return max(range(len(p)), key=p.__getitem__)


def task_words(*, db_session: Session, project_id: int) -> list[str]:
    """The word keys of the project's current task-level feedback, in the order they were given."""
    stmt = (
        select(Feedback.word)
        .where(Feedback.project_id == project_id, Feedback.level == FeedbackLevel.TASK, Feedback.word.is_not(None))
        .order_by(Feedback.last_event_id)
    )
    return list(dict.fromkeys(w for w in db_session.scalars(stmt) if w))


def _probs(db: Session, version_id: int, method: str, ids: Sequence[int]) -> dict[int, list[float]]:
    if not ids:
        return {}
    stmt = select(Explanation.example_id, Explanation.probs).where(
        Explanation.model_version_id == version_id, Explanation.method == method, Explanation.example_id.in_(ids)
    )
    return {eid: list(p) for eid, p in db.execute(stmt)}


def _picks(db: Session, ids: Sequence[int], a: ModelVersion, b: ModelVersion, method: str) -> list[Pick]:
    """The examples of ``ids`` (in that order) with their dataset and, where both versions explained
    them, the change of their prediction."""
    if not ids:
        return []
    rows = db.execute(
        select(Example, Dataset.name).join(Dataset, Dataset.id == Example.dataset_id).where(Example.id.in_(ids))
    )
    by_id = {ex.id: (ex, name) for ex, name in rows}
    pa, pb = _probs(db, a.id, method, ids), _probs(db, b.id, method, ids)
    out = []
    for eid in ids:
        if eid not in by_id:
            continue
        ex, name = by_id[eid]
        pick = Pick(example=ex, dataset=name)
        if eid in pa and eid in pb:
            pick.change = change_of(pa[eid], pb[eid])
            pick.pred_a, pick.pred_b = _argmax(pa[eid]), _argmax(pb[eid])
        out.append(pick)
    return out


def _with_feedback(
    db: Session, project_id: int, a: ModelVersion, b: ModelVersion, method: str, offset: int, limit: int
) -> Picks:
    cond = (
        Feedback.project_id == project_id,
        Feedback.level == FeedbackLevel.INSTANCE,
        Feedback.example_id.is_not(None),
    )
    total = int(db.scalar(select(func.count(distinct(Feedback.example_id))).where(*cond)) or 0)
    stmt = select(Feedback.example_id).where(*cond).group_by(Feedback.example_id).order_by(Feedback.example_id)
    ids = [int(i) for i in db.scalars(stmt.offset(offset).limit(limit))]
    note = None if total else "no example has feedback of its own (per-example marks)"
    return Picks(items=_picks(db, ids, a, b, method), total=total, note=note)


def _with_words(
    db: Session, project_id: int, a: ModelVersion, b: ModelVersion, method: str, offset: int, limit: int
) -> Picks:
    words = task_words(db_session=db, project_id=project_id)
    if not words:
        return Picks(items=[], total=0, note="no task-level feedback yet")
    # Texts that contain a word as a substring (SQL), then the whole word by the core's rule (the word
    # index would miss words past a model's truncation, and needs the examples explained).
    wanted = set(words)
    stmt = (
        select(Example.id, Example.text)
        .where(Example.project_id == project_id, or_(*(Example.text.icontains(w, autoescape=True) for w in words)))
        .order_by(Example.id)
    )
    found: list[tuple[int, list[str]]] = []
    total, scanned, last, capped = 0, 0, 0, False
    while not capped:
        rows = db.execute(stmt.where(Example.id > last).limit(SCAN_CHUNK)).all()
        for eid, text in rows:
            if scanned == WORD_SCAN_CAP:
                capped = True
                break
            scanned, last = scanned + 1, int(eid)
            has = {word_key(w) for w in split_words(text)[0]} & wanted
            if has:
                if offset <= total < offset + limit:
                    found.append((int(eid), [w for w in words if w in has]))
                total += 1
        if len(rows) < SCAN_CHUNK:
            break
    picks = _picks(db, [eid for eid, _ in found], a, b, method)
    by_id = dict(found)
    for p in picks:
        p.words = by_id[p.example.id]
    note = None if total else f"no example contains {', '.join(words)}"
    return Picks(items=picks, total=total, note=note, words=words, scanned=scanned, capped=capped)


def _most_changed(db: Session, a: ModelVersion, b: ModelVersion, method: str, offset: int, limit: int) -> Picks:
    ea, eb = aliased(Explanation), aliased(Explanation)
    stmt = (
        select(ea.example_id, ea.probs, eb.probs)
        .join(eb, (eb.example_id == ea.example_id) & (eb.model_version_id == b.id) & (eb.method == method))
        .where(ea.model_version_id == a.id, ea.method == method)
        .order_by(ea.example_id)
    )
    k = offset + limit
    best: list[tuple[float, int]] = []  # a min-heap of (change, -id): the k largest changes, lower id first on ties
    scanned, last, capped = 0, 0, False
    while True:
        rows = db.execute(stmt.where(ea.example_id > last).limit(min(SCAN_CHUNK, SCAN_CAP - scanned + 1))).all()
        for eid, pa, pb in rows:
            if scanned == SCAN_CAP:
                capped = True
                break
            scanned += 1
            item = (change_of(pa, pb), -int(eid))
            if len(best) < k:
                heapq.heappush(best, item)
            elif k and item > best[0]:
                heapq.heapreplace(best, item)
            last = int(eid)
        if capped or len(rows) < SCAN_CHUNK:
            break
    ranked = sorted(best, reverse=True)[offset : offset + limit]
    ids = [-eid for _, eid in ranked]
    note = None
    if not scanned:
        note = (
            f"no example is explained under both v{a.version} and v{b.version} with {method}: "
            f"explain the training set under v{b.version} to see what changed most"
        )
    return Picks(items=_picks(db, ids, a, b, method), total=scanned, scanned=scanned, capped=capped, note=note)


def picks(
    *,
    db_session: Session,
    project_id: int,
    a: ModelVersion,
    b: ModelVersion,
    method: str,
    group: Group,
    offset: int = 0,
    limit: int = 20,
) -> Picks:
    """One page of one group of examples to compare under versions ``a`` and ``b``."""
    if group not in GROUPS:
        raise ValueError(f"group must be one of {GROUPS}, got {group!r}")
    if offset < 0 or limit < 0 or offset + limit > MAX_PICKS:
        raise ValueError(f"offset + limit must be at most {MAX_PICKS}")
    if group == "feedback":
        return _with_feedback(db_session, project_id, a, b, method, offset, limit)
    if group == "task_words":
        return _with_words(db_session, project_id, a, b, method, offset, limit)
    return _most_changed(db_session, a, b, method, offset, limit)
