"""An index on the feedback's ``(project_id, owner)``: the Words page's majority counts the people with
feedback in a project, and with this index that count probes each person once (a skip scan,
``xmd.feedback.words.count_people``) instead of reading every feedback row of the project.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(op.f("ix_feedback_project_id_owner"), "feedback", ["project_id", "owner"])


def downgrade() -> None:
    op.drop_index(op.f("ix_feedback_project_id_owner"), table_name="feedback")
