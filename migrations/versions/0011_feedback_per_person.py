"""Team annotation (issue 32): each person's feedback is their own, a reviewer settles conflicts.

- ``feedback.owner`` and ``feedback_events.owner`` (``u:<user id>`` for a person's clicks, another string for a named import); the
  current row is unique per (project, key, owner) instead of per (project, key). Existing rows belong
  to the user who last wrote them (``updated_by``), else to their import's ``source``.
- ``feedback_done``: who finished which example (blind mode; "saw it" for the majority consensus).
- ``feedback_reviews``: a reviewer's accept / reject / edit per key.
- ``users.role`` admits ``reviewer`` (a CHECK constraint, rebuilt; VARCHAR(9) already fits it).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ROLES_0010 = ("admin", "annotator", "viewer")
ROLES = ("admin", "reviewer", "annotator", "viewer")
ACTIONS = ("add", "remove", "reset")
SCOPES = ("all", "correct", "incorrect")
LEVELS = ("instance", "task")
DECISIONS = ("accept", "reject", "edit")


def _in(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def upgrade() -> None:
    op.add_column("feedback_events", sa.Column("owner", sa.String(length=300), nullable=True))
    op.execute(
        sa.text(
            "UPDATE feedback_events SET owner = CASE WHEN user_id IS NOT NULL THEN 'u:' || CAST(user_id AS VARCHAR) "
            "ELSE COALESCE(source, '') END"
        )
    )
    with op.batch_alter_table("feedback") as batch:
        batch.add_column(sa.Column("owner", sa.String(length=300), nullable=False, server_default=""))
    op.execute(
        sa.text(
            "UPDATE feedback SET owner = CASE WHEN updated_by IS NOT NULL THEN 'u:' || CAST(updated_by AS VARCHAR) "
            "ELSE COALESCE(source, '') END"
        )
    )
    with op.batch_alter_table("feedback") as batch:
        batch.alter_column("owner", server_default=None, existing_type=sa.String(length=300), existing_nullable=False)
        batch.drop_constraint(op.f("uq_feedback_project_id_key"), type_="unique")
        batch.create_unique_constraint(op.f("uq_feedback_project_id_key_owner"), ["project_id", "key", "owner"])
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint(op.f("ck_users_role"), type_="check")
        batch.create_check_constraint(op.f("ck_users_role"), _in("role", ROLES))

    op.create_table(
        "feedback_done",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("example_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"], ["projects.id"], name=op.f("fk_feedback_done_project_id_projects"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["example_id"], ["examples.id"], name=op.f("fk_feedback_done_example_id_examples"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_feedback_done_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_feedback_done")),
        sa.UniqueConstraint(
            "project_id", "example_id", "user_id", name=op.f("uq_feedback_done_project_id_example_id_user_id")
        ),
    )
    op.create_index(op.f("ix_feedback_done_example_id"), "feedback_done", ["example_id"])
    op.create_index(op.f("ix_feedback_done_user_id"), "feedback_done", ["user_id"])

    op.create_table(
        "feedback_reviews",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("level", sa.String(length=8), nullable=False),
        sa.Column("example_id", sa.Integer(), nullable=True),
        sa.Column("word_index", sa.Integer(), nullable=True),
        sa.Column("word", sa.String(), nullable=True),
        sa.Column("label", sa.Integer(), nullable=True),
        sa.Column("scope", sa.String(length=9), nullable=True),
        sa.Column("decision", sa.String(length=6), nullable=False),
        sa.Column("action", sa.String(length=6), nullable=True),
        sa.Column("reviewer_id", sa.Integer(), nullable=True),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"], ["projects.id"], name=op.f("fk_feedback_reviews_project_id_projects"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["example_id"], ["examples.id"], name=op.f("fk_feedback_reviews_example_id_examples"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["reviewer_id"], ["users.id"], name=op.f("fk_feedback_reviews_reviewer_id_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["event_id"], ["feedback_events.id"], name=op.f("fk_feedback_reviews_event_id_feedback_events")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_feedback_reviews")),
        sa.UniqueConstraint("project_id", "key", name=op.f("uq_feedback_reviews_project_id_key")),
        sa.CheckConstraint(_in("level", LEVELS), name=op.f("ck_feedback_reviews_feedback_level")),
        sa.CheckConstraint(_in("scope", SCOPES), name=op.f("ck_feedback_reviews_feedback_scope")),
        sa.CheckConstraint(_in("decision", DECISIONS), name=op.f("ck_feedback_reviews_review_decision")),
        sa.CheckConstraint(_in("action", ACTIONS), name=op.f("ck_feedback_reviews_feedback_action")),
    )
    op.create_index(op.f("ix_feedback_reviews_example_id"), "feedback_reviews", ["example_id"])
    op.create_index(op.f("ix_feedback_reviews_reviewer_id"), "feedback_reviews", ["reviewer_id"])


def downgrade() -> None:
    op.drop_table("feedback_reviews")
    op.drop_table("feedback_done")
    op.execute(
        sa.text(f"UPDATE users SET role = 'annotator' WHERE role NOT IN ({', '.join(repr(r) for r in ROLES_0010)})")
    )
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint(op.f("ck_users_role"), type_="check")
        batch.create_check_constraint(op.f("ck_users_role"), _in("role", ROLES_0010))
    # One row per key again: keep each key's latest row (the state the single shared row would have had).
    op.execute(
        sa.text(
            "DELETE FROM feedback WHERE id NOT IN (SELECT f.id FROM feedback f WHERE f.last_event_id = "
            "(SELECT MAX(g.last_event_id) FROM feedback g WHERE g.project_id = f.project_id AND g.key = f.key))"
        )
    )
    with op.batch_alter_table("feedback") as batch:
        batch.drop_constraint(op.f("uq_feedback_project_id_key_owner"), type_="unique")
        batch.create_unique_constraint(op.f("uq_feedback_project_id_key"), ["project_id", "key"])
        batch.drop_column("owner")
    with op.batch_alter_table("feedback_events") as batch:
        batch.drop_column("owner")
