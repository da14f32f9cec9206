"""Several people on one project: each one's marks, the project's consensus, blind mode, agreement.

Every person's feedback is their own row per key (``Feedback.owner``: ``u:<user id>``, or a named
import). The project reads them three ways:

- :func:`marks_by_person`: name → that person's :class:`FeedbackSet` (agreement, export);
- :func:`consensus_of`: the project's feedback by its policy (``core/consensus.py``); ``union`` with
  one contributor is that contributor's set exactly as it was given, so a one-person project trains
  on what it always did;
- :func:`visible_to`: what a reader may see — in **blind** mode an annotator sees only their own
  marks, and the others' on an example only once they said they are done with it (:func:`mark_done`).

The settings live in ``projects.settings["team"]`` (:func:`team_settings`); changing them changes
nobody's marks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.orm import Session

from xmd.core.agreement import AnnotatorMarks, agreement, annotator_marks
from xmd.core.consensus import Consensus, Policy, consensus, parse_policy
from xmd.core.feedback import FeedbackSet
from xmd.core.types import FeedbackError, InstanceFeedback, Scope, TaskFeedback
from xmd.core.words import split_words
from xmd.datasets.models import Example
from xmd.db.base import utcnow
from xmd.db.engine import dialect_insert
from xmd.feedback.models import ExampleDone, Feedback, FeedbackEvent, FeedbackLevel, FeedbackReview, ReviewDecision
from xmd.feedback.service import owner_of, to_feedback_set, user_of
from xmd.projects.models import Project
from xmd.users.models import Role, User

MAX_AGREEMENT_EXAMPLES = 5_000
"""Shared examples an agreement summary reads (the core refuses tables over MAX_TOKENS anyway)."""


@dataclass(frozen=True)
class TeamSettings:
    """How a project combines its people's feedback, and whether they annotate blind."""

    policy: Policy = Policy.UNION
    k: int | None = None
    blind: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"policy": self.policy.value, "k": self.k, "blind": self.blind}


def team_settings(project: Project) -> TeamSettings:
    """The project's team settings (defaults: ``union``, not blind)."""
    raw = (project.settings or {}).get("team") or {}
    return TeamSettings(parse_policy(raw.get("policy", "union")), raw.get("k"), bool(raw.get("blind", False)))


def set_team_settings(
    *, db_session: Session, project: Project, policy: Policy | str, k: int | None, blind: bool
) -> TeamSettings:
    """Change the policy / k / blind (FeedbackError for a k the policy does not take); marks are untouched."""
    p = parse_policy(policy)
    if p is Policy.AT_LEAST_K and (not isinstance(k, int) or k < 1):
        raise FeedbackError("policy at_least_k needs k ≥ 1")
    out = TeamSettings(p, k if p is Policy.AT_LEAST_K else None, blind)
    project.settings = {**(project.settings or {}), "team": out.to_dict()}  # a new dict: the change is tracked
    db_session.commit()
    return out


def names_of(db_session: Session, owners: Sequence[str]) -> dict[str, str]:
    """Owner → display name: the user's name for ``u:<id>``, else the owner string itself."""
    ids = {uid for o in owners if (uid := user_of(o)) is not None}
    rows = db_session.execute(select(User.id, User.name).where(User.id.in_(ids))) if ids else []
    users = {uid: name for uid, name in rows}
    return {o: users.get(user_of(o) or -1, o or "(unknown)") for o in owners}


def _rows(db_session: Session, project_id: int, dataset_id: int | None) -> list[tuple[Feedback, str | None]]:
    """Current rows with their example's file id (None for task rows), in the order they were given."""
    inst = select(Feedback, Example.ext_id).join(Example, Example.id == Feedback.example_id)
    inst = inst.where(Feedback.project_id == project_id, Feedback.level == FeedbackLevel.INSTANCE)
    if dataset_id is not None:
        inst = inst.where(Example.dataset_id == dataset_id)
    task = select(Feedback).where(Feedback.project_id == project_id, Feedback.level == FeedbackLevel.TASK)
    rows: list[tuple[Feedback, str | None]] = [(fb, ext) for fb, ext in db_session.execute(inst)]
    rows += [(fb, None) for fb in db_session.scalars(task)]
    return sorted(rows, key=lambda r: r[0].last_event_id)


