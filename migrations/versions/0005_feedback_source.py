"""Feedback carries where it came from: ``feedback.source`` and ``feedback_events.source``
(NULL = a person's click; ``simulated:rationales:<column>``, ``simulated:words:<file>`` for imports
made in evaluation mode), so simulated and human feedback are never confused.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("feedback_events", sa.Column("source", sa.String(length=300), nullable=True))
    op.add_column("feedback", sa.Column("source", sa.String(length=300), nullable=True))


def downgrade() -> None:
    for table in ("feedback", "feedback_events"):
        with op.batch_alter_table(table) as batch:  # SQLite drops a column by copying the table
            batch.drop_column("source")
