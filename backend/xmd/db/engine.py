"""Engines and sessions for SQLite (single machine, no server) and PostgreSQL (shared deployments).

SQLite is configured for a web server plus workers writing to one file: WAL (readers never block the
writer), ``foreign_keys=ON`` (SQLite ignores FKs and cascades otherwise), a ``busy_timeout`` so a writer
waits for the lock instead of failing, and a ``REGEXP`` function for example search.

Transactions on SQLite: the driver runs SELECTs outside a transaction and opens one (``BEGIN``, which
waits on ``busy_timeout``) at the first INSERT/UPDATE/DELETE. Service functions that must read and then
write consistently therefore start with a write (:func:`lock_row`); a deferred transaction that had
read first and then tried to write after another writer committed would fail at once with "database
is locked" (SQLite cannot wait there), and that is the failure this ordering avoids.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import re2
from sqlalchemy import Engine, create_engine, event, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from xmd.db import guard
from xmd.db.errors import StoreError, UnsafePatternError

DATABASE_URL_ENV = "XMD_DATABASE_URL"
DATA_DIR_ENV = "XMD_DATA_DIR"
DEFAULT_DATA_DIR = "xmd-data"
SQLITE_FILE = "xmd.db"
BUSY_TIMEOUT_S = 30.0
POOL_SIZE = 10
MAX_OVERFLOW = 20
"""Connections kept open / allowed beyond that; API threads plus a worker's sessions fit comfortably."""


def data_dir(path: str | Path | None = None) -> Path:
    """Directory for the SQLite file: ``path``, else ``$XMD_DATA_DIR``, else ``./xmd-data``."""
    return Path(path or os.environ.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR).expanduser().resolve()


def database_url(url: str | URL | None = None, *, data_dir_path: str | Path | None = None) -> URL:
    """Resolve the database URL: ``url``, else ``$XMD_DATABASE_URL``, else SQLite in the data dir.

    A relative SQLite path is taken relative to the data dir; ``postgresql://`` and ``postgres://`` use
    the psycopg 3 driver.
    """
    raw = url if url is not None else os.environ.get(DATABASE_URL_ENV)
    if raw is None or raw == "":
        return make_url(f"sqlite:///{data_dir(data_dir_path) / SQLITE_FILE}")
    u = make_url(raw) if isinstance(raw, str) else raw
    backend = u.get_backend_name()
    if backend in ("postgresql", "postgres"):
        if u.drivername in ("postgresql", "postgres"):
            u = u.set(drivername="postgresql+psycopg")
        return u
    if backend == "sqlite":
        db = u.database
        if db and db != ":memory:" and not db.startswith("file:") and not Path(db).is_absolute():
            u = u.set(database=str(data_dir(data_dir_path) / db))
        return u
    raise ValueError(f"unsupported database {backend!r}: use sqlite:/// or postgresql+psycopg://")


def _re2_options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # the reason goes into the 400, not onto stderr
    return options


@functools.lru_cache(maxsize=256)
def compile_regex(pattern: str) -> Any:
    """Compile a user's search pattern with RE2, whose matching is linear in the text.

    Python's ``re`` backtracks: ``^(\\w+\\s?)*!$`` on one 40-letter word runs for hours, and as SQLite's
    ``REGEXP`` callback it holds the GIL, so every request of the process stops with it. RE2 refuses what
    it cannot match in linear time (backreferences, lookarounds, repetition counts above 1000), and that
    refusal is the user's answer: :class:`UnsafePatternError` with RE2's reason.
    """
    try:
        return re2.compile(pattern, _re2_options())
    except re2.error as e:
        reason = e.args[0].decode() if e.args and isinstance(e.args[0], bytes) else str(e)
        raise UnsafePatternError(
            f"the regular expression {pattern!r} cannot be searched: {reason} (searches use RE2 syntax, "
            "which matches in linear time: no backreferences or lookarounds, repetition counts up to 1000)"
        ) from None


def _regexp(pattern: str | None, value: str | None) -> bool | None:
    """SQLite ``value REGEXP pattern`` (SQLite calls ``regexp(pattern, value)``), RE2, patterns cached."""
    if pattern is None or value is None:
        return None
    return compile_regex(pattern).search(value) is not None


def _sqlite_on_connect(dbapi_connection: Any, _record: Any, *, wal: bool) -> None:
    cur = dbapi_connection.cursor()
    try:
        if wal:
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")  # durable across app crashes; the WAL default
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    finally:
        cur.close()
    dbapi_connection.create_function("regexp", 2, _regexp, deterministic=True)


