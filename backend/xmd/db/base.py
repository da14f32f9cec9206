"""Declarative base shared by every domain's ``models.py``.

The naming convention gives every index and constraint a deterministic name, so Alembic can drop or
alter them by name on both SQLite (batch mode) and PostgreSQL, and migrations stay stable.
"""

from __future__ import annotations

import enum
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, Enum, MetaData
from sqlalchemy.orm import DeclarativeBase

from xmd.db.types import UTCDateTime

NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """Timezone-aware now in UTC (every timestamp in the store is UTC)."""
    return datetime.now(timezone.utc)


def enum_column(enum_cls: type[enum.Enum], name: str) -> Enum:
    """A portable enum column: VARCHAR plus a named CHECK constraint, storing the enum *values*.

    Not a native PostgreSQL ENUM type: adding a value later is then a plain constraint change that
    works the same way on SQLite and PostgreSQL.
    """
    return Enum(
        enum_cls,
        name=name,
        native_enum=False,
        create_constraint=True,
        length=max(len(m.value) for m in enum_cls),
        values_callable=lambda cls: [m.value for m in cls],
        validate_strings=True,
    )


class Base(DeclarativeBase):
    """Base class of all tables (``Mapped[...]`` annotations, UTC timestamps, JSON for dicts/lists)."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {  # noqa: RUF012 (SQLAlchemy reads this class attribute)
        datetime: UTCDateTime(),
        dict[str, Any]: JSON(),
        list[str]: JSON(),
        list[int]: JSON(),
        list[float]: JSON(),
    }