def marks_by_person(*, db_session: Session, project: Project, dataset_id: int | None = None) -> dict[str, FeedbackSet]:
    """Name → that person's current marks (instance entries by example file id), in the order given."""
    by_owner: dict[str, FeedbackSet] = {}
    for fb, ext in _rows(db_session, project.id, dataset_id):
        fs = by_owner.setdefault(fb.owner, FeedbackSet())
        if fb.level is FeedbackLevel.INSTANCE:
            assert ext is not None and fb.word_index is not None
            fs.instance.append(InstanceFeedback(ext, fb.word_index, fb.action, fb.source))
            if fb.word is not None:
                fs.words[(ext, fb.word_index)] = fb.word
        else:
            assert fb.word is not None
            fs.task.append(TaskFeedback(fb.word, fb.action, fb.label, fb.scope or Scope.ALL, source=fb.source))
    names = names_of(db_session, list(by_owner))
    return {names[o]: fs for o, fs in by_owner.items()}


def seen_by_person(*, db_session: Session, project: Project, dataset_id: int | None = None) -> dict[str, list[str]]:
    """Name → file ids of the examples they marked done (their marked examples count as seen too)."""
    stmt = select(ExampleDone.user_id, Example.ext_id).join(Example, Example.id == ExampleDone.example_id)
    stmt = stmt.where(ExampleDone.project_id == project.id)
    if dataset_id is not None:
        stmt = stmt.where(Example.dataset_id == dataset_id)
    out: dict[str, list[str]] = {}
    pairs = list(db_session.execute(stmt))
    names = names_of(db_session, [owner_of(uid) for uid, _ in pairs])
    for uid, ext in pairs:
        out.setdefault(names[owner_of(uid)], []).append(ext)
    return out


def review_set(*, db_session: Session, project: Project, dataset_id: int | None = None) -> FeedbackSet:
    """The reviewers' accepted and edited marks as a FeedbackSet (a rejection keeps nothing)."""
    out = FeedbackSet()
    stmt = select(FeedbackReview, Example.ext_id).outerjoin(Example, Example.id == FeedbackReview.example_id)
    stmt = stmt.where(FeedbackReview.project_id == project.id, FeedbackReview.decision != ReviewDecision.REJECT)
    if dataset_id is not None:
        stmt = stmt.where(or_(FeedbackReview.level == FeedbackLevel.TASK, Example.dataset_id == dataset_id))
    for rv, ext in db_session.execute(stmt.order_by(FeedbackReview.event_id)):
        assert rv.action is not None
        if rv.level is FeedbackLevel.INSTANCE:
            if ext is None or rv.word_index is None:
                continue
            out.instance.append(InstanceFeedback(ext, rv.word_index, rv.action, "review"))
            if rv.word:
                out.words[(ext, rv.word_index)] = rv.word
        else:
            assert rv.word is not None
            out.task.append(TaskFeedback(rv.word, rv.action, rv.label, rv.scope or Scope.ALL, source="review"))
    return out


def consensus_of(*, db_session: Session, project: Project, dataset_id: int | None = None) -> Consensus:
    """The project's feedback by its policy (what a retrain trains on; see the module docs)."""
    ts = team_settings(project)
    people = marks_by_person(db_session=db_session, project=project, dataset_id=dataset_id)
    if ts.policy is Policy.UNION and len(people) <= 1:
        fs = to_feedback_set(db_session=db_session, project=project, dataset_id=dataset_id)
        counts = {name: len(p.instance) + len(p.task) for name, p in people.items()}
        return Consensus(Policy.UNION, None, fs, [], counts)
    seen = seen_by_person(db_session=db_session, project=project, dataset_id=dataset_id)
    seen = {name: ids for name, ids in seen.items() if name in people}
    review = review_set(db_session=db_session, project=project, dataset_id=dataset_id)
    if ts.policy is not Policy.REVIEWED:
        review = None
    out = consensus(people, ts.policy, k=ts.k, review=review, seen=seen)
    return _with_origin(out, people)


