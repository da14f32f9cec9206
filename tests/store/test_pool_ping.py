"""PostgreSQL's pooled connections are pinged only after a pause, and a dead one is replaced.

``pool_pre_ping`` cost every request one more round trip; ``ping_when_idle`` pings only a connection
that sat unused, which is when a server restart or an idle-connection reaper can have closed it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from dbfixtures import PG_URL, pg_schema_url
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import OperationalError
from xmd.db.engine import make_engine, ping_when_idle


@pytest.fixture
def url() -> Iterator[str]:
    with pg_schema_url() as u:
        yield u


def _pid(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("select pg_backend_pid()")).scalar_one())


def _terminate(pid: int) -> None:
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            assert conn.execute(text("select pg_terminate_backend(:p)"), {"p": pid}).scalar_one()
    finally:
        admin.dispose()


def _counting_pings(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pings: list[int] = []
    real = engine.dialect.do_ping

    def do_ping(dbapi_connection: object) -> bool:
        pings.append(1)
        return real(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", do_ping)
    return pings


def test_a_connection_just_handed_back_is_not_pinged_again(url: str, monkeypatch: pytest.MonkeyPatch):
    engine = make_engine(url)
    try:
        pings = _counting_pings(engine, monkeypatch)
        pids = {_pid(engine) for _ in range(5)}
        assert len(pids) == 1  # the pool reused one connection ...
        assert pings == []  # ... and neither its opening nor the quick reuses pinged it
    finally:
        engine.dispose()


def test_a_connection_killed_while_idle_is_replaced_at_the_next_checkout(url: str, monkeypatch: pytest.MonkeyPatch):
    engine = create_engine(url)
    ping_when_idle(engine, idle_s=0.0)  # every checkout counts as after a pause
    try:
        pings = _counting_pings(engine, monkeypatch)
        first = _pid(engine)
        _terminate(first)  # what a server restart does to every pooled connection
        second = _pid(engine)  # no error: the ping failed and the pool opened a new connection
        assert second != first and len(pings) >= 1
    finally:
        engine.dispose()


def test_without_the_ping_the_killed_connection_fails_its_request(url: str):
    """The control: the same kill, a pool that does not ping (the pause not reached) hands the dead
    connection out, and its request fails."""
    engine = create_engine(url)
    ping_when_idle(engine, idle_s=3600.0)
    try:
        _terminate(_pid(engine))
        with pytest.raises(OperationalError):
            _pid(engine)
        _pid(engine)  # SQLAlchemy replaced the pool's connections after the failure
    finally:
        engine.dispose()
