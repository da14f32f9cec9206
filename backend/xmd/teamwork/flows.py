"""Team work spanning domains: a queue's selection and order (datasets, explanations), the agreement summary.

The selection is a training dataset, a saved slice (its search / regex / label filters) or "the examples
of these words" (the current version's word occurrences); it is capped at
:data:`~xmd.teamwork.queues.MAX_QUEUE_EXAMPLES`. The order is computed once, when the queue is made,
by the rule :data:`~xmd.teamwork.queues.RULES` states.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from xmd.core.agreement import AnnotatorMarks, task_agreement
from xmd.core.types import DataError
from xmd.core.words import word_key
from xmd.datasets import service as datasets
from xmd.datasets.models import DatasetRole, Example
from xmd.explanations import ranking
from xmd.explanations.models import WordOccurrence
from xmd.explanations.predictions import stored_predictions
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.teamwork import agreement, marks, queues
from xmd.teamwork.models import QueueOrder, WordAgreement, WorkQueue
from xmd.teamwork.schemas import QueueIn
from xmd.users.models import User
from xmd.versions import service as versions

TOP_WORDS = 200
MAX_WORDS = 100
MAX_PAGE = 1000
TASK_WORDS = 200


def _version_method(db: Session, project: Project) -> tuple[int, str]:
    mv = versions.resolve(db_session=db, project=project, version_id=None)
    return mv.id, projects.method_for(project, None)


def _of_words(db: Session, project: Project, words: Sequence[str]) -> dict[int, int]:
    """example id → the rank of the first of ``words`` it contains (the current version's occurrences)."""
    version_id, method = _version_method(db, project)
    out: dict[int, int] = {}
    for rank, w in enumerate(words):
        stmt = (
            select(WordOccurrence.example_id)
            .where(
                WordOccurrence.model_version_id == version_id, WordOccurrence.method == method, WordOccurrence.word == w
            )
            .limit(queues.MAX_QUEUE_EXAMPLES + 1)
        )
        for (eid,) in db.execute(stmt):
            out.setdefault(eid, rank)
        if len(out) > queues.MAX_QUEUE_EXAMPLES:
            break
    return out


def _selection(db: Session, project: Project, body: QueueIn) -> list[int]:
    """The example ids the queue covers, in id order."""
    cap = queues.MAX_QUEUE_EXAMPLES + 1
    if body.words:
        return sorted(_of_words(db, project, [word_key(w.strip()) for w in body.words[:MAX_WORDS]]))[:cap]
    filters: dict[str, Any] = {}
    dataset_id = body.dataset_id
    if body.slice is not None:
        saved = {s["name"]: s for s in project.settings.get("slices", [])}
        if body.slice not in saved:
            raise DataError(f"the project has no saved slice named {body.slice!r}")
        s = saved[body.slice]
        dataset_id = dataset_id or s.get("dataset_id")
        filters = {
            k: v for k, v in s.get("filters", {}).items() if k in ("search", "regex", "label") and v not in (None, "")
        }
    if dataset_id is None:
        raise DataError("give a dataset_id, a slice or words")
    ds = datasets.in_project(db_session=db, project=project, dataset_id=dataset_id)
    if ds.role is not DatasetRole.TRAIN:
        raise DataError(f"annotators work on training data; dataset {ds.name!r} is an eval set")
    if not filters:
        stmt = select(Example.id).where(Example.dataset_id == ds.id).order_by(Example.id).limit(cap)
        return list(db.scalars(stmt))
    ids: list[int] = []
    after: int | None = None
    while len(ids) < cap:
        rows = datasets.list_examples(db_session=db, dataset_id=ds.id, after_id=after, limit=MAX_PAGE, **filters)
        ids.extend(r.id for r in rows)
        if len(rows) < MAX_PAGE:
            break
        after = rows[-1].id
    return ids


def _ordered(db: Session, project: Project, ids: list[int], ordering: QueueOrder, seed: int) -> list[int]:
    if ordering in (QueueOrder.RANDOM, QueueOrder.DISAGREEMENT):
        out = list(ids)
        random.Random(seed).shuffle(out)
        return out
    if ordering is QueueOrder.SUSPICIOUS:
        version_id, method = _version_method(db, project)
        top = ranking.ranking(
            db_session=db, model_version_id=version_id, method=method, sort="suspicion", limit=TOP_WORDS
        )
        first = _of_words(db, project, [w.word for w in top])
        return sorted(ids, key=lambda e: (first.get(e, TOP_WORDS), e))
    version_id, method = _version_method(db, project)
    conf: dict[int, float] = {}
    for i in range(0, len(ids), marks.CHUNK):
        chunk = ids[i : i + marks.CHUNK]
        for eid, (_, probs) in stored_predictions(
            db_session=db, example_ids=chunk, version_id=version_id, method=method
        ).items():
            conf[eid] = max(probs) if probs else 2.0
    return sorted(ids, key=lambda e: (conf.get(e, 2.0), e))


def create_queue(db: Session, project: Project, body: QueueIn, user: User) -> WorkQueue:
    """Select, order and assign; committed."""
    known = set(db.scalars(select(User.id).where(User.id.in_(body.annotators))))
    unknown = sorted(set(body.annotators) - known)
    if unknown:
        raise DataError(f"unknown user id(s) {unknown}")
    ids = _selection(db, project, body)
    if len(ids) > queues.MAX_QUEUE_EXAMPLES:
        raise DataError(f"the selection holds more than {queues.MAX_QUEUE_EXAMPLES} examples; narrow it or split it")
    source = {k: v for k, v in body.model_dump(include={"dataset_id", "slice", "words"}).items() if v}
    q = queues.create(
        db,
        project_id=project.id,
        name=body.name,
        ordering=body.order,
        seed=body.seed,
        overlap=body.overlap,
        source=source,
        example_ids=_ordered(db, project, ids, body.order, body.seed),
        user_ids=body.annotators,
        created_by=user.id,
    )
    db.commit()
    return q


def _names(db: Session, ids: set[int]) -> dict[int, str]:
    return dict(db.execute(select(User.id, User.name).where(User.id.in_(sorted(ids)))).all()) if ids else {}


def summary(db: Session, project: Project, *, offset: int = 0, limit: int = 20) -> dict[str, Any]:
    """The agreement summary (brought up to date first, committed): tokens, pairs, α, Fleiss, a page of words
    (most disputed first) and the task-level words."""
    totals = agreement.refresh(db, project.id)
    tasks = marks.task_marks(db, project.id)
    raters = {int(r) for r in totals.get("raters", {})}
    names = _names(db, raters | set(tasks))
    people = [
        AnnotatorMarks(
            names.get(u, str(u)), {}, frozenset(), {k[0]: a for k, (_, a) in sorted(tasks.get(u, {}).items(), key=repr)}
        )
        for u in sorted(raters | set(tasks))
    ]
    words = db.scalars(
        select(WordAgreement)
        .where(WordAgreement.project_id == project.id, WordAgreement.marked > 0)
        .order_by(WordAgreement.disputed.desc(), WordAgreement.marked.desc(), WordAgreement.word)
        .offset(offset)
        .limit(limit)
    ).all()
    task = task_agreement(people) if len(people) >= 2 else {"n_words": 0, "pairs": [], "alpha": None, "words": []}
    task["words"] = task["words"][:TASK_WORDS]
    db.commit()
    return {
        "annotators": [names.get(u, str(u)) for u in sorted(raters)],
        "n_examples": int(totals.get("n_examples", 0)),
        "n_tokens": int(totals.get("n_tokens", 0)),
        "alpha": agreement.alpha_of(totals.get("o", [])),
        "fleiss_kappa": agreement.fleiss_of(totals),
        "pairs": agreement.pairs_of(totals, names),
        "per_word": [
            {
                "word": w.word,
                "n_tokens": w.n_tokens,
                "marked": w.marked,
                "unanimous": w.unanimous,
                "disputed": w.disputed,
                "alpha": agreement.alpha_of(w.coincidences),
            }
            for w in words
        ],
        "n_words": int(totals.get("n_words", 0)),
        "task": task,
        "pending": bool(totals.get("pending")),
        "offset": offset,
        "limit": limit,
    }