def _with_origin(result: Consensus, people: dict[str, FeedbackSet]) -> Consensus:
    """Simulated marks stay named as such in a consensus (the model card never passes them off as
    people's): the entries' source becomes e.g. ``consensus:majority of simulated:rationales:r``."""
    found = {f.source for fs in people.values() for f in [*fs.instance, *fs.task]}
    simulated = sorted(s for s in found if s and s.startswith("simulated"))
    if not simulated:
        return result
    fs = result.feedback

    def tag(src: str | None) -> str:
        return f"{src} of {', '.join(simulated)}" + (" and people's marks" if None in found else "")

    fs.instance = [dataclasses.replace(f, source=tag(f.source)) for f in fs.instance]
    fs.task = [dataclasses.replace(f, source=tag(f.source)) for f in fs.task]
    return result


def agreement_summary(*, db_session: Session, project: Project, dataset_id: int | None = None) -> dict[str, Any]:
    """Token-level agreement (``core.agreement``) of the people's marks on the examples several of them
    saw (the first :data:`MAX_AGREEMENT_EXAMPLES` of them by file id; ``capped`` says so)."""
    people = marks_by_person(db_session=db_session, project=project, dataset_id=dataset_id)
    seen = seen_by_person(db_session=db_session, project=project, dataset_id=dataset_id)
    marks = [annotator_marks(name, fs, seen.get(name)) for name, fs in people.items()]
    count: dict[str, int] = {}
    for a in marks:
        for eid in a.seen:
            count[eid] = count.get(eid, 0) + 1
    shared = sorted(e for e, n in count.items() if n >= 2)
    kept, dropped = shared[:MAX_AGREEMENT_EXAMPLES], set(shared[MAX_AGREEMENT_EXAMPLES:])
    texts: dict[str, str] = {}
    for i in range(0, len(kept), 500):
        stmt = select(Example.ext_id, Example.text).where(
            Example.project_id == project.id, Example.ext_id.in_(kept[i : i + 500])
        )
        if dataset_id is not None:
            stmt = stmt.where(Example.dataset_id == dataset_id)
        texts.update({ext: text for ext, text in db_session.execute(stmt)})
    n_words = {e: len(split_words(t)[0]) for e, t in texts.items()}
    if dropped:
        marks = [
            AnnotatorMarks(a.name, {e: m for e, m in a.marks.items() if e not in dropped}, a.seen - dropped, a.task)
            for a in marks
        ]
    return {**agreement(marks, n_words), "capped": bool(dropped)}


# ------------------------------------------------------------------------------------------ blind mode


def sees_everyone(project: Project, user: User) -> bool:
    """Whether ``user`` sees everyone's marks everywhere: outside blind mode, or as a viewer (who marks
    nothing, so nothing to anchor), reviewer or admin."""
    return not team_settings(project).blind or user.role is not Role.ANNOTATOR


def done_examples(*, db_session: Session, project_id: int, user_id: int, example_ids: Sequence[int]) -> set[int]:
    """Which of ``example_ids`` the user marked done."""
    if not example_ids:
        return set()
    stmt = select(ExampleDone.example_id).where(
        ExampleDone.project_id == project_id, ExampleDone.user_id == user_id, ExampleDone.example_id.in_(example_ids)
    )
    return set(db_session.scalars(stmt))


def mark_done(*, db_session: Session, project: Project, example: Example, user_id: int) -> None:
    """The user is done with the example (idempotent): blind mode now shows them the others' marks."""
    ins = dialect_insert(db_session, ExampleDone.__table__)
    row = {"project_id": project.id, "example_id": example.id, "user_id": user_id}
    db_session.execute(ins.values(**row, created_at=utcnow()).on_conflict_do_nothing())
    db_session.commit()


def visible_to(project: Project, user: User) -> ColumnElement[bool] | None:
    """A ``where`` clause on :class:`Feedback` for what ``user`` may read (None: everything)."""
    if sees_everyone(project, user):
        return None
    done = select(ExampleDone.example_id).where(ExampleDone.project_id == project.id, ExampleDone.user_id == user.id)
    return or_(Feedback.owner == owner_of(user.id), Feedback.example_id.in_(done))


def events_visible_to(project: Project, user: User) -> ColumnElement[bool] | None:
    """The same rule for the event log (an event's owner; reviews show once the example is done)."""
    if sees_everyone(project, user):
        return None
    done = select(ExampleDone.example_id).where(ExampleDone.project_id == project.id, ExampleDone.user_id == user.id)
    return or_(FeedbackEvent.owner == owner_of(user.id), FeedbackEvent.example_id.in_(done))
