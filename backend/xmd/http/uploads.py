"""Uploads are copied to disk in chunks and cut off at the configured size, never read whole into memory."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from fastapi import HTTPException, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from xmd.config import Settings
from xmd.core.data import preview_file
from xmd.core.data_read import SUPPORTED_EXTENSIONS
from xmd.core.types import DataError
from xmd.http.tempfiles import owner_prefix

CHUNK = 1 << 20


def max_bytes(settings: Settings) -> int:
    return settings.max_upload_mb * (1 << 20)


class BodyLimit:
    """ASGI middleware: refuse a body announced larger than the upload limit (plus room for multipart
    framing) before reading any of it; 400 for a malformed Content-Length. Pure ASGI, not
    ``@app.middleware("http")``, whose extra task and streams per request cost about 0.4 ms of CPU on
    every route."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        length = Headers(scope=scope).get("content-length") if scope["type"] == "http" else None
        if length is not None:
            if not length.isdigit():
                answer = JSONResponse({"detail": "invalid Content-Length header"}, status_code=400)
                await answer(scope, receive, send)
                return
            if int(length) > max_bytes(self.settings) + (1 << 20):
                limit = f"{self.settings.max_upload_mb} MB (XMD_MAX_UPLOAD_MB)"
                answer = JSONResponse({"detail": f"the request is larger than the limit of {limit}"}, status_code=413)
                await answer(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def save_upload(upload: UploadFile, dest: Path, settings: Settings) -> Path:
    """Write ``upload`` to ``dest``; 413 (and no file left) when it exceeds ``XMD_MAX_UPLOAD_MB``."""
    limit = max_bytes(settings)
    dest.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    try:
        with dest.open("wb") as out:
            while chunk := await upload.read(CHUNK):
                written += len(chunk)
                if written > limit:
                    raise HTTPException(413, f"the upload is larger than the limit of {settings.max_upload_mb} MB")
                out.write(chunk)
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    if written == 0:
        dest.unlink(missing_ok=True)
        raise HTTPException(422, f"the uploaded file {upload.filename!r} is empty")
    return dest


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def temp_dir(settings: Settings) -> Path:
    """A fresh work folder for one upload, under the uploads directory (removed with :func:`remove`)."""
    settings.uploads_dir.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=owner_prefix("upload"), dir=settings.uploads_dir))


def data_suffix(upload: UploadFile) -> str:
    """The data file's extension, if xmd reads that format; DataError (422) naming the formats otherwise."""
    suffix = Path(upload.filename or "").suffix.lower()
    if suffix not in SUPPORTED_EXTENSIONS:
        raise DataError(
            f"unsupported file type {suffix or '(none)'!r} for {upload.filename!r}; "
            f"upload one of {', '.join(SUPPORTED_EXTENSIONS)}"
        )
    return suffix


def named(exc: DataError, path: Path, shown: str) -> DataError:
    """The error about the server's temporary copy, told about the person's file (by its name)."""
    msg = str(exc).replace(str(path), shown).replace(path.name, shown)
    return type(exc)(f"{shown}: {msg.removeprefix(f'{shown}: ')}")  # a TooLargeError stays a 413


async def preview_upload(upload: UploadFile, settings: Settings, *, n_rows: int) -> dict:
    """Columns, first rows and guessed columns of an uploaded file, kept only while it is read: one
    preview for every form that takes data (a project's dataset, a project started from data)."""
    suffix = data_suffix(upload)
    work = temp_dir(settings)
    path = work / f"data{suffix}"
    try:
        await save_upload(upload, path, settings)
        return await run_in_threadpool(preview_file, path, n_rows=n_rows)
    except DataError as exc:
        raise named(exc, path, upload.filename or path.name) from None
    finally:
        remove(work)
