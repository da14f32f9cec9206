"""Team work (issue 32 §2, §3): work queues and the agreement's incrementally kept statistics.

- ``work_queues``: a project's assignment of examples to annotators (order, seed, overlap, source);
- ``queue_items``: one person × one example, its rank and status (left / done / skipped);
- ``queue_events``: every status change, append-only (the agreement's cursor over "who saw what");
- ``agreement_states`` / ``agreement_examples`` / ``agreement_words``: the summed statistics, each shared
  example's contribution, and the per-word sums (:mod:`xmd.teamwork.agreement`).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ORDERS = ("suspicious", "uncertain", "disagreement", "random")
STATUSES = ("left", "done", "skipped")


def _in(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _fk(table: str, column: str, target: str, ondelete: str = "CASCADE") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}"), ondelete=ondelete
    )


def upgrade() -> None:
    op.create_table(
        "work_queues",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("ordering", sa.String(length=12), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("overlap", sa.Integer(), nullable=False),
        sa.Column("source", sa.JSON(), nullable=False),
        sa.Column("n_examples", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(_in("ordering", ORDERS), name=op.f("ck_work_queues_queue_order")),
        _fk("work_queues", "project_id", "projects"),
        _fk("work_queues", "created_by", "users", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_work_queues")),
        sa.UniqueConstraint("project_id", "name", name=op.f("uq_work_queues_project_id_name")),
    )
    op.create_index(op.f("ix_work_queues_project_id"), "work_queues", ["project_id"])
    op.create_table(
        "queue_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("queue_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("example_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=7), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(_in("status", STATUSES), name=op.f("ck_queue_items_item_status")),
        _fk("queue_items", "queue_id", "work_queues"),
        _fk("queue_items", "user_id", "users"),
        _fk("queue_items", "example_id", "examples"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_queue_items")),
        sa.UniqueConstraint(
            "queue_id", "user_id", "example_id", name=op.f("uq_queue_items_queue_id_user_id_example_id")
        ),
    )
    op.create_index(
        op.f("ix_queue_items_queue_id_user_id_status_rank"), "queue_items", ["queue_id", "user_id", "status", "rank"]
    )
    op.create_index(op.f("ix_queue_items_example_id"), "queue_items", ["example_id"])
    op.create_index(op.f("ix_queue_items_user_id"), "queue_items", ["user_id"])
    op.create_table(
        "queue_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("queue_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("example_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=7), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(_in("status", STATUSES), name=op.f("ck_queue_events_item_status")),
        _fk("queue_events", "project_id", "projects"),
        _fk("queue_events", "queue_id", "work_queues"),
        _fk("queue_events", "user_id", "users"),
        _fk("queue_events", "example_id", "examples"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_queue_events")),
    )
    op.create_index(op.f("ix_queue_events_project_id_id"), "queue_events", ["project_id", "id"])
    op.create_index(op.f("ix_queue_events_queue_id"), "queue_events", ["queue_id"])
    op.create_table(
        "agreement_states",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("last_event_id", sa.Integer(), nullable=False),
        sa.Column("last_queue_event_id", sa.Integer(), nullable=False),
        sa.Column("totals", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        _fk("agreement_states", "project_id", "projects"),
        sa.PrimaryKeyConstraint("project_id", name=op.f("pk_agreement_states")),
    )
    op.create_table(
        "agreement_examples",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("example_id", sa.Integer(), nullable=False),
        sa.Column("n_raters", sa.Integer(), nullable=False),
        sa.Column("disputed", sa.Integer(), nullable=False),
        sa.Column("stats", sa.JSON(), nullable=False),
        _fk("agreement_examples", "project_id", "projects"),
        _fk("agreement_examples", "example_id", "examples"),
        sa.PrimaryKeyConstraint("project_id", "example_id", name=op.f("pk_agreement_examples")),
    )
    op.create_index(op.f("ix_agreement_examples_project_id_disputed"), "agreement_examples", ["project_id", "disputed"])
    op.create_table(
        "agreement_words",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("word", sa.String(), nullable=False),
        sa.Column("n_tokens", sa.Integer(), nullable=False),
        sa.Column("marked", sa.Integer(), nullable=False),
        sa.Column("unanimous", sa.Integer(), nullable=False),
        sa.Column("disputed", sa.Integer(), nullable=False),
        sa.Column("coincidences", sa.JSON(), nullable=False),
        _fk("agreement_words", "project_id", "projects"),
        sa.PrimaryKeyConstraint("project_id", "word", name=op.f("pk_agreement_words")),
    )
    op.create_index(
        op.f("ix_agreement_words_project_id_disputed_marked"), "agreement_words", ["project_id", "disputed", "marked"]
    )


def downgrade() -> None:
    for table in (
        "agreement_words",
        "agreement_examples",
        "agreement_states",
        "queue_events",
        "queue_items",
        "work_queues",
    ):
        op.drop_table(table)
