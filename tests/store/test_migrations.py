"""Alembic: empty → head → base → head on both databases; models and migration agree; check_migrated."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
import xmd.tables as models
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from xmd.db import SchemaNotMigratedError, check_migrated, downgrade, make_engine, upgrade
from xmd.db.migrate import head_revisions, migrations_dir

TABLES = {
    "job_secrets",
    "users",
    "api_tokens",
    "projects",
    "datasets",
    "examples",
    "model_versions",
    "explanations",
    "aggregate_states",
    "word_aggregates",
    "word_occurrences",
    "feedback_events",
    "feedback",
    "feedback_done",
    "feedback_reviews",
    "jobs",
    "job_metrics",
    "work_queues",
    "queue_items",
    "queue_events",
    "agreement_states",
    "agreement_examples",
    "agreement_words",
}


def _tables(engine) -> set[str]:
    return set(inspect(engine).get_table_names()) - {"alembic_version"}


def test_migrations_dir_is_found_next_to_the_package():
    d = migrations_dir()
    assert (d / "env.py").is_file() and (d / "versions").is_dir()
    assert head_revisions() == {"0014"}


def test_upgrade_downgrade_upgrade(db_url):
    engine = make_engine(db_url)
    try:
        assert _tables(engine) == set()
        with pytest.raises(SchemaNotMigratedError, match="xmd db upgrade"):
            check_migrated(engine)

        upgrade(db_url)
        assert _tables(engine) == TABLES
        assert {t.name for t in models.metadata.sorted_tables} == TABLES
        check_migrated(engine)  # no error at head

        # The migration creates exactly what the models declare (columns, types, indexes, FKs).
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), models.metadata)
        assert diff == []

        downgrade(db_url, "base")
        assert _tables(engine) == set()
        with pytest.raises(SchemaNotMigratedError, match="xmd db upgrade"):
            check_migrated(engine)

        upgrade(db_url)
        assert _tables(engine) == TABLES
        check_migrated(engine)

        # A database migrated by a newer xmd: the message says so instead of suggesting an upgrade.
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = 'ffffffff'"))
        with pytest.raises(SchemaNotMigratedError, match="newer xmd"):
            check_migrated(engine)
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = :head"), {"head": next(iter(head_revisions()))})
        check_migrated(engine)
    finally:
        engine.dispose()


def _add_job(engine, job_id: str, kind: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO jobs (id, kind, status, progress, params, cancel_requested, created_at) "
                "VALUES (:id, :kind, 'queued', 0, '{}', false, CURRENT_TIMESTAMP)"
            ),
            {"id": job_id, "kind": kind},
        )


def _kinds(engine) -> dict[str, str]:
    with engine.connect() as conn:
        return dict(conn.execute(text("SELECT id, kind FROM jobs")).all())


def test_a_new_job_kind_needs_no_migration(db_url):
    """0010: the kind is a plain string (the domains' registry checks it), no CHECK constraint listing the
    kinds as 0008 and 0009 changed; the jobs that exist keep their kind, and a downgrade drops only the
    rows of kinds the old constraint cannot hold."""
    engine = make_engine(db_url)
    try:
        downgrade(db_url, "base")  # whatever an earlier test left
        upgrade(db_url, "0009")
        _add_job(engine, "old", "prepare_demo")
        with pytest.raises(sa.exc.IntegrityError):  # before: a kind the constraint does not list is refused
            _add_job(engine, "new", "a_new_kind")
        upgrade(db_url)
        _add_job(engine, "new", "a_kind_named_forty_characters_long_ok_40")
        assert _kinds(engine) == {"old": "prepare_demo", "new": "a_kind_named_forty_characters_long_ok_40"}
        downgrade(db_url, "0009")
        assert _kinds(engine) == {"old": "prepare_demo"}
        with pytest.raises(sa.exc.IntegrityError):
            _add_job(engine, "new", "a_new_kind")
    finally:
        downgrade(db_url, "base")
        engine.dispose()
