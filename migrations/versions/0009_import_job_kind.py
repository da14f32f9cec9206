"""Jobs of kind ``import``: a large feedback import (rationales aligned over a whole dataset) runs in a
worker instead of inside the request; the kind's CHECK constraint allows the new value.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BEFORE = ("explain", "retrain", "evaluate", "push", "prepare_demo")
AFTER = (*BEFORE, "import")


def _allow(kinds: Sequence[str]) -> None:
    allowed = ", ".join(f"'{k}'" for k in kinds)
    with op.batch_alter_table("jobs") as batch:  # SQLite changes a constraint by copying the table
        batch.drop_constraint(op.f("ck_jobs_job_kind"), type_="check")
        batch.create_check_constraint(op.f("ck_jobs_job_kind"), f"kind IN ({allowed})")


def upgrade() -> None:
    _allow(AFTER)


def downgrade() -> None:
    op.execute("DELETE FROM jobs WHERE kind = 'import'")  # rows the old constraint cannot hold
    _allow(BEFORE)
