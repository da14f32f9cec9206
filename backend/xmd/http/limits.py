"""Bounds on what one request may cost, so no user can stall the service for the others.

- A budget on every statement of the API's engine: a query that runs past ``XMD_STATEMENT_TIMEOUT_MS``
  is stopped, frees its pool connection and is answered 408 naming the budget. PostgreSQL: its
  ``statement_timeout``. SQLite: a progress handler that interrupts the statement at the budget (a regex
  search over 109k rows ran 19.5 s on SQLite while PostgreSQL's stopped at its budget).
- Regex searches per user at once (``XMD_REGEX_SEARCHES_PER_USER``): more get 429, so one user cannot
  hold the connection pool with parallel expensive scans.
- Pool exhaustion and an unreachable or busy database answer 503 with a reason, never a bare 500.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from sqlalchemy import Engine, event
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from xmd.http import cancel
from xmd.http.deps import current_user
from xmd.users.models import User

log = logging.getLogger(__name__)
QUERY_CANCELED = "57014"
"""PostgreSQL's SQLSTATE for a statement cancelled by ``statement_timeout`` (or a cancel request)."""
_TIMEOUT_KEY = "xmd_statement_timeout_ms"


class _StatementTimeout:
    """Pool ``checkout`` listener: sets the timeout once per physical connection (tracked in its info)."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self, dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if record.info.get(_TIMEOUT_KEY) == self.ms:
            return
        cur = dbapi_connection.cursor()
        try:
            cur.execute(f"SET statement_timeout = {int(self.ms)}")
        finally:
            cur.close()
        dbapi_connection.commit()  # a plain SET in a rolled-back transaction would be undone
        record.info[_TIMEOUT_KEY] = self.ms


_listeners: weakref.WeakKeyDictionary[Engine, _StatementTimeout] = weakref.WeakKeyDictionary()


SQLITE_CHECK_EVERY = 1000
"""SQLite virtual-machine steps between two looks at the clock (a few microseconds each)."""
_BUDGET_KEY = "xmd_statement_budget"


class _SqliteBudget:
    """One SQLite connection's budget: the deadline of its running statement, checked by a progress
    handler that returns 1 (interrupt) once the deadline has passed."""

    def __init__(self) -> None:
        self.deadline: float | None = None

    def __call__(self) -> int:
        return 1 if self.deadline is not None and time.monotonic() > self.deadline else 0


class _SqliteTimeout:
    """Engine listeners: a progress handler per physical connection, and a deadline per statement (kept
    until the next statement or until the connection goes back to the pool, since rows are stepped
    through while they are fetched)."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def checkout(self, dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        budget = record.info.get(_BUDGET_KEY)
        if budget is None:
            budget = record.info[_BUDGET_KEY] = _SqliteBudget()
            dbapi_connection.set_progress_handler(budget, SQLITE_CHECK_EVERY)
        budget.deadline = None

    def checkin(self, _dbapi_connection: Any, record: Any) -> None:
        budget = record.info.get(_BUDGET_KEY)
        if budget is not None:
            budget.deadline = None

    def before_execute(self, conn: Any, *_: Any) -> None:
        budget = conn.connection.info.get(_BUDGET_KEY)
        if budget is not None:
            budget.deadline = time.monotonic() + self.ms / 1000 if self.ms > 0 else None


_sqlite_listeners: weakref.WeakKeyDictionary[Engine, _SqliteTimeout] = weakref.WeakKeyDictionary()


def ran_out_of_budget(exc: OperationalError) -> bool:
    """Whether ``exc`` is a statement stopped at its budget: PostgreSQL's cancel, or SQLite's interrupt
    (the only other interrupt, a client gone, is told apart before by :func:`xmd.http.cancel.is_gone`)."""
    return getattr(exc.orig, "sqlstate", None) == QUERY_CANCELED or str(exc.orig) == "interrupted"


def bound_statements(engine: Engine, timeout_ms: int) -> None:
    """Stop any statement of ``engine`` running longer than ``timeout_ms`` (0 = unbounded).

    Only the API's engine gets this: workers run long bulk statements on their own engines.
    """
    if engine.dialect.name == "sqlite":
        sqlite_listener = _sqlite_listeners.get(engine)
        if sqlite_listener is None:
            sqlite_listener = _sqlite_listeners[engine] = _SqliteTimeout(timeout_ms)
            event.listen(engine, "checkout", sqlite_listener.checkout)
            event.listen(engine, "checkin", sqlite_listener.checkin)
            event.listen(engine, "before_cursor_execute", sqlite_listener.before_execute)
        sqlite_listener.ms = timeout_ms
        return
    if engine.dialect.name != "postgresql":
        return
    listener = _listeners.get(engine)
    if listener is None:
        listener = _listeners[engine] = _StatementTimeout(timeout_ms)
        event.listen(engine, "checkout", listener)
    listener.ms = timeout_ms


class _Slots:
    """Per-user counters of running searches (one process; each API process bounds its own)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: dict[int, int] = {}

    def acquire(self, user_id: int, limit: int) -> bool:
        with self.lock:
            if self.running.get(user_id, 0) >= limit:
                return False
            self.running[user_id] = self.running.get(user_id, 0) + 1
            return True

    def release(self, user_id: int) -> None:
        with self.lock:
            left = self.running.get(user_id, 0) - 1
            if left > 0:
                self.running[user_id] = left
            else:
                self.running.pop(user_id, None)


def regex_search_slot(request: Request, user: Annotated[User, Depends(current_user)]) -> Iterator[None]:
    """Route dependency: a slot among the user's concurrent regex searches, or 429 when all are taken."""
    if not request.query_params.get("regex"):
        yield
        return
    slots: _Slots = request.app.state.regex_slots
    limit = request.app.state.settings.regex_searches_per_user
    if not slots.acquire(user.id, limit):
        raise HTTPException(
            429,
            f"you already run {limit} regex searches (XMD_REGEX_SEARCHES_PER_USER); wait for one to finish",
            headers={"Retry-After": "1"},
        )
    try:
        yield
    finally:
        slots.release(user.id)


RegexSearchSlot = Annotated[None, Depends(regex_search_slot)]


def install(app: FastAPI) -> None:
    """Per-app state for the limits, and 503 answers for cancelled statements and an exhausted pool."""
    app.state.regex_slots = _Slots()

    @app.exception_handler(OperationalError)
    async def _operational(request: Request, exc: OperationalError) -> JSONResponse:
        if cancel.is_gone(request.scope):  # cancelled because the client left (xmd.http.cancel)
            return JSONResponse({"detail": "the client closed the connection", "error": "ClientGone"}, 499)
        if ran_out_of_budget(exc):
            ms = request.app.state.settings.statement_timeout_ms
            detail = (
                f"the query ran longer than its budget of {ms} ms (XMD_STATEMENT_TIMEOUT_MS) and was "
                "stopped; narrow the search (a plainer pattern, or a label or dataset filter)"
            )
            return JSONResponse({"detail": detail, "error": "QueryTimeout"}, status_code=408)
        log.warning("database error on %s %s: %s", request.method, request.url.path, type(exc.orig).__name__)
        return JSONResponse(
            {"detail": "the database is unavailable or busy; try again", "error": "DatabaseUnavailable"},
            status_code=503,
            headers={"Retry-After": "5"},
        )

    @app.exception_handler(PoolTimeoutError)
    async def _pool(_request: Request, _exc: PoolTimeoutError) -> JSONResponse:
        return JSONResponse(
            {"detail": "the server is busy (no free database connection); try again", "error": "Busy"},
            status_code=503,
            headers={"Retry-After": "2"},
        )
