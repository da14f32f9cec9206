"""A project: the label space, where the user's model comes from (and its base model), and per-project settings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from xmd.db.base import Base, utcnow


class Project(Base):
    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    labels: Mapped[list[str]] = mapped_column(default=list)
    model_source: Mapped[str] = mapped_column(String(1000))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    #: The model the user fine-tuned the project's model from, and the recipe to fine-tune it again (the
    #: ``deletion_base`` control): ``{"hub_id" | "model_path": str, "recipe": {TrainConfig fields}}``; None
    #: when the project does not know it (:mod:`xmd.projects.paths` checks it, ``base_recipe`` reads it).
    base_model: Mapped[dict[str, Any] | None] = mapped_column(default=None, nullable=True)

    @property
    def num_labels(self) -> int:
        return len(self.labels)
