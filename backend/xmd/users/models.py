"""Users and their API tokens (only a SHA-256 of each secret is stored)."""

from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from xmd.db.base import Base, enum_column, utcnow


class Role(str, enum.Enum):
    """What a user may do: admins manage projects and users, reviewers settle annotators' conflicts,
    annotators give feedback, viewers look."""

    ADMIN = "admin"
    REVIEWER = "reviewer"
    ANNOTATOR = "annotator"
    VIEWER = "viewer"


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    role: Mapped[Role] = mapped_column(enum_column(Role, "role"), default=Role.VIEWER)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    tokens: Mapped[list[ApiToken]] = relationship(
        back_populates="user", cascade="all, delete-orphan", passive_deletes=True
    )


class ApiToken(Base):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
    expires_at: Mapped[datetime | None]
    """None: valid until revoked."""

    user: Mapped[User] = relationship(back_populates="tokens")
