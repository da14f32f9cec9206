"""Conflicts between annotators, and a reviewer's decisions on them.

A key (a word position of an example, or a task-level word) is **disputed** when the people who saw
it did not all do the same: some added, some removed, some left it alone. Who saw an instance key: the
people with a mark anywhere on its example, or who marked the example done; a task key: everyone with
feedback in the project. Its *dispute* is ``1 − (largest group) / (raters)``: 0 when all agree, up to
2/3 with three camps. The list is most disputed first, paged; the scan is capped (:data:`SCAN_CAP`
current rows) and says so.

A decision (accept / reject / edit) is one row per key in ``feedback_reviews`` (a later decision
replaces it) and one event in the log, with the reviewer as its user and ``review:<decision>`` as its
source, so the audit trail shows who settled what. The ``reviewed`` consensus is made of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from xmd.core.types import Action, FeedbackError
from xmd.datasets.models import Example
from xmd.db.base import utcnow
from xmd.db.engine import dialect_insert, write_scope
from xmd.db.errors import NotFoundError
from xmd.feedback import click
from xmd.feedback.models import ExampleDone, Feedback, FeedbackLevel, FeedbackReview, ReviewDecision
from xmd.feedback.service import LAST_EVENT, _serialise_key, _serialise_project
from xmd.feedback.team import names_of
from xmd.projects.models import Project

SCAN_CAP = 200_000
"""Current rows a conflict list reads at most (``capped`` in the answer when there were more)."""
REVIEW_OWNER = "review"
"""The owner written on a decision's event (the reviewer is its ``user_id``)."""


@dataclass
class Conflict:
    key: str
    level: FeedbackLevel
    example_id: int | None
    word_index: int | None
    word: str | None
    label: int | None
    scope: str | None
    raters: int
    votes: dict[str, list[str]]
    """action (``add`` / ``remove`` / ``none``) → names of those who chose it (``none``: saw, no mark)."""
    dispute: float
    decision: str | None = None
    decided_action: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__, level=self.level.value)


def _raters_of_examples(db: Session, project_id: int, rows: list[Feedback]) -> dict[int, set[str]]:
    """Example id → owners who saw it (a mark on it, or marked it done)."""
    out: dict[int, set[str]] = {}
    for fb in rows:
        if fb.example_id is not None:
            out.setdefault(fb.example_id, set()).add(fb.owner)
    ids = list(out)
    for i in range(0, len(ids), 500):
        stmt = select(ExampleDone.example_id, ExampleDone.user_id).where(
            ExampleDone.project_id == project_id, ExampleDone.example_id.in_(ids[i : i + 500])
        )
        for eid, uid in db.execute(stmt):
            out[eid].add(f"u:{uid}")
    return out


def conflicts(*, db_session: Session, project: Project, include_decided: bool = False) -> tuple[list[Conflict], bool]:
    """Every disputed key, most disputed first (then most raters, then key); whether the scan was capped."""
    stmt = select(Feedback).where(Feedback.project_id == project.id).order_by(Feedback.id).limit(SCAN_CAP + 1)
    rows = list(db_session.scalars(stmt))
    capped = len(rows) > SCAN_CAP
    rows = rows[:SCAN_CAP]
    by_key: dict[str, list[Feedback]] = {}
    for fb in rows:
        by_key.setdefault(fb.key, []).append(fb)
    raters_of = _raters_of_examples(db_session, project.id, rows)
    everyone = {fb.owner for fb in rows}
    names = names_of(db_session, sorted(everyone | {o for s in raters_of.values() for o in s}))
    decided = {
        rv.key: rv for rv in db_session.scalars(select(FeedbackReview).where(FeedbackReview.project_id == project.id))
    }
    out: list[Conflict] = []
    for key, fbs in by_key.items():
        first = fbs[0]
        raters = raters_of.get(first.example_id, set()) if first.example_id is not None else everyone
        if len(raters) < 2:
            continue
        votes: dict[str, list[str]] = {"add": [], "remove": [], "none": []}
        marked = {fb.owner: fb.action.value for fb in fbs}
        for owner in sorted(raters, key=lambda o: names[o]):
            votes[marked.get(owner, "none")].append(names[owner])
        largest = max(len(v) for v in votes.values())
        if largest == len(raters):
            continue
        rv = decided.get(key)
        if rv is not None and not include_decided:
            continue
        out.append(
            Conflict(
                key=key,
                level=first.level,
                example_id=first.example_id,
                word_index=first.word_index,
                word=first.word,
                label=first.label,
                scope=first.scope.value if first.scope else None,
                raters=len(raters),
                votes=votes,
                dispute=round(1 - largest / len(raters), 6),
                decision=rv.decision.value if rv else None,
                decided_action=rv.action.value if rv and rv.action else None,
            )
        )
    out.sort(key=lambda c: (-c.dispute, -c.raters, c.key))
    return out, capped


