"""The version-store contract: where the files of a model version live, behind one small interface.

A version is a plain model directory (weights, tokenizer, ``xmd.json``, model card) stored under a *key*
such as ``p3/v2``. Versions are immutable: ``put`` never overwrites, and a ``put`` that fails leaves
nothing visible. Readers never assume the files are on this machine: they ask ``materialise`` for a
local directory (the store's own folder, or a cache filled from an object store) and load from that.
"""

from __future__ import annotations

import os
import re
import shutil
import tarfile
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO, cast

from xmd.core.types import XMDError

_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
MAX_SEGMENTS = 8


class StorageError(XMDError):
    """A store operation failed; the message names the key, never a credential."""


class VersionExistsError(StorageError):
    """``put`` found the key taken: versions are never overwritten."""


class VersionNotFoundError(StorageError):
    """No complete version is stored under the key."""


class InvalidKeyError(StorageError, ValueError):
    """The key (or a file path inside a version) is not a safe relative path."""


@dataclass(frozen=True)
class StoredFile:
    """One file of a version: its path inside the version directory (``/``-separated) and size."""

    path: str
    size: int


def version_key(project_id: int, version: int) -> str:
    """The key of a project's numbered version; the same layout the local folder has always had."""
    return f"p{int(project_id)}/v{int(version)}"


def check_key(key: str) -> str:
    """``key`` if it is 1–8 ``/``-separated segments of letters, digits, ``.``, ``_``, ``-`` that do not
    start with a dot (so no ``..``, no absolute path, no hidden name: those are the store's own)."""
    parts = key.split("/") if isinstance(key, str) else []
    if not 0 < len(parts) <= MAX_SEGMENTS or not all(_SEGMENT.fullmatch(p) for p in parts):
        raise InvalidKeyError(f"invalid version key {key!r}: use segments like 'p3/v2'")
    return key


def check_prefix(prefix: str) -> str:
    """A listing prefix: empty (everything) or a valid key (a whole number of segments)."""
    prefix = prefix.strip("/")
    return check_key(prefix) if prefix else ""


def check_relpath(relpath: str) -> str:
    """A file path inside a version: relative, ``/``-separated, no ``..`` or empty segment."""
    parts = relpath.split("/") if isinstance(relpath, str) else []
    if not parts or any(p in ("", ".", "..") or "\\" in p or "\x00" in p for p in parts):
        raise InvalidKeyError(f"invalid file path {relpath!r} inside a version")
    return relpath


def scan_dir(src: Path) -> list[tuple[str, Path, int]]:
    """Every regular file under ``src`` as ``(relative path, absolute path, size)``, sorted; symlinks
    are followed (a Hugging Face cache snapshot is made of them) but must end at a regular file."""
    src = Path(src)
    if not src.is_dir():
        raise StorageError(f"{src} is not a directory")
    out: list[tuple[str, Path, int]] = []
    for root, dirs, names in os.walk(src, followlinks=True):
        dirs.sort()
        for name in sorted(names):
            path = Path(root) / name
            rel = path.relative_to(src).as_posix()
            try:
                st = path.stat()
            except OSError as exc:
                raise StorageError(f"cannot read {rel} in {src}: {exc.strerror}") from exc
            if not path.is_file():
                raise StorageError(f"{rel} in {src} is not a regular file")
            out.append((check_relpath(rel), path, st.st_size))
    if not out:
        raise StorageError(f"{src} holds no files; a version is never empty")
    return out


