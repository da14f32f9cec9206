"""A read whose client went away stops: its running statement is cancelled at once.

Without this, a long search (a regex over a million rows, a word lookup on a huge ranking) runs on
after the client closed the connection: PostgreSQL until ``statement_timeout``, SQLite until the scan
ends, and all that time it holds a pool connection and one of the API's worker threads.

:class:`CancelOnDisconnect` (pure ASGI, outermost) watches each ``GET`` for the ASGI ``http.disconnect``
message while the response is still being made. The request's :class:`Statements` handle travels in a
context variable to the threads that run the route, and the engine's pool events (:func:`watch`)
record which database connections the request has checked out. On a disconnect the handle cancels
them: ``sqlite3.Connection.interrupt()`` on SQLite, a protocol cancel request (``pg_cancel_backend``
of that backend) on PostgreSQL. Any later statement of the request fails at once
(:class:`ClientGone`), so the route's thread is free within moments.

Only reads are cancelled: a write whose client vanished still commits (nothing is ever lost).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import Engine, event
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from xmd.core.types import XMDError

log = logging.getLogger(__name__)
SCOPE_KEY = "xmd.statements"
"""Where the request's :class:`Statements` handle is kept in the ASGI scope (for error handlers)."""
CANCEL_TIMEOUT_S = 2.0
READ_METHODS = ("GET", "HEAD")


class ClientGone(XMDError):
    """The client closed the connection; the request's remaining statements are not run."""


class Statements:
    """The database connections one request holds, and whether its client is gone."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.connections: list[tuple[Any, str]] = []
        self.gone = False
        self.finished = False

    def checked_out(self, dbapi_connection: Any, dialect: str) -> None:
        with self.lock:
            if not self.finished:
                self.connections.append((dbapi_connection, dialect))

    def checked_in(self, dbapi_connection: Any) -> None:
        """Held under the lock while a cancel is in flight: a connection back in the pool (and maybe
        another request's) never receives this request's cancel."""
        with self.lock:
            self.connections = [(c, d) for c, d in self.connections if c is not dbapi_connection]

    def cancel(self) -> int:
        """Interrupt every statement the request is running; returns how many connections were told."""
        with self.lock:
            if self.finished:
                return 0
            self.gone = True
            for conn, dialect in self.connections:
                try:
                    if dialect == "sqlite":
                        conn.interrupt()
                    else:  # psycopg 3: a cancel request on a side connection, waited for (bounded)
                        conn.cancel_safe(timeout=CANCEL_TIMEOUT_S)
                except Exception:  # a connection that is already broken has nothing left to cancel
                    log.debug("cancelling a statement failed", exc_info=True)
            return len(self.connections)

    def finish(self) -> None:
        with self.lock:
            self.finished = True
            self.connections = []


_current: contextvars.ContextVar[Statements | None] = contextvars.ContextVar("xmd_statements", default=None)


def _on_checkin(dbapi_connection: Any, record: Any) -> None:
    handle = record.info.pop(SCOPE_KEY, None)
    if handle is not None:
        handle.checked_in(dbapi_connection)


def _before_execute(_conn: Any, _cursor: Any, _statement: str, *_args: Any) -> None:
    handle = _current.get()
    if handle is not None and handle.gone:
        raise ClientGone("the client closed the connection; the request was stopped")


_watched: weakref.WeakSet[Engine] = weakref.WeakSet()


def watch(engine: Engine) -> None:
    """Let requests cancel the statements they run on ``engine`` (once per engine)."""
    if engine in _watched:
        return
    _watched.add(engine)
    dialect = engine.dialect.name

    def on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        handle = _current.get()
        if handle is not None:
            record.info[SCOPE_KEY] = handle
            handle.checked_out(dbapi_connection, dialect)

    event.listen(engine, "checkout", on_checkout)
    event.listen(engine, "checkin", _on_checkin)
    event.listen(engine, "before_cursor_execute", _before_execute)


_cancellers: list[ThreadPoolExecutor] = []


def _canceller() -> ThreadPoolExecutor:
    """Cancels run on threads of their own: never in the API's thread pool (which may be full of the
    very searches being cancelled) nor on the event loop (a PostgreSQL cancel is a round trip)."""
    if not _cancellers:
        _cancellers.append(ThreadPoolExecutor(max_workers=4, thread_name_prefix="xmd-cancel"))
    return _cancellers[0]


class CancelOnDisconnect:
    """ASGI middleware: a read request's statements are cancelled when its client disconnects."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in READ_METHODS:
            await self.app(scope, receive, send)
            return
        handle = Statements()
        scope[SCOPE_KEY] = handle
        messages: asyncio.Queue[Message] = asyncio.Queue()

        gone: list[bool] = []

        async def pump() -> None:
            """Read the client's side; on a disconnect before the response is done, cancel."""
            while True:
                message = await receive()
                await messages.put(message)
                if message["type"] == "http.disconnect":
                    gone.append(True)
                    if not handle.finished:
                        told = await asyncio.get_running_loop().run_in_executor(_canceller(), handle.cancel)
                        if told:
                            log.info(
                                "%s %s: client gone, %d statement(s) cancelled", scope["method"], scope["path"], told
                            )
                    return

        async def app_receive() -> Message:
            if gone and messages.empty():  # asked again after the disconnect: it stays disconnected
                return {"type": "http.disconnect"}
            return await messages.get()

        async def app_send(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                handle.finish()  # the answer is complete: a disconnect now cancels nothing
            await send(message)

        token = _current.set(handle)
        watcher = asyncio.get_running_loop().create_task(pump(), context=contextvars.Context())
        try:
            await self.app(scope, app_receive, app_send)
        finally:
            _current.reset(token)
            handle.finish()
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher


def is_gone(scope: Scope) -> bool:
    """Whether this request's client went away and its statements were cancelled."""
    handle = scope.get(SCOPE_KEY)
    return isinstance(handle, Statements) and handle.gone
