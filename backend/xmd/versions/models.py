"""Model versions form a tree per project: a retrain adds a child, it never rewrites its parent."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from xmd.db.base import Base, enum_column, utcnow


class ModelKind(str, enum.Enum):
    BASE = "base"
    DEBUGGED = "debugged"


class ModelStatus(str, enum.Enum):
    READY = "ready"
    TRAINING = "training"
    FAILED = "failed"
    CANCELLED = "cancelled"
    """The retrain that built it was cancelled (migration 0013): not an error, nothing to look into."""


class ModelVersion(Base):
    __tablename__ = "model_versions"
    __table_args__ = (UniqueConstraint("project_id", "version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    # No ON DELETE: a version with children cannot be deleted alone (lineage stays whole); deleting
    # the project removes them all in one statement.
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("model_versions.id"), index=True)
    version: Mapped[int]
    name: Mapped[str] = mapped_column(String(200))
    path: Mapped[str] = mapped_column(String(1000))
    kind: Mapped[ModelKind] = mapped_column(enum_column(ModelKind, "model_kind"))
    status: Mapped[ModelStatus] = mapped_column(enum_column(ModelStatus, "model_status"))
    metrics: Mapped[dict[str, Any]] = mapped_column(default=dict)
    feedback_snapshot: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), default=None)
    config: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
