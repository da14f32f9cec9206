"""Refuse, before any route runs, what no route can use: NUL bytes in the URL or in a JSON body, and
JSON nested too deeply to parse.

PostgreSQL cannot store text with a NUL byte and SQLite can, so one upload succeeded on one database
and failed with a 500 on the other; refusing NUL at the boundary gives both the same clear 422
(:mod:`xmd.db.guard` is the net below for uploaded files and form fields). A JSON body nested
thousands deep made the parser raise ``RecursionError``. A pure ASGI middleware, so the body it
reads is handed on unchanged to the route.
"""

from __future__ import annotations

import json
from collections.abc import Callable, MutableMapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

NUL_MESSAGE = "text must not contain NUL bytes (\\x00)"


def find_nul(value: Any) -> str | None:
    """The JSON path of the first string (value or key) in ``value`` holding a NUL byte, or None."""
    stack: list[tuple[str, Any]] = [("$", value)]
    while stack:
        where, v = stack.pop()
        if isinstance(v, str):
            if "\x00" in v:
                return where
        elif isinstance(v, dict):
            for k, item in v.items():
                if "\x00" in k:
                    return f"{where} (a key)"
                stack.append((f"{where}.{k}", item))
        elif isinstance(v, list):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(v))
    return None


async def _reply(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail, "error": "DataError"}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class InputGuard:
    """ASGI middleware: 422 for a NUL byte in the path, the query or a JSON body, or for JSON nested
    too deeply; 413 for a JSON body over ``max_bytes`` (one sent without a Content-Length)."""

    def __init__(self, app: ASGIApp, max_bytes: Callable[[], int]) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = bytes(scope.get("raw_path") or scope.get("path", "").encode()) + b"?" + scope.get("query_string", b"")
        if b"%00" in raw.lower() or b"\x00" in raw:
            await _reply(send, 422, f"the URL holds a NUL byte (%00): {NUL_MESSAGE}")
            return
        headers = dict(scope.get("headers") or [])
        ctype = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        if scope.get("method") not in ("POST", "PUT", "PATCH") or not ctype.endswith(b"json"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, limit = 0, self.max_bytes()
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left
                await self.app(scope, _replay([message]), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _reply(send, 413, f"the request body is larger than the limit of {limit} bytes")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        problem = _json_problem(body)
        if problem is not None:
            await _reply(send, 422, problem)
            return
        await self.app(scope, _replay([{"type": "http.request", "body": body, "more_body": False}], receive), send)


def _json_problem(body: bytes) -> str | None:
    if b"\\u0000" not in body and body.count(b"[") + body.count(b"{") < 500:
        return None  # the common case: nothing to look for, nothing deep
    try:
        value = json.loads(body)
    except RecursionError:
        return "the JSON body is nested too deeply to read"
    except ValueError:
        return None  # not JSON: the route's own validation says so
    where = find_nul(value)
    return None if where is None else f"{where} holds a NUL byte: {NUL_MESSAGE}"


def _replay(messages: list[MutableMapping[str, Any]], then: Receive | None = None) -> Receive:
    """A ``receive`` that gives ``messages`` first, then defers to ``then`` (e.g. for a disconnect)."""
    pending = list(messages)

    async def receive() -> Message:
        if pending:
            return pending.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive
