"""Uploads are copied to disk in chunks and cut off at the configured size, never read whole into memory."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from fastapi import HTTPException, UploadFile

from xmd.config import Settings

CHUNK = 1 << 20


def max_bytes(settings: Settings) -> int:
    return settings.max_upload_mb * (1 << 20)


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
    return Path(tempfile.mkdtemp(prefix="upload-", dir=settings.uploads_dir))
