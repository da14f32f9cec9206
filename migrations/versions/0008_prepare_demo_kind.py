"""A job kind for ``xmd serve --demo``'s set-up: ``prepare_demo`` (a job of no project).

The kind column is a VARCHAR sized to the longest kind plus a named CHECK of the allowed values
(``xmd.db.base.enum_column``): both change. SQLite rebuilds the table (batch mode).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD = ("explain", "retrain", "evaluate", "push")
NEW = (*OLD, "prepare_demo")
CHECK = "ck_jobs_job_kind"


def _allowed(values: Sequence[str]) -> str:
    return "kind IN ({})".format(", ".join(f"'{v}'" for v in values))


def _set_kinds(values: Sequence[str], old_length: int) -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_constraint(op.f(CHECK), type_="check")
        batch.alter_column(
            "kind",
            existing_type=sa.String(old_length),
            type_=sa.String(max(len(v) for v in values)),
            existing_nullable=False,
        )
        batch.create_check_constraint(op.f(CHECK), _allowed(values))


def upgrade() -> None:
    _set_kinds(NEW, max(len(v) for v in OLD))


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM jobs WHERE kind = 'prepare_demo'"))  # no older code can read them
    _set_kinds(OLD, max(len(v) for v in NEW))
