"""The task-level feedback on each ranked word as one reader may see it (the Words page).

A team's Words page shows what a retrain would do with each word: the project's **consensus** under its
policy (:func:`xmd.feedback.team.consensus_of` draws the same from the same rows), with how many people
chose each action, and apart from it the reader's **own** marks, which are what their buttons toggle and
their reset clears. Showing every row (anyone's *remove* painting the word removed) told a team under
``majority`` that a word was dropped when the retrain would keep it.

In blind mode an annotator gets their own marks only, counts included: a task word belongs to no
example one can mark done, so the others' never show (the rule of :func:`xmd.feedback.team.visible_to`).

Cost: the task rows of the page's words (everyone's, or the reader's own), plus
only where the policy needs them: the page's task-level review decisions (``reviewed``) and the number of
people with feedback (``majority``'s denominator: a skip scan, one index probe per person).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from sqlalchemy import and_, select, text
from sqlalchemy.orm import Session

from xmd.core.consensus import Policy, consensus
from xmd.core.feedback import FeedbackSet
from xmd.core.types import Action, Scope, TaskFeedback
from xmd.feedback import team
from xmd.feedback.models import Feedback, FeedbackLevel, FeedbackReview, ReviewDecision
from xmd.feedback.service import list_feedback, owner_of
from xmd.projects.models import Project
from xmd.users.models import User

Unit = tuple[str, int | None, Scope]
"""What a task mark is on: (word key, gold label or None, scope); one current row per person and unit."""


@dataclass(frozen=True)
class WordEntry:
    """One task-level entry on a word, and how many people chose it (a reviewer's edit may have none)."""

    action: Action
    label: int | None
    scope: Scope
    votes: int


@dataclass
class TaskWords:
    """Word key → what the reader is shown of its task feedback (see the module docs)."""

    shown: Literal["consensus", "own"]
    """``consensus``: ``feedback`` is the project's by its policy; ``own``: blind mode, the reader's."""
    policy: Policy
    k: int | None
    people: int | None
    """People with feedback in the project: the majority's denominator (None under the other policies)."""
    feedback: dict[str, list[WordEntry]] = field(default_factory=dict)
    mine: dict[str, list[WordEntry]] = field(default_factory=dict)
    votes: dict[str, dict[Action, int]] = field(default_factory=dict)
    """People per action on the word, any label or scope (only the reader's own in blind mode)."""


_PEOPLE = text(
    """
    WITH RECURSIVE people(owner) AS (
        SELECT min(owner) FROM feedback WHERE project_id = :p
        UNION ALL
        SELECT (SELECT min(f.owner) FROM feedback f WHERE f.project_id = :p AND f.owner > people.owner)
        FROM people WHERE people.owner IS NOT NULL
    )
    SELECT count(owner) FROM people
    """
)


def count_people(db_session: Session, project_id: int) -> int:
    """How many owners have a current row in the project (whom ``consensus_of`` counts as people).

    A skip scan on the ``(project_id, owner)`` index: one probe per person, the next owner after the last,
    so the Words page's cost grows with the team, not with the project's feedback rows (a ``count(DISTINCT
    owner)`` read them all)."""
    return int(db_session.execute(_PEOPLE, {"p": project_id}).scalar() or 0)


def _task_review(db_session: Session, project_id: int, words: Collection[str] | None) -> FeedbackSet:
    """The reviewers' accepted and edited task-level decisions (on ``words`` only, when given), in the order
    they were made."""
    stmt = select(FeedbackReview).where(
        FeedbackReview.project_id == project_id,
        FeedbackReview.level == FeedbackLevel.TASK,
        FeedbackReview.decision != ReviewDecision.REJECT,
    )
    if words is not None:
        stmt = stmt.where(FeedbackReview.word.in_(words))
    out = FeedbackSet()
    for rv in db_session.scalars(stmt.order_by(FeedbackReview.event_id)):
        if rv.word is not None and rv.action is not None:
            out.task.append(TaskFeedback(rv.word, rv.action, rv.label, rv.scope or Scope.ALL, source="review"))
    return out


def _kept(
    db_session: Session, project: Project, marks: dict[str, dict[Unit, Action]], words: Collection[str] | None
) -> tuple[list[tuple[Unit, Action]], int | None]:
    """The consensus of everyone's task marks under the project's policy, and the majority's head count."""
    ts = team.team_settings(project)
    people = {
        owner: FeedbackSet(task=[TaskFeedback(w, a, lab, s) for (w, lab, s), a in units.items()])
        for owner, units in marks.items()
    }
    n = None
    if ts.policy is Policy.MAJORITY:
        # those with instance marks only are people too: they left the word alone
        n = max(count_people(db_session, project.id), len(people))
        people.update({f"\0silent:{i}": FeedbackSet() for i in range(n - len(people))})
    review = _task_review(db_session, project.id, words) if ts.policy is Policy.REVIEWED else None
    out = consensus(people, ts.policy, k=ts.k, review=review).feedback.task
    return [((f.word, f.label, Scope(f.scope)), Action(f.action)) for f in out], n


def task_words(*, db_session: Session, project: Project, user: User, words: Collection[str] | None = None) -> TaskWords:
    """The task feedback of each word as ``user`` may see it: the consensus (or, blind, their own), their
    own marks, and the head count per action. ``words`` (word keys: a page's) reads only those words' rows,
    so a page costs its own words, not every task word of the project; a word's consensus depends only on
    its own rows (and the project's head count, :func:`count_people`), so it is the same either way."""
    ts = team.team_settings(project)
    where = team.visible_to(project, user)
    if words is not None:
        words = sorted(set(words))  # once, for both reads
        on_page = Feedback.word.in_(words)
        where = on_page if where is None else and_(where, on_page)
    rows = list_feedback(db_session=db_session, project_id=project.id, level=FeedbackLevel.TASK, where=where)
    marks: dict[str, dict[Unit, Action]] = {}
    for fb in rows:
        if fb.word is not None and fb.action is not Action.RESET:
            marks.setdefault(fb.owner, {})[(fb.word, fb.label, fb.scope or Scope.ALL)] = fb.action
    tally: dict[Unit, dict[Action, int]] = {}
    out = TaskWords(shown="own", policy=ts.policy, k=ts.k, people=None)
    for units in marks.values():
        chosen: dict[str, set[Action]] = {}  # this person's actions per word, any label or scope
        for unit, action in units.items():
            counts = tally.setdefault(unit, {})
            counts[action] = counts.get(action, 0) + 1
            chosen.setdefault(unit[0], set()).add(action)
        for word, actions in chosen.items():
            per_word = out.votes.setdefault(word, {})
            for action in actions:
                per_word[action] = per_word.get(action, 0) + 1
    for (word, label, scope), action in marks.get(owner_of(user.id), {}).items():
        out.mine.setdefault(word, []).append(WordEntry(action, label, scope, tally[(word, label, scope)][action]))
    if not team.sees_everyone(project, user):
        out.feedback = out.mine  # only one's own rows were read
        return out
    kept, out.people = _kept(db_session, project, marks, words)
    out.shown = "consensus"
    for (word, label, scope), action in kept:
        votes = tally.get((word, label, scope), {}).get(action, 0)
        out.feedback.setdefault(word, []).append(WordEntry(action, label, scope, votes))
    return out
