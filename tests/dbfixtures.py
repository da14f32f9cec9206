"""Database fixtures (store, API and worker tests): every module runs once on SQLite (a temp file) and
once on PostgreSQL.

PostgreSQL isolation: each module gets a fresh schema in the ``test`` database (selected through the
connection's ``search_path``) that is dropped afterwards, so nothing is left behind in ``test``.
Each module migrates its database once with Alembic; after each test every table is emptied.
Set ``XMD_TEST_PG_URL`` to use another server. An unreachable server is a test *failure*, never a skip
(``.ci/run`` starts PostgreSQL when it is down); without PostgreSQL, run ``pytest tests/unit`` instead.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import Engine, create_engine, literal, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

PG_URL = os.environ.get("XMD_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _pg_error() -> str | None:
    try:
        engine = create_engine(PG_URL, connect_args={"connect_timeout": 3})
        with engine.connect() as conn:
            conn.execute(text("select 1"))
        engine.dispose()
    except Exception as e:  # any failure to connect means "no PostgreSQL here"
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return None


_PG_ERROR: list[str | None] = []


def pg_error() -> str | None:
    if not _PG_ERROR:
        _PG_ERROR.append(_pg_error())
    return _PG_ERROR[0]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of an empty database for this module (SQLite file, or a fresh PostgreSQL schema)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('store') / 'xmd.db'}"
        return
    with pg_schema_url() as url:
        yield url


@contextmanager
def pg_schema_url() -> Iterator[str]:
    """URL of a fresh PostgreSQL schema in ``test``, dropped on exit (a failure when no server answers)."""
    err = pg_error()
    if err is not None:
        pytest.fail(f"PostgreSQL at {PG_URL} is required but not reachable: {err} (.ci/run starts it)")
    schema = f"xmd_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        # A commit need not wait for the WAL on disk here (7.8 ms a commit against 0.4 ms): the tests kill
        # workers and servers, never PostgreSQL, so nothing they check depends on it.
        options = f"-csearch_path={schema} -csynchronous_commit=off"
        url = make_url(PG_URL).update_query_dict({"options": options})
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(scope="module")
def engine(db_url: str) -> Iterator[Engine]:
    """Engine on this module's database, migrated to head."""
    from xmd.db import make_engine, upgrade

    upgrade(db_url)
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture(scope="module")
def session_factory(engine: Engine) -> sessionmaker[Session]:
    from xmd.db import make_session_factory

    return make_session_factory(engine)


BIG_TABLE = 5000
"""Rows past which the PostgreSQL clean-up truncates instead of deleting."""


def _empty_all_tables(engine: Engine) -> None:
    """Every row deleted (children first) and, on PostgreSQL, every id sequence restarted, as a fresh
    database has them. On PostgreSQL TRUNCATE took 600 ms a test and these deletes 3 ms, but deleting a
    bulk test's 100,000 rows checks each against the tables that reference it: a table that big is
    truncated instead."""
    import xmd.tables as models

    tables = list(reversed(models.metadata.sorted_tables))
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SET LOCAL statement_timeout = 0"))  # the app's budget is for requests
            past = [select(literal(1)).select_from(t).offset(BIG_TABLE).limit(1) for t in tables]
            if any(conn.execute(q).first() for q in past):
                conn.execute(text(f"TRUNCATE {', '.join(t.name for t in tables)} RESTART IDENTITY CASCADE"))
                return
        for t in tables:
            conn.execute(t.delete())
        if engine.dialect.name == "postgresql":
            sequences = conn.execute(
                text("SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema()")
            ).scalars()
            for name in sequences:
                conn.execute(text(f'ALTER SEQUENCE "{name}" RESTART'))


@pytest.fixture()
def db(session_factory: sessionmaker[Session], engine: Engine) -> Iterator[Session]:
    """A session on the migrated database; every table is emptied after the test."""
    session = session_factory()
    try:
        yield session
    finally:
        session.rollback()
        session.close()
        _empty_all_tables(engine)


@pytest.fixture()
def dialect(engine: Engine) -> str:
    return engine.dialect.name
