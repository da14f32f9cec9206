"""Job kinds are registered by the domains (``xmd.jobs.kinds``), not listed by the schema: ``jobs.kind``
becomes a plain VARCHAR(40) without its CHECK constraint, so a new kind needs no migration (0008 and
0009 each changed the constraint to add one). The kinds stay checked, by the registry, where a job is
created. SQLite rebuilds the table (batch mode).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KINDS_0009 = ("explain", "retrain", "evaluate", "push", "prepare_demo", "import")
CHECK = "ck_jobs_job_kind"


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_constraint(op.f(CHECK), type_="check")
        batch.alter_column("kind", existing_type=sa.String(12), type_=sa.String(40), existing_nullable=False)


def downgrade() -> None:
    allowed = ", ".join(f"'{k}'" for k in KINDS_0009)
    op.execute(sa.text(f"DELETE FROM jobs WHERE kind NOT IN ({allowed})"))  # rows the old constraint cannot hold
    with op.batch_alter_table("jobs") as batch:
        batch.alter_column("kind", existing_type=sa.String(40), type_=sa.String(12), existing_nullable=False)
        batch.create_check_constraint(op.f(CHECK), f"kind IN ({allowed})")