def decide(
    *,
    db_session: Session,
    project: Project,
    key: str,
    decision: ReviewDecision | str,
    action: Action | str | None,
    reviewer_id: int,
) -> FeedbackReview:
    """Settle one key: ``accept`` keeps the action most people chose (or ``action`` when given, e.g. on a
    tie); ``edit`` keeps ``action`` (required); ``reject`` keeps nothing. Logged as an event."""
    dec = ReviewDecision(decision)
    act = Action(action) if action is not None else None
    if act is Action.RESET:
        raise FeedbackError("a review keeps add or remove; reject keeps nothing")
    rows = list(db_session.scalars(select(Feedback).where(Feedback.project_id == project.id, Feedback.key == key)))
    if not rows:
        raise NotFoundError(f"nobody has feedback on {key!r} in project {project.name!r}")
    if dec is ReviewDecision.EDIT and act is None:
        raise FeedbackError("an edit needs the action to keep (add or remove)")
    if dec is ReviewDecision.REJECT:
        act = None
    elif dec is ReviewDecision.ACCEPT and act is None:
        adds = sum(fb.action is Action.ADD for fb in rows)
        removes = sum(fb.action is Action.REMOVE for fb in rows)
        if adds == removes:
            raise FeedbackError("as many added as removed: accept says which to keep (action), or edit")
        act = Action.ADD if adds > removes else Action.REMOVE
    first = rows[0]
    fields = {f: getattr(first, f) for f in REVIEW_FIELDS}
    with write_scope(db_session, True):
        _serialise_key(db_session, project.id, key)
        db_session.info[LAST_EVENT] = _record(db_session, project.id, key, fields, dec, act, reviewer_id)
    stmt = select(FeedbackReview).where(FeedbackReview.project_id == project.id, FeedbackReview.key == key)
    return db_session.scalars(stmt.execution_options(populate_existing=True)).one()


REVIEW_FIELDS = ("level", "example_id", "word_index", "word", "label", "scope")
"""What a decision records of its key (copied from a current row, or from an imported dataset)."""


@dataclass(frozen=True)
class Decided:
    """One decision to record as it was made elsewhere (an imported feedback dataset)."""

    key: str
    fields: dict[str, Any]
    decision: ReviewDecision
    action: Action | None
    reviewer_id: int | None


def record_decisions(*, db_session: Session, project: Project, decided: list[Decided]) -> int:
    """Record decisions made elsewhere, each as its event and its ``feedback_reviews`` row, in one
    transaction; the project's lock (not one per key: an import may bring thousands). No current row is
    needed: a decision outlives the marks it settled."""
    with write_scope(db_session, True):
        _serialise_project(db_session, project.id)
        for d in decided:
            _record(db_session, project.id, d.key, d.fields, d.decision, d.action, d.reviewer_id)
    return len(decided)


def _record(
    db_session: Session,
    project_id: int,
    key: str,
    fields: dict[str, Any],
    dec: ReviewDecision,
    act: Action | None,
    reviewer_id: int | None,
) -> int:
    """The decision's event (``review:<decision>``, the reviewer as its user) and its row (a later
    decision on the key replaces it); the event's id. The caller holds the key's or project's lock."""
    now = utcnow()
    where = {"project_id": project_id, "key": key, **fields}
    params = {**where, "owner": REVIEW_OWNER, "action": act or Action.RESET, "source": f"review:{dec.value}"}
    logged = {**params, "user_id": reviewer_id, "created_at": now}
    event_id = int(db_session.execute(click._event(), logged).scalar_one())
    row = {**where, "decision": dec, "action": act, "reviewer_id": reviewer_id, "event_id": event_id}
    ins = dialect_insert(db_session, FeedbackReview.__table__).values(**row, updated_at=now)
    changed = ("decision", "action", "reviewer_id", "event_id", "updated_at")
    ins = ins.on_conflict_do_update(index_elements=["project_id", "key"], set_={c: ins.excluded[c] for c in changed})
    db_session.execute(ins)
    return event_id


def count_decisions(*, db_session: Session, project_id: int) -> int:
    """How many keys a reviewer has settled."""
    stmt = select(func.count()).select_from(FeedbackReview).where(FeedbackReview.project_id == project_id)
    return int(db_session.scalar(stmt) or 0)


def example_refs(db_session: Session, example_ids: list[int]) -> dict[int, tuple[str, int]]:
    """Example id → (file id, dataset id), for the conflict list's links."""
    if not example_ids:
        return {}
    stmt = select(Example.id, Example.ext_id, Example.dataset_id).where(Example.id.in_(example_ids))
    return {i: (ext, ds) for i, ext, ds in db_session.execute(stmt)}
