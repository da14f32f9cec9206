"""Alembic environment for xmd (SQLite and PostgreSQL).

Run through ``xmd db upgrade`` / :func:`xmd.db.migrate.upgrade`, which pass an open connection in
``config.attributes["connection"]``, or by hand with ``alembic upgrade head`` from the repository root
(URL from ``-x url=…``, else ``$XMD_DATABASE_URL``, else the default SQLite file).
"""

from __future__ import annotations

import xmd.tables  # noqa: F401  (registers every table on Base.metadata)
from alembic import context
from sqlalchemy.engine import Connection
from xmd.db.base import Base
from xmd.db.engine import database_url
from xmd.db.migrate import migration_engine

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = config.attributes.get("url") or context.get_x_argument(as_dictionary=True).get("url")
    return database_url(url).render_as_string(hide_password=False)


def _configure(**kwargs: object) -> None:
    context.configure(
        target_metadata=target_metadata,
        compare_type=True,
        # SQLite cannot ALTER most things: batch mode copies the table instead.
        render_as_batch=True,
        **kwargs,
    )


def run_migrations_offline() -> None:
    """Emit SQL to stdout (``alembic upgrade head --sql``) without connecting."""
    _configure(url=_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = migration_engine(_url())
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
