"""The project's consensus as a request reads it: a bounded window of whole examples, paged by the route.

:func:`consensus_window` reads at most :data:`SCAN_CAP` current instance rows, example by example in
id order, and drops the last example if the cap cut through it, so every example in the window is read
whole and its consensus is exact. It adds the task-level rows (capped too), who of the people marked
the window's examples done, and, for the ``reviewed`` policy, the reviewers' decisions on them; the
core's :func:`~xmd.core.consensus.consensus` runs on that under the project's policy (what
``team.consensus_of`` does for a retrain, over everything). ``capped`` says the project had more: the
counts are then those of the first examples. Examples are keyed by database id here, not by file id
(which repeats across datasets), so every item links to its example.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from xmd.core.consensus import Consensus, Policy, consensus
from xmd.core.feedback import FeedbackSet
from xmd.core.types import Action, InstanceFeedback, Scope, TaskFeedback
from xmd.datasets.models import Example
from xmd.feedback.models import ExampleDone, Feedback, FeedbackLevel, FeedbackReview, ReviewDecision
from xmd.feedback.service import owner_of
from xmd.feedback.team import names_of, team_settings
from xmd.projects.models import Project

SCAN_CAP = 20_000
"""Current rows one consensus request reads at most, instance and task rows each (beyond: ``capped``).
Measured on PostgreSQL, 10 people, 3 per example: 20,000 rows take 0.45 to 1.0 s (majority, union) on a
loaded 2-core machine, 50,000 rows 1.0 to 2.5 s; the whole 270,000-row project took 18.6 s."""
CHUNK = 500


@dataclass
class Window:
    """The consensus of the window, whether the project had more, and its marks in order."""

    result: Consensus
    capped: bool
    examples: int

    def items(self) -> list[dict[str, Any]]:
        """The consensus's marks: instance ones by example id and position, then the task words."""
        fs = self.result.feedback
        out: list[dict[str, Any]] = []
        for f in sorted(fs.instance, key=lambda f: (int(f.example_id), f.word_index)):
            word = fs.words.get((f.example_id, f.word_index))
            out.append(
                _item(
                    FeedbackLevel.INSTANCE, f.action, example_id=int(f.example_id), word_index=f.word_index, word=word
                )
            )
        for t in fs.task:
            scope = getattr(t.scope, "value", t.scope)
            out.append(_item(FeedbackLevel.TASK, t.action, word=t.word, label=t.label, scope=scope))
        return out


def _item(level: FeedbackLevel, action: Action | str, **fields: Any) -> dict[str, Any]:
    base = {"example_id": None, "word_index": None, "word": None, "label": None, "scope": None}
    return {**base, **fields, "level": level.value, "action": getattr(action, "value", action)}


def _instance_rows(db: Session, project_id: int, dataset_id: int | None, cap: int) -> tuple[list[Any], int | None]:
    """The first ``cap`` instance rows by example, the last example dropped if cut; the first example id
    not read (None: every row was read)."""
    stmt = select(Feedback.example_id, Feedback.word_index, Feedback.owner, Feedback.action, Feedback.word).where(
        Feedback.project_id == project_id, Feedback.level == FeedbackLevel.INSTANCE
    )
    if dataset_id is not None:
        stmt = stmt.where(Feedback.example_id.in_(select(Example.id).where(Example.dataset_id == dataset_id)))
    rows = db.execute(stmt.order_by(Feedback.example_id, Feedback.id).limit(cap + 1)).all()
    if len(rows) <= cap:
        return list(rows), None
    bound = rows[cap].example_id
    return [r for r in rows[:cap] if r.example_id < bound], bound


def _seen(db: Session, project_id: int, example_ids: Sequence[int], people: set[str]) -> dict[str, list[str]]:
    """Owner → the window's examples they marked done (only people with marks count, as for a retrain)."""
    out: dict[str, list[str]] = {}
    for i in range(0, len(example_ids), CHUNK):
        stmt = select(ExampleDone.example_id, ExampleDone.user_id).where(
            ExampleDone.project_id == project_id, ExampleDone.example_id.in_(example_ids[i : i + CHUNK])
        )
        for eid, uid in db.execute(stmt):
            if owner_of(uid) in people:
                out.setdefault(owner_of(uid), []).append(str(eid))
    return out


def _reviews(
    db: Session, project_id: int, dataset_id: int | None, bound: int | None, cap: int
) -> tuple[FeedbackSet, bool]:
    """The decisions that keep a mark, on the window's examples and on task words; whether capped."""
    stmt = select(FeedbackReview).where(
        FeedbackReview.project_id == project_id, FeedbackReview.decision != ReviewDecision.REJECT
    )
    if dataset_id is not None:
        in_ds = FeedbackReview.example_id.in_(select(Example.id).where(Example.dataset_id == dataset_id))
        stmt = stmt.where(or_(FeedbackReview.level == FeedbackLevel.TASK, in_ds))
    if bound is not None:
        stmt = stmt.where(or_(FeedbackReview.level == FeedbackLevel.TASK, FeedbackReview.example_id < bound))
    found = list(db.scalars(stmt.order_by(FeedbackReview.event_id).limit(cap + 1)))
    out = FeedbackSet()
    for rv in found[:cap]:
        if rv.action is None:
            continue
        if rv.level is FeedbackLevel.INSTANCE and rv.example_id is not None and rv.word_index is not None:
            out.instance.append(InstanceFeedback(str(rv.example_id), rv.word_index, rv.action, "review"))
            if rv.word:
                out.words[(str(rv.example_id), rv.word_index)] = rv.word
        elif rv.level is FeedbackLevel.TASK and rv.word is not None:
            out.task.append(TaskFeedback(rv.word, rv.action, rv.label, rv.scope or Scope.ALL, source="review"))
    return out, len(found) > cap


def consensus_window(
    *, db_session: Session, project: Project, dataset_id: int | None = None, cap: int | None = None
) -> Window:
    """The consensus of the first examples' marks (whole examples, at most ``cap`` rows, default
    :data:`SCAN_CAP`) and the task words."""
    cap = SCAN_CAP if cap is None else cap
    ts = team_settings(project)
    rows, bound = _instance_rows(db_session, project.id, dataset_id, cap)
    task_stmt = select(Feedback).where(Feedback.project_id == project.id, Feedback.level == FeedbackLevel.TASK)
    tasks = list(db_session.scalars(task_stmt.order_by(Feedback.last_event_id).limit(cap + 1)))
    capped = bound is not None or len(tasks) > cap
    sets: dict[str, FeedbackSet] = {}
    for eid, i, owner, action, word in rows:
        fs = sets.setdefault(owner, FeedbackSet())
        fs.instance.append(InstanceFeedback(str(eid), i, action))
        if word is not None:
            fs.words[(str(eid), i)] = word
    for fb in tasks[:cap]:
        assert fb.word is not None
        sets.setdefault(fb.owner, FeedbackSet()).task.append(
            TaskFeedback(fb.word, fb.action, fb.label, fb.scope or Scope.ALL)
        )
    examples = sorted({r.example_id for r in rows})
    seen = _seen(db_session, project.id, examples, set(sets))
    review = None
    if ts.policy is Policy.REVIEWED:
        review, more = _reviews(db_session, project.id, dataset_id, bound, cap)
        capped = capped or more
    names = names_of(db_session, list(sets))
    people = {names[o]: fs for o, fs in sets.items()}
    result = consensus(people, ts.policy, k=ts.k, review=review, seen={names[o]: ids for o, ids in seen.items()})
    return Window(result, capped, len(examples))
