"""Tighter suspicion bounds: ``aggregate_states.bound_floor`` (NULL = every label's prior floor is 0,
the prior-independent bound of 0001, which stays valid; the next write to the aggregate tightens it).

Revision ID: 0004
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("aggregate_states", sa.Column("bound_floor", sa.JSON(), nullable=True))


def downgrade() -> None:
    # Bounds computed with a floor > 0 are not valid for every prior: put back the 0001 meaning.
    op.execute(
        "UPDATE word_aggregates SET suspicion_bound = importance"
        " WHERE (model_version_id, method) IN"
        " (SELECT model_version_id, method FROM aggregate_states WHERE bound_floor IS NOT NULL)"
    )
    with op.batch_alter_table("aggregate_states") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("bound_floor")
