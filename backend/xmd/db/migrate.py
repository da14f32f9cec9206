"""Alembic, driven from Python: the CLI (``xmd db upgrade``), the API at start-up and the tests share it.

The Alembic config is built in code (no ``alembic.ini`` needed at run time); the scripts live in the
repository's ``migrations/`` folder, found relative to this package, which is where an editable
install (``pip install -e .``) leaves them. ``$XMD_MIGRATIONS_DIR`` overrides that for other layouts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, event
from sqlalchemy.engine import URL

from xmd.db.engine import database_url, make_engine
from xmd.db.errors import SchemaNotMigratedError, StoreError

MIGRATIONS_DIR_ENV = "XMD_MIGRATIONS_DIR"
UPGRADE_HINT = "xmd db upgrade"


def migrations_dir() -> Path:
    """The Alembic script folder: ``$XMD_MIGRATIONS_DIR`` or ``<repo>/migrations`` next to ``backend/``."""
    env = os.environ.get(MIGRATIONS_DIR_ENV)
    if env:
        path = Path(env).expanduser().resolve()
    else:
        import xmd

        # backend/xmd/__init__.py -> parents[0] = xmd, [1] = backend, [2] = the repository root
        path = Path(xmd.__file__).resolve().parents[2] / "migrations"
    if not (path / "env.py").is_file():
        raise StoreError(
            f"Alembic migrations not found at {path}; install xmd from its repository (pip install -e .) "
            f"or point ${MIGRATIONS_DIR_ENV} at the migrations/ folder"
        )
    return path


def alembic_config(url: str | URL | None = None) -> Config:
    """Alembic config built in code; the URL travels in ``attributes`` (no ``%`` escaping issues)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    if url is not None:
        cfg.attributes["url"] = database_url(url)
    return cfg


def migration_engine(url: str | URL | None = None) -> Engine:
    """Engine for running migrations: like :func:`make_engine`, plus, on SQLite, transactional DDL
    (a failed migration rolls back whole) and foreign keys off (batch mode copies and drops tables,
    which would otherwise cascade-delete rows)."""
    engine = make_engine(url)
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # we emit BEGIN ourselves, below
            dbapi_connection.execute("PRAGMA foreign_keys=OFF")

        @event.listens_for(engine, "begin")
        def _begin(conn: Any) -> None:
            conn.exec_driver_sql("BEGIN")

    return engine


def _run(url: str | URL | None, fn: Any, *args: Any) -> None:
    engine = migration_engine(url)
    try:
        with engine.begin() as connection:
            cfg = alembic_config(engine.url)
            cfg.attributes["connection"] = connection
            fn(cfg, *args)
    finally:
        engine.dispose()


def upgrade(url: str | URL | None = None, revision: str = "head") -> None:
    """Migrate the database at ``url`` (default: :func:`database_url`) up to ``revision``."""
    _run(url, command.upgrade, revision)


def downgrade(url: str | URL | None, revision: str) -> None:
    """Migrate the database at ``url`` down to ``revision`` (``"base"`` drops every table)."""
    _run(url, command.downgrade, revision)


def head_revisions() -> set[str]:
    """Revisions the code expects (the heads of ``migrations/versions``)."""
    return set(ScriptDirectory.from_config(alembic_config()).get_heads())


def current_revisions(engine: Engine) -> set[str]:
    """Revisions recorded in the database's ``alembic_version`` table (empty if never migrated)."""
    with engine.connect() as conn:
        return set(MigrationContext.configure(conn).get_current_heads())


def check_migrated(engine: Engine) -> None:
    """Raise :class:`SchemaNotMigratedError` naming the fix unless the database is at the head.

    Called at API and worker start-up, so an old schema fails with one clear line instead of an
    "no such column" error deep in the first request.
    """
    heads = head_revisions()
    current = current_revisions(engine)
    if current == heads:
        return
    where = engine.url.render_as_string(hide_password=True)
    if not current:
        raise SchemaNotMigratedError(
            f"database {where} has not been migrated (no Alembic revision recorded); run `{UPGRADE_HINT}`"
        )
    known = {s.revision for s in ScriptDirectory.from_config(alembic_config()).walk_revisions()}
    if not current <= known:
        raise SchemaNotMigratedError(
            f"database {where} is at revision {', '.join(sorted(current))}, which this version of xmd does not "
            f"know (it was migrated by a newer xmd); upgrade xmd, or run `xmd db downgrade` with that newer version"
        )
    raise SchemaNotMigratedError(
        f"database {where} is at revision {', '.join(sorted(current))} but this code needs "
        f"{', '.join(sorted(heads))}; run `{UPGRADE_HINT}`"
    )
