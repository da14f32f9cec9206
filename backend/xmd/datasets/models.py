"""Datasets of a project and their examples (texts are stored once; words are recomputed from them)."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from xmd.db.base import Base, enum_column, utcnow


class DatasetRole(str, enum.Enum):
    """``train`` examples are explained and retrained on; ``eval`` sets measure before/after."""

    TRAIN = "train"
    EVAL = "eval"


class Dataset(Base):
    __tablename__ = "datasets"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    role: Mapped[DatasetRole] = mapped_column(enum_column(DatasetRole, "dataset_role"))
    source_name: Mapped[str | None] = mapped_column(String(1000))
    text_column: Mapped[str] = mapped_column(String(200), default="text")
    label_column: Mapped[str | None] = mapped_column(String(200), default="label")
    n_examples: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Example(Base):
    """One text; ``ext_id`` is the id in the user's file (what feedback JSON and the core use)."""

    __tablename__ = "examples"
    __table_args__ = (
        UniqueConstraint("dataset_id", "ext_id"),
        Index(None, "project_id", "label"),
        Index(None, "dataset_id", "id"),  # list a dataset in insertion order (keyset pagination on id)
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"))
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    ext_id: Mapped[str] = mapped_column(String(200))
    position: Mapped[int]
    text: Mapped[str] = mapped_column(Text)
    label: Mapped[int | None]
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
