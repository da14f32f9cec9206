"""A model version can be ``cancelled``: the version a retrain was building when someone cancelled the
retrain (issue 30 §6: a cancelled retrain read "failed" in every list and selector). ``status`` gains
the value in its CHECK constraint and grows to VARCHAR(9); SQLite rebuilds the table (batch mode).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHECK = "ck_model_versions_model_status"
BEFORE = ("ready", "training", "failed")
AFTER = (*BEFORE, "cancelled")


def _allowed(values: Sequence[str]) -> str:
    return "status IN (" + ", ".join(f"'{v}'" for v in values) + ")"


def upgrade() -> None:
    with op.batch_alter_table("model_versions") as batch:
        batch.drop_constraint(op.f(CHECK), type_="check")
        batch.alter_column("status", existing_type=sa.String(8), type_=sa.String(9), existing_nullable=False)
        batch.create_check_constraint(op.f(CHECK), _allowed(AFTER))


def downgrade() -> None:
    op.execute(sa.text("UPDATE model_versions SET status = 'failed' WHERE status = 'cancelled'"))
    with op.batch_alter_table("model_versions") as batch:
        batch.drop_constraint(op.f(CHECK), type_="check")
        batch.alter_column("status", existing_type=sa.String(9), type_=sa.String(8), existing_nullable=False)
        batch.create_check_constraint(op.f(CHECK), _allowed(BEFORE))
