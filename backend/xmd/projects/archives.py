"""Unpacking uploaded model archives with bounded disk use.

An archive's headers may lie about sizes, so members are streamed out and counted as they are written:
the total may not exceed ``XMD_MAX_UNPACKED_MB``, and an archive may not unpack to more than
:data:`MAX_RATIO` times its own size (beyond a small allowance for config and vocabulary files, which
compress well). Either limit raises :class:`TooLargeError` (413) as soon as it is crossed; the caller
removes its work folder, so nothing written stays. Members that would land outside the target
(absolute paths, ``..``, links, devices) are refused before anything is written.
"""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path, PurePosixPath
from typing import IO

from xmd.core.types import DataError, TooLargeError

MAX_ARCHIVE_MEMBERS = 10_000
MAX_RATIO = 20
"""Unpacked bytes per archive byte; model weights barely compress (about 1.1), configs about 5."""
RATIO_ALLOWANCE = 16 << 20
"""Unpacked bytes always allowed regardless of the ratio (a tiny archive of JSON files is fine)."""
CHUNK = 1 << 20


def _safe_member(name: str) -> bool:
    p = PurePosixPath(name)
    return bool(name) and not p.is_absolute() and ".." not in p.parts and "\\" not in name and "\x00" not in name


class _Budget:
    """Counts bytes written; raises as soon as a limit is crossed."""

    def __init__(self, archive_bytes: int, max_bytes: int) -> None:
        self.limit = min(max_bytes, max(RATIO_ALLOWANCE, MAX_RATIO * archive_bytes))
        self.max_bytes = max_bytes
        self.written = 0

    def add(self, n: int) -> None:
        self.written += n
        if self.written > self.limit:
            mb = self.max_bytes >> 20
            raise TooLargeError(
                f"the archive unpacks to more than {self.limit >> 20} MB (limits: {mb} MB in all, "
                f"XMD_MAX_UNPACKED_MB, and {MAX_RATIO}x the archive's size); nothing of it was kept"
            )


def _copy(src: IO[bytes], dest: Path, budget: _Budget) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    with dest.open("wb") as out:
        while chunk := src.read(CHUNK):
            budget.add(len(chunk))
            out.write(chunk)


def _zip_members(zf: zipfile.ZipFile) -> Iterator[tuple[str, bool, AbstractContextManager[IO[bytes]] | None]]:
    infos = zf.infolist()
    if len(infos) > MAX_ARCHIVE_MEMBERS or not all(_safe_member(i.filename) for i in infos):
        raise DataError("the archive has unsafe paths (absolute or '..') or too many files")
    for info in infos:
        yield info.filename, info.is_dir(), None if info.is_dir() else zf.open(info)


def _tar_members(tf: tarfile.TarFile) -> Iterator[tuple[str, bool, AbstractContextManager[IO[bytes]] | None]]:
    members = tf.getmembers()
    if len(members) > MAX_ARCHIVE_MEMBERS or not all(
        _safe_member(m.name) and (m.isfile() or m.isdir()) for m in members
    ):
        raise DataError("the archive has unsafe entries (links, absolute or '..' paths) or too many files")
    for m in members:
        f = None if m.isdir() else tf.extractfile(m)
        yield m.name, m.isdir(), f


def extract_model_archive(archive: Path, into: Path, *, max_unpacked_mb: int) -> Path:
    """Extract a .zip or .tar(.gz) holding a ``save_pretrained`` folder within the limits above;
    returns the folder with ``config.json``. On any error what was extracted is removed."""
    into.mkdir(parents=True, exist_ok=True)
    budget = _Budget(archive.stat().st_size, max_unpacked_mb << 20)
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zf:
                _extract(_zip_members(zf), into, budget)
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tf:
                _extract(_tar_members(tf), into, budget)
        else:
            raise DataError("the model archive must be a .zip or .tar/.tar.gz of a save_pretrained folder")
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        shutil.rmtree(into, ignore_errors=True)
        raise DataError(f"could not read the model archive: {type(exc).__name__}") from None
    except BaseException:
        shutil.rmtree(into, ignore_errors=True)
        raise
    configs = sorted(into.rglob("config.json"), key=lambda p: len(p.parts))
    if not configs:
        raise DataError("the archive holds no config.json: upload the folder written by save_pretrained")
    return configs[0].parent


def _extract(
    members: Iterator[tuple[str, bool, AbstractContextManager[IO[bytes]] | None]], into: Path, budget: _Budget
) -> None:
    for name, is_dir, opened in members:
        dest = into / name
        if is_dir or opened is None:
            dest.mkdir(parents=True, exist_ok=True)
            continue
        with opened as src:
            _copy(src, dest, budget)
