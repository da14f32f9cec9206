"""Stored explanations and word aggregates.

An :class:`Explanation` keeps only the numbers: the words are recomputed from the example's text with
:func:`xmd.core.words.split_words` (positions do not depend on the tokenizer), and the raw scores are
a little-endian float32 array (4 bytes a word instead of ~20 as JSON).

:class:`WordAggregate` holds, per (model version, method, word key), the running sums of
:class:`xmd.core.aggregate.TaskAggregate`; ``importance`` is the mean share rounded like the core's
sort key, stored so that rankings are index scans; ``suspicion_bound`` is an upper bound of the word's
suspicion that holds for every label prior at or above the state's ``bound_floor`` (see
:mod:`xmd.explanations.aggregates`).
:class:`AggregateState` holds the label totals (the prior behind *skew*) and is the row writers lock
to update one aggregate at a time.
:class:`WordOccurrence` answers "which examples contain this word".
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Double, ForeignKey, Index, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from xmd.db.base import Base, utcnow


class Explanation(Base):
    __tablename__ = "explanations"
    __table_args__ = (
        UniqueConstraint("example_id", "model_version_id", "method"),
        Index(None, "model_version_id", "method", "example_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    example_id: Mapped[int] = mapped_column(ForeignKey("examples.id", ondelete="CASCADE"))
    model_version_id: Mapped[int] = mapped_column(ForeignKey("model_versions.id", ondelete="CASCADE"))
    method: Mapped[str] = mapped_column(String(50))
    target: Mapped[int]
    probs: Mapped[list[float]]
    scores: Mapped[bytes] = mapped_column(LargeBinary)
    n_seen: Mapped[int]
    delta: Mapped[float | None] = mapped_column(Double)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class AggregateState(Base):
    """Per (model version, method): examples aggregated and labelled examples per gold label."""

    __tablename__ = "aggregate_states"

    model_version_id: Mapped[int] = mapped_column(ForeignKey("model_versions.id", ondelete="CASCADE"), primary_key=True)
    method: Mapped[str] = mapped_column(String(50), primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    n_examples: Mapped[int] = mapped_column(default=0)
    label_totals: Mapped[list[int]] = mapped_column(default=list)
    bound_floor: Mapped[list[float] | None] = mapped_column(default=None)
    """Per label, the prior floor the rows' ``suspicion_bound`` was computed with (NULL: all 0)."""
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class WordAggregate(Base):
    __tablename__ = "word_aggregates"
    model_version_id: Mapped[int] = mapped_column(ForeignKey("model_versions.id", ondelete="CASCADE"), primary_key=True)
    method: Mapped[str] = mapped_column(String(50), primary_key=True)
    word: Mapped[str] = mapped_column(String, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    count: Mapped[int]
    sum_share: Mapped[float] = mapped_column(Double)
    sum_signed: Mapped[float] = mapped_column(Double)
    importance: Mapped[float] = mapped_column(Double)
    suspicion_bound: Mapped[float] = mapped_column(Double)
    label_counts: Mapped[list[int]]


# One index per ranking order, matching its ORDER BY exactly (directions included), so that a page of
# the ranking is an index range scan on both databases.
Index(
    "ix_word_aggregates_importance_order",
    WordAggregate.model_version_id,
    WordAggregate.method,
    WordAggregate.importance.desc(),
    WordAggregate.count.desc(),
    WordAggregate.word,
)
Index(
    "ix_word_aggregates_suspicion_bound",
    WordAggregate.model_version_id,
    WordAggregate.method,
    WordAggregate.suspicion_bound.desc(),
)
Index(
    "ix_word_aggregates_count_order",
    WordAggregate.model_version_id,
    WordAggregate.method,
    WordAggregate.count.desc(),
    WordAggregate.importance.desc(),
    WordAggregate.word,
)


class WordOccurrence(Base):
    """Word key → example, for paging the examples of a word (no rowid on SQLite: the key is the row)."""

    __tablename__ = "word_occurrences"
    __table_args__ = (Index(None, "example_id"), {"sqlite_with_rowid": False})

    model_version_id: Mapped[int] = mapped_column(ForeignKey("model_versions.id", ondelete="CASCADE"), primary_key=True)
    method: Mapped[str] = mapped_column(String(50), primary_key=True)
    word: Mapped[str] = mapped_column(String, primary_key=True)
    example_id: Mapped[int] = mapped_column(ForeignKey("examples.id", ondelete="CASCADE"), primary_key=True)
