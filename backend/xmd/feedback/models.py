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
    level: Mapped[FeedbackLevel] = mapped_column(enum_column(FeedbackLevel, "feedback_level"))
    # SET NULL: the log outlives the example (the word and the key still say what was clicked).
    example_id: Mapped[int | None] = mapped_column(ForeignKey("examples.id", ondelete="SET NULL"), index=True)
    word_index: Mapped[int | None]
    word: Mapped[str | None] = mapped_column(String)
    label: Mapped[int | None]
    scope: Mapped[Scope | None] = mapped_column(enum_column(Scope, "feedback_scope"))
    action: Mapped[Action] = mapped_column(enum_column(Action, "feedback_action"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Feedback(Base):
    """Current feedback of one key: ``i:<example_id>:<word_index>`` or ``t:<word key>:<label>:<scope>``."""

    __tablename__ = "feedback"
    __table_args__ = (UniqueConstraint("project_id", "key"), Index(None, "project_id", "last_event_id"))

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    level: Mapped[FeedbackLevel] = mapped_column(enum_column(FeedbackLevel, "feedback_level"))
    key: Mapped[str] = mapped_column(String)
    example_id: Mapped[int | None] = mapped_column(ForeignKey("examples.id", ondelete="CASCADE"), index=True)
    word_index: Mapped[int | None]
    word: Mapped[str | None] = mapped_column(String)
    label: Mapped[int | None]
    scope: Mapped[Scope | None] = mapped_column(enum_column(Scope, "feedback_scope"))
    action: Mapped[Action] = mapped_column(enum_column(Action, "feedback_action"))
    last_event_id: Mapped[int] = mapped_column(ForeignKey("feedback_events.id"))
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
