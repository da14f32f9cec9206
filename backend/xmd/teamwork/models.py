"""Work queues (who labels what next) and the agreement's sufficient statistics.

A :class:`WorkQueue` assigns examples to annotators with an overlap; each assignment is a
:class:`QueueItem` (one person, one example, a ``rank`` in the queue's order and a status). Every status
change is also a :class:`QueueEvent` (append-only): the agreement's cursor over "who saw what".

The agreement is kept incrementally (not a scan per request): per example seen by two or more people,
its contribution (coincidences, pair confusions, Fleiss counts) is an :class:`ExampleAgreement` row;
their sum is the project's :class:`AgreementState`; per word key, :class:`WordAgreement`. A change to
an example subtracts its old row and adds the new one (:mod:`xmd.teamwork.agreement`).
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from xmd.db.base import Base, enum_column, utcnow


class QueueOrder(str, enum.Enum):
    """The order a queue's Next walks (see :data:`xmd.teamwork.queues.RULES` for each rule in words)."""

    SUSPICIOUS = "suspicious"
    UNCERTAIN = "uncertain"
    DISAGREEMENT = "disagreement"
    RANDOM = "random"


class ItemStatus(str, enum.Enum):
    LEFT = "left"
    DONE = "done"
    SKIPPED = "skipped"


class WorkQueue(Base):
    __tablename__ = "work_queues"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    ordering: Mapped[QueueOrder] = mapped_column(enum_column(QueueOrder, "queue_order"))
    seed: Mapped[int] = mapped_column(default=0)
    overlap: Mapped[int] = mapped_column(default=1)
    source: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """What was assigned: ``{"dataset_id": …}``, ``{"slice": …}`` or ``{"words": […]}``."""
    n_examples: Mapped[int] = mapped_column(default=0)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class QueueItem(Base):
    __tablename__ = "queue_items"
    __table_args__ = (
        UniqueConstraint("queue_id", "user_id", "example_id"),
        Index(None, "queue_id", "user_id", "status", "rank"),  # Next: the first left item by rank
        Index(None, "example_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    queue_id: Mapped[int] = mapped_column(ForeignKey("work_queues.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    example_id: Mapped[int] = mapped_column(ForeignKey("examples.id", ondelete="CASCADE"))
    rank: Mapped[int]
    status: Mapped[ItemStatus] = mapped_column(enum_column(ItemStatus, "item_status"), default=ItemStatus.LEFT)
    updated_at: Mapped[datetime | None]


class QueueEvent(Base):
    """One status change of one item (append-only): the audit trail and the agreement's cursor."""

    __tablename__ = "queue_events"
    __table_args__ = (Index(None, "project_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    queue_id: Mapped[int] = mapped_column(ForeignKey("work_queues.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    example_id: Mapped[int] = mapped_column(ForeignKey("examples.id", ondelete="CASCADE"))
    status: Mapped[ItemStatus] = mapped_column(enum_column(ItemStatus, "item_status"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class AgreementState(Base):
    """A project's summed statistics and how far the logs have been read into them."""

    __tablename__ = "agreement_states"

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    last_event_id: Mapped[int] = mapped_column(default=0)
    last_queue_event_id: Mapped[int] = mapped_column(default=0)
    totals: Mapped[dict[str, Any]] = mapped_column(default=dict)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ExampleAgreement(Base):
    """One shared example's contribution (seen by ≥ 2 people), to subtract when it changes."""

    __tablename__ = "agreement_examples"
    __table_args__ = (Index(None, "project_id", "disputed"),)

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    example_id: Mapped[int] = mapped_column(ForeignKey("examples.id", ondelete="CASCADE"), primary_key=True)
    n_raters: Mapped[int]
    disputed: Mapped[int]
    """Tokens someone marked on which the raters did not all agree."""
    stats: Mapped[dict[str, Any]] = mapped_column(default=dict)


class WordAgreement(Base):
    """Per word key, over the shared examples' tokens: counts and the 3×3 coincidence matrix."""

    __tablename__ = "agreement_words"
    __table_args__ = (Index(None, "project_id", "disputed", "marked"),)

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    word: Mapped[str] = mapped_column(String, primary_key=True)
    n_tokens: Mapped[int] = mapped_column(default=0)
    marked: Mapped[int] = mapped_column(default=0)
    unanimous: Mapped[int] = mapped_column(default=0)
    disputed: Mapped[int] = mapped_column(default=0)
    coincidences: Mapped[list[float]] = mapped_column(default=list)
