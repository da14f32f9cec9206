"""Worker tests: real ``celery worker`` processes on a real broker and database.

Each stack is module-scoped and runs twice: the embedded default (kombu's SQLAlchemy transport on
SQLite, SQLite database) and production's pair (Redis at 127.0.0.1:6379, PostgreSQL at 127.0.0.1:5432).
Redis or PostgreSQL being unreachable is a failure, never a skip.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from dbfixtures import db_url
from workerstack import REDIS_URL, Stack

__all__ = ["db_url"]


def redis_error() -> str | None:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except Exception as e:  # any failure means "no Redis here"
        return f"{type(e).__name__}: {e}"
    return None


@pytest.fixture(scope="module")
def stack(db_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """SQLite + embedded broker, or PostgreSQL + Redis; workers are stopped at the end of the module."""
    broker = None
    if db_url.startswith("postgresql"):
        err = redis_error()
        if err is not None:
            pytest.fail(f"Redis at {REDIS_URL} is required but not reachable: {err} (.ci/run starts it)")
        broker = REDIS_URL
    st = Stack.create(tmp_path_factory.mktemp("stack"), database_url=db_url, broker_url=broker)
    try:
        yield st
    finally:
        # the module's tests are over: no warm shutdown to wait for (an idle worker takes 3-6 s to stop)
        st.stop_all(grace=0)
