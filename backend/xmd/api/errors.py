"""One mapping from xmd's user-facing errors to HTTP statuses, so views never build error responses."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from xmd.core.types import DataError, FeedbackError, ModelLoadError, XMDError
from xmd.db.errors import ConflictError, NotFoundError, SchemaNotMigratedError

STATUS: list[tuple[type[Exception], int]] = [
    (NotFoundError, 404),
    (ConflictError, 409),
    (SchemaNotMigratedError, 503),
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
    """Answer every XMDError with ``{"detail": message}`` and the status of its kind."""

    @app.exception_handler(XMDError)
    async def _xmd_error(_request: Request, exc: XMDError) -> JSONResponse:
        return JSONResponse({"detail": str(exc), "error": type(exc).__name__}, status_code=status_for(exc))
