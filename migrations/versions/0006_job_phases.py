"""Jobs report phases: the running phase's label and progress, an ETA, and the phase log.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ("phase", "phase_done", "phase_total", "phase_unit", "eta_s", "phases")


def upgrade() -> None:
    op.add_column("jobs", sa.Column("phase", sa.String(200), nullable=True))
    op.add_column("jobs", sa.Column("phase_done", sa.Integer(), nullable=True))
    op.add_column("jobs", sa.Column("phase_total", sa.Integer(), nullable=True))
    op.add_column("jobs", sa.Column("phase_unit", sa.String(20), nullable=True))
    op.add_column("jobs", sa.Column("eta_s", sa.Double(), nullable=True))
    op.add_column("jobs", sa.Column("phases", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:  # SQLite drops a column by copying the table
        for name in reversed(COLUMNS):
            batch.drop_column(name)
