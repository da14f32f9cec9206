"""A project may record its base model — the model the user fine-tuned from, a Hub id or a server path,
and the recipe to fine-tune it again — so the retrain job can run the ``deletion_base`` control.

``projects.base_model`` is JSON (``{"hub_id" | "model_path": ..., "recipe": {...}}``), NULL when unknown.
No data moves: before this revision nothing could write a base model (the job read an unreachable
``settings.base_model``).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("projects", sa.Column("base_model", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("projects") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("base_model")