class VersionStore(ABC):
    """Where versions live. Implementations: :class:`~xmd.storage.local.LocalStore` (a folder, the
    default) and :class:`~xmd.storage.s3.S3Store` (an S3-compatible bucket, for several machines)."""

    url: str
    """Where the store is, for messages and logs (``file:///…`` or ``s3://bucket/prefix``): no secrets."""

    @abstractmethod
    def put(self, key: str, src: Path, *, move: bool = False) -> None:
        """Store the directory ``src`` as version ``key``. VersionExistsError if the key is taken (also when
        a concurrent writer wins the race); on any failure nothing becomes visible under ``key``. With
        ``move`` the store may take ``src`` over instead of copying it (a rename on the same disk)."""

    @abstractmethod
    def exists(self, key: str) -> bool:
        """Whether a complete version is stored under ``key``."""

    @abstractmethod
    def list(self, prefix: str = "") -> list[str]:
        """Keys of the complete versions at or under ``prefix`` (whole segments: ``p1`` is not ``p10``)."""

    @abstractmethod
    def files(self, key: str) -> list[StoredFile]:
        """The files of version ``key``, sorted by path. VersionNotFoundError if there is none."""

    @abstractmethod
    def open(self, key: str, relpath: str) -> AbstractContextManager[BinaryIO]:
        """A readable binary stream of one file of version ``key`` (use as a context manager)."""

    @abstractmethod
    def materialise(self, key: str) -> Path:
        """A local directory holding version ``key``'s files, for ``from_pretrained``. Treat it as
        read-only: it is the store's folder or a shared cache entry."""

    @abstractmethod
    def delete(self, key: str) -> bool:
        """Remove version ``key`` (its files and any cached copy); False if there was none."""

    @abstractmethod
    def location(self, key: str) -> str:
        """Where version ``key`` is, as a string to record with the version (a folder path for a
        LocalStore, ``s3://bucket/prefix/key`` for an S3Store); :meth:`key_at` inverts it."""

    @abstractmethod
    def key_at(self, location: str) -> str | None:
        """The key of ``location`` when it lies in this store, else None."""

    @abstractmethod
    def _scratch(self, key: str) -> Path:
        """A fresh local folder to build version ``key`` in (on the same file system as the store
        when it is local, so publishing it is a rename)."""

    @contextmanager
    def build(self, key: str) -> Iterator[Path]:
        """A local path (not yet existing, in a fresh hidden scratch folder) to write version ``key`` at,
        e.g. with ``save_pretrained`` or the core's pipeline; when the block ends without error that
        folder is stored under ``key`` (VersionExistsError if taken). The scratch folder is removed
        whatever happens; a process killed inside the block leaves only a hidden folder no reader sees."""
        check_key(key)
        scratch = self._scratch(key)
        try:
            out = scratch / "version"
            yield out
            self.put(key, out, move=True)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def local_dir(self, location: str) -> Path:
        """A local folder with the files of the version recorded at ``location``: fetched through the
        store when the location is in it, else ``location`` itself when it is a folder on this machine
        (a version registered outside the store). VersionNotFoundError otherwise."""
        key = self.key_at(location)
        if key is not None:
            return self.materialise(key)
        folder = Path(location)
        if folder.is_absolute() and folder.is_dir():
            return folder
        raise VersionNotFoundError(f"the files of {location} are not in {self.url} nor on this machine")

    def delete_under(self, prefix: str) -> list[str]:
        """Remove every version at or under ``prefix`` (a project's ``p3``); the keys removed."""
        keys = self.list(check_prefix(prefix) or _refuse_everything())
        return [k for k in keys if self.delete(k)]

    def iter_files(self, key: str) -> Iterator[tuple[StoredFile, AbstractContextManager[BinaryIO]]]:
        """Each file of ``key`` with a lazily opened stream of it."""
        for info in self.files(key):
            yield info, self.open(key, info.path)

    def write_archive(self, key: str, fileobj: BinaryIO, arcname: str) -> None:
        """Stream version ``key`` as a ``.tar.gz`` into ``fileobj`` (which need not be seekable), every
        file under the folder ``arcname``; nothing is staged on local disk first."""
        write_tar(fileobj, arcname, self.iter_files(key))

    def archive(self, location: str, fileobj: BinaryIO, arcname: str) -> None:
        """:meth:`write_archive` for a recorded location: through the store, or from the folder of a
        version registered outside it."""
        key = self.key_at(location)
        if key is not None:
            self.write_archive(key, fileobj, arcname)
            return
        folder = self.local_dir(location)
        items = ((StoredFile(rel, size), _opened(path)) for rel, path, size in scan_dir(folder))
        write_tar(fileobj, arcname, items)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"


def _refuse_everything() -> str:
    raise InvalidKeyError("refusing to delete every version: name a prefix such as 'p3'")


def _opened(path: Path) -> AbstractContextManager[BinaryIO]:
    """A file opened for write_tar, which closes it."""
    return cast(AbstractContextManager[BinaryIO], open(path, "rb"))


def write_tar(
    fileobj: BinaryIO, arcname: str, items: Iterable[tuple[StoredFile, AbstractContextManager[BinaryIO]]]
) -> None:
    """A ``.tar.gz`` stream of ``items`` (each file with its lazily opened stream) under ``arcname``/."""
    folder = check_relpath(arcname)
    with tarfile.open(fileobj=fileobj, mode="w|gz") as tf:
        for info, opener in items:
            member = tarfile.TarInfo(str(PurePosixPath(folder) / info.path))
            member.size = info.size
            member.mode = 0o644
            member.mtime = int(time.time())
            with opener as stream:
                tf.addfile(member, stream)
