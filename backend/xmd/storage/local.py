"""LocalStore: versions as folders under one root (``<root>/p3/v2``), the layout xmd has always used.

The default, and enough for one machine (or several sharing one network volume). Writes go to a hidden
staging folder beside the target and appear by one ``rename``, so a reader sees a whole version or
none; ``rename`` onto a non-empty folder fails, so a version is never overwritten even by a racing
writer.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import uuid
from contextlib import AbstractContextManager
from pathlib import Path
from typing import BinaryIO, cast

from xmd.storage.base import (
    MAX_SEGMENTS,
    StorageError,
    StoredFile,
    VersionExistsError,
    VersionNotFoundError,
    VersionStore,
    check_key,
    check_prefix,
    check_relpath,
    scan_dir,
)

log = logging.getLogger(__name__)
_COPY_CHUNK = 1 << 20


def _is_version(path: Path) -> bool:
    """A folder is a version when it holds a file directly (``config.json`` and friends); project
    folders hold only version folders, and hidden staging folders are never versions."""
    try:
        return path.is_dir() and any(e.is_file() and not e.name.startswith(".") for e in os.scandir(path))
    except OSError:
        return False


class LocalStore(VersionStore):
    """Versions in a local (or network-mounted) folder; ``materialise`` is the folder itself."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).expanduser().resolve()
        self.url = self.root.as_uri()

    def path_of(self, key: str) -> Path:
        """The folder version ``key`` has (or would have) in this store."""
        return self.root.joinpath(*check_key(key).split("/"))

    def location(self, key: str) -> str:
        return str(self.path_of(key))

    def key_at(self, location: str) -> str | None:
        try:
            rel = Path(location).relative_to(self.root).as_posix()
            return check_key(rel)
        except (ValueError, StorageError):
            return None

    def _scratch(self, key: str) -> Path:
        """Named like the core's own partial folders (``.v2.partial-…``), so the sweep that removes a
        dead job's leftovers finds this one too."""
        dest = self.path_of(key)
        scratch = dest.parent / f".{dest.name}.partial-build-{uuid.uuid4().hex}"
        scratch.mkdir(parents=True)
        return scratch

    def _copy_file(self, src: Path, dst: Path) -> None:
        """Copy one file and flush it to disk, so a published version survives a power cut."""
        dst.parent.mkdir(parents=True, exist_ok=True)
        with open(src, "rb") as fin, open(dst, "wb") as fout:
            shutil.copyfileobj(fin, fout, _COPY_CHUNK)
            fout.flush()
            os.fsync(fout.fileno())

    def put(self, key: str, src: Path, *, move: bool = False) -> None:
        """Copy ``src`` in (or, with ``move``, rename it in when it is on the same file system; it is
        given back at ``src`` if the put fails)."""
        dest = self.path_of(key)
        if _is_version(dest) or (dest.exists() and not dest.is_dir()):
            raise VersionExistsError(f"version {key} already exists in {self.url}; versions are never overwritten")
        files = scan_dir(Path(src))
        staging = dest.parent / f".{dest.name}.put-{uuid.uuid4().hex}"
        staging.parent.mkdir(parents=True, exist_ok=True)
        moved = False
        try:
            if move:
                try:
                    os.rename(src, staging)
                    moved = True
                except OSError as exc:
                    if exc.errno != errno.EXDEV:
                        raise
            if not moved:
                staging.mkdir()
                for rel, path, _ in files:
                    self._copy_file(path, staging.joinpath(*rel.split("/")))
            try:
                os.rename(staging, dest)
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
                    raise VersionExistsError(
                        f"version {key} already exists in {self.url}; versions are never overwritten"
                    ) from exc
                raise
        except BaseException:
            if moved and staging.exists():
                os.rename(staging, src)
            shutil.rmtree(staging, ignore_errors=True)
            raise
        log.info("stored version %s in %s (%d files)", key, self.url, len(files))

    def exists(self, key: str) -> bool:
        return _is_version(self.path_of(key))

    def list(self, prefix: str = "") -> list[str]:
        prefix = check_prefix(prefix)
        found: list[str] = []

        def walk(path: Path, key: str, depth: int) -> None:
            if key and _is_version(path):
                found.append(key)
                return
            if depth >= MAX_SEGMENTS or not path.is_dir():
                return
            for entry in sorted(os.scandir(path), key=lambda e: e.name):
                if entry.is_dir() and not entry.name.startswith("."):
                    child = f"{key}/{entry.name}" if key else entry.name
                    try:
                        check_key(child)
                    except StorageError:
                        continue
                    walk(Path(entry.path), child, depth + 1)

        walk(self.path_of(prefix) if prefix else self.root, prefix, len(prefix.split("/")) if prefix else 0)
        return sorted(found)

    def _version_dir(self, key: str) -> Path:
        path = self.path_of(key)
        if not _is_version(path):
            raise VersionNotFoundError(f"no version {key} in {self.url}")
        return path

    def files(self, key: str) -> list[StoredFile]:
        return [StoredFile(rel, size) for rel, _, size in scan_dir(self._version_dir(key))]

    def open(self, key: str, relpath: str) -> AbstractContextManager[BinaryIO]:
        path = self._version_dir(key).joinpath(*check_relpath(relpath).split("/"))
        try:
            return cast(AbstractContextManager[BinaryIO], open(path, "rb"))
        except OSError as exc:
            raise VersionNotFoundError(f"no file {relpath} in version {key} of {self.url}") from exc

    def materialise(self, key: str) -> Path:
        return self._version_dir(key)

    def delete(self, key: str) -> bool:
        """Rename the folder out of sight first (one atomic step), then remove it."""
        path = self.path_of(key)
        if not _is_version(path):
            return False
        doomed = path.parent / f".{path.name}.del-{uuid.uuid4().hex}"
        try:
            os.rename(path, doomed)
        except FileNotFoundError:
            return False  # a concurrent delete won
        shutil.rmtree(doomed, ignore_errors=True)
        if path.parent != self.root:
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # the project folder, once its last version is gone
        log.info("deleted version %s from %s", key, self.url)
        return True