def make_engine(
    url: str | URL | None = None, *, data_dir_path: str | Path | None = None, echo: bool = False, **kwargs: Any
) -> Engine:
    """Engine for ``url`` (see :func:`database_url`), with the SQLite settings of the module docs."""
    u = database_url(url, data_dir_path=data_dir_path)
    if u.get_backend_name() == "sqlite":
        memory = u.database in (None, "", ":memory:")
        if not memory and not str(u.database).startswith("file:"):
            Path(str(u.database)).parent.mkdir(parents=True, exist_ok=True)
        connect_args = {"timeout": BUSY_TIMEOUT_S, "check_same_thread": False, **kwargs.pop("connect_args", {})}
        if memory:
            # One shared connection, or every session would see its own empty database.
            kwargs.setdefault("poolclass", StaticPool)
        else:
            kwargs.setdefault("pool_size", POOL_SIZE)
            kwargs.setdefault("max_overflow", MAX_OVERFLOW)
        engine = create_engine(u, echo=echo, connect_args=connect_args, **kwargs)
        event.listen(engine, "connect", functools.partial(_sqlite_on_connect, wal=not memory))
        guard.install(engine)
        return engine
    kwargs.setdefault("pool_size", POOL_SIZE)
    kwargs.setdefault("max_overflow", MAX_OVERFLOW)
    engine = create_engine(u, echo=echo, **kwargs)
    if not kwargs.get("pool_pre_ping"):
        ping_when_idle(engine)
    guard.install(engine)
    return engine


PING_AFTER_IDLE_S = 2.0
"""A pooled PostgreSQL connection that sat unused this long is pinged before it is handed out."""
_IDLE_SINCE = "xmd_idle_since"


def ping_when_idle(engine: Engine, idle_s: float = PING_AFTER_IDLE_S) -> None:
    """Ping a pooled connection at checkout only if it sat idle for ``idle_s``, and replace it if the
    server is gone.

    ``pool_pre_ping`` pings at every checkout: one more round trip for every request (a feedback click
    made eight), though a connection handed back a moment ago was alive then. A server restart is
    noticed the same way after any pause; a connection that dies while in use fails its request as it
    would with pre-ping, and SQLAlchemy then replaces every connection of the pool older than it.
    Registered before any other checkout listener, so those only ever see a live connection."""

    def idle_from_now(_dbapi_connection: Any, record: Any) -> None:  # handed back, or just opened (alive)
        record.info[_IDLE_SINCE] = time.monotonic()

    def on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get(_IDLE_SINCE)
        if since is not None and time.monotonic() - since < idle_s:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:  # any failure of the ping: the pool retries with a new connection
            record.info.pop(_IDLE_SINCE, None)
            raise DisconnectionError(f"a pooled connection failed its ping: {type(exc).__name__}") from exc

    event.listen(engine, "connect", idle_from_now)
    event.listen(engine, "checkin", idle_from_now)
    event.listen(engine, "checkout", on_checkout)


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    """Session factory; objects stay readable after commit (services commit, views serialise after)."""
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=True)


def dialect_insert(db_session: Session, table: Any) -> Any:
    """``INSERT`` with ``on_conflict_do_update/nothing`` for the session's database."""
    name = db_session.get_bind().dialect.name
    if name == "postgresql":
        return postgresql.insert(table)
    if name == "sqlite":
        return sqlite.insert(table)
    raise StoreError(f"xmd's store supports SQLite and PostgreSQL; {name!r} is not one of them")


def is_sqlite(db_session: Session) -> bool:
    return db_session.get_bind().dialect.name == "sqlite"


def lock_row(db_session: Session, entity: Any, *where: Any) -> None:
    """Serialise writers on one row until the transaction ends, without blocking inserts of children.

    PostgreSQL: ``SELECT … FOR NO KEY UPDATE`` (rows referencing this one can still be inserted).
    SQLite: a no-op UPDATE of the row, which opens the write transaction and so takes the database
    write lock (waiting on ``busy_timeout``) before anything is read.
    """
    table = entity.__table__
    if is_sqlite(db_session):
        pk = next(iter(table.primary_key.columns))
        db_session.execute(update(table).where(*where).values({pk.name: pk}))
    else:
        db_session.execute(select(*table.primary_key.columns).where(*where).with_for_update(key_share=True)).all()


@contextmanager
def write_scope(db_session: Session, commit: bool = True) -> Iterator[None]:
    """End a service function's writes: commit (or only flush, when the caller owns the transaction),
    and on an error roll back what the function wrote if it owns the transaction."""
    try:
        yield
    except BaseException:
        if commit:
            db_session.rollback()
        raise
    if commit:
        db_session.commit()
    else:
        db_session.flush()


ANALYZE_FIRST = 500
ANALYZE_FACTOR = 4


def grew_past_threshold(before: int, after: int) -> bool:
    """Whether a table grew across one of 500, 2000, 8000, … rows (x4 each): the moments to refresh stats."""
    t = ANALYZE_FIRST
    while t <= after:
        if before < t:
            return True
        t *= ANALYZE_FACTOR
    return False


def analyze(db_session: Session, *tables: str) -> None:
    """PostgreSQL: refresh planner statistics of ``tables`` (no-op on SQLite).

    A table filled in one go has no statistics until autovacuum gets to it, and without them the
    planner may answer a primary-key lookup by scanning a ranking index (every row of a model
    version, per lookup): measured, 1000-example explanation batches went from 1.3 s to 8 s and
    growing. Service functions call this when a bulk write has made a table several times bigger.
    """
    if is_sqlite(db_session):
        return
    for table in tables:
        db_session.execute(text(f"ANALYZE {db_session.get_bind().dialect.identifier_preparer.quote(table)}"))
