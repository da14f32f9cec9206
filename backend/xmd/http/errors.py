"""One mapping from xmd's user-facing errors to HTTP statuses, so views never build error responses."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError

from xmd.core.types import DataError, FeedbackError, ModelLoadError, XMDError
from xmd.db.errors import ConflictError, NotFoundError, SchemaNotMigratedError
from xmd.jobs.queue import QueueUnavailableError

STATUS: list[tuple[type[Exception], int]] = [
    (NotFoundError, 404),
    (ConflictError, 409),
    (SchemaNotMigratedError, 503),
    (QueueUnavailableError, 503),
    (DataError, 422),
    (FeedbackError, 422),
    (ModelLoadError, 422),
    (XMDError, 400),
]


def status_for(exc: Exception) -> int:
    for cls, status in STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def install(app: FastAPI) -> None:
    """Answer xmd's errors with ``{"detail": message}`` and the status of their kind.

    Services raise ``ValueError`` for arguments outside their domain (a bad regex, an unknown sort)
    — user input by the time it reaches them — so it maps to 422, as FastAPI's own validation does.
    """

    @app.exception_handler(XMDError)
    async def _xmd_error(_request: Request, exc: XMDError) -> JSONResponse:
        return JSONResponse({"detail": str(exc), "error": type(exc).__name__}, status_code=status_for(exc))

    @app.exception_handler(ValueError)
    async def _value_error(_request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(exc), "error": "ValueError"}, status_code=422)

    @app.exception_handler(IntegrityError)
    async def _integrity(_request: Request, exc: IntegrityError) -> JSONResponse:
        return JSONResponse(
            {
                "detail": "the change conflicts with existing data (a duplicate or a missing reference)",
                "error": "Conflict",
            },
            status_code=409,
        )
