"""Alembic: empty → head → base → head on both databases; models and migration agree; check_migrated."""

from __future__ import annotations

import pytest
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
    "jobs",
    "job_metrics",
}


def _tables(engine) -> set[str]:
    return set(inspect(engine).get_table_names()) - {"alembic_version"}


def test_migrations_dir_is_found_next_to_the_package():
    d = migrations_dir()
    assert (d / "env.py").is_file() and (d / "versions").is_dir()
    assert head_revisions() == {"0009"}


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
