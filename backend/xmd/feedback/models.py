"""Feedback storage: every click is an event (never updated or deleted); ``feedback`` is the current state.

The current row of a key is written in the same transaction as its event and remembers that event
(``last_event_id``), so the current state is always the last event of each key, and the order of the
rows (by ``last_event_id``) is the order in which the feedback was given ("later wins" in the core).
"""

from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from xmd.core.types import Action, Scope
from xmd.db.base import Base, enum_column, utcnow


class FeedbackLevel(str, enum.Enum):
    INSTANCE = "instance"
    TASK = "task"


class FeedbackEvent(Base):
    __tablename__ = "feedback_events"
    __table_args__ = (Index(None, "project_id", "key", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String)
    # Whose mark this is (see Feedback.owner); NULL for events logged before owners existed.
    owner: Mapped[str | None] = mapped_column(String(300))
    level: Mapped[FeedbackLevel] = mapped_column(enum_column(FeedbackLevel, "feedback_level"))
    # SET NULL: the log outlives the example (the word and the key still say what was clicked).
    example_id: Mapped[int | None] = mapped_column(ForeignKey("examples.id", ondelete="SET NULL"), index=True)
    word_index: Mapped[int | None]
    word: Mapped[str | None] = mapped_column(String)
    label: Mapped[int | None]
    scope: Mapped[Scope | None] = mapped_column(enum_column(Scope, "feedback_scope"))
    action: Mapped[Action] = mapped_column(enum_column(Action, "feedback_action"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    # NULL: a person's click; else the import it came from, e.g. "simulated:rationales:<column>".
    source: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Feedback(Base):
    """One person's current feedback on one key: ``i:<example_id>:<word_index>`` or
    ``t:<word key>:<label>:<scope>``. Each ``owner`` has their own row (``u:<user id>`` for a person's
    clicks, another string for a named import), so nobody's mark overwrites another's."""

    __tablename__ = "feedback"
    __table_args__ = (
        UniqueConstraint("project_id", "key", "owner"),
        Index(None, "project_id", "last_event_id"),
        Index(None, "project_id", "owner"),  # count_people's skip scan
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    level: Mapped[FeedbackLevel] = mapped_column(enum_column(FeedbackLevel, "feedback_level"))
    key: Mapped[str] = mapped_column(String)
    owner: Mapped[str] = mapped_column(String(300), default="")
    example_id: Mapped[int | None] = mapped_column(ForeignKey("examples.id", ondelete="CASCADE"), index=True)
    word_index: Mapped[int | None]
    word: Mapped[str | None] = mapped_column(String)
    label: Mapped[int | None]
    scope: Mapped[Scope | None] = mapped_column(enum_column(Scope, "feedback_scope"))
    action: Mapped[Action] = mapped_column(enum_column(Action, "feedback_action"))
    last_event_id: Mapped[int] = mapped_column(ForeignKey("feedback_events.id"))
    source: Mapped[str | None] = mapped_column(String(300))
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ExampleDone(Base):
    """A person said they are done with an example: blind mode shows them the others' marks from then
    on, and the ``majority`` consensus counts them among those who saw it."""

    __tablename__ = "feedback_done"
    __table_args__ = (UniqueConstraint("project_id", "example_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    example_id: Mapped[int] = mapped_column(ForeignKey("examples.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ReviewDecision(str, enum.Enum):
    ACCEPT = "accept"
    REJECT = "reject"
    EDIT = "edit"


class FeedbackReview(Base):
    """A reviewer's decision on one disputed key (the ``reviewed`` consensus is made of these): accept
    or edit keep ``action``; reject keeps nothing. The decision is also an event in the log."""

    __tablename__ = "feedback_reviews"
    __table_args__ = (UniqueConstraint("project_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String)
    level: Mapped[FeedbackLevel] = mapped_column(enum_column(FeedbackLevel, "feedback_level"))
    example_id: Mapped[int | None] = mapped_column(ForeignKey("examples.id", ondelete="CASCADE"), index=True)
    word_index: Mapped[int | None]
    word: Mapped[str | None] = mapped_column(String)
    label: Mapped[int | None]
    scope: Mapped[Scope | None] = mapped_column(enum_column(Scope, "feedback_scope"))
    decision: Mapped[ReviewDecision] = mapped_column(enum_column(ReviewDecision, "review_decision"))
    action: Mapped[Action | None] = mapped_column(enum_column(Action, "feedback_action"))
    reviewer_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("feedback_events.id"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
