"""A size-capped local cache of versions fetched from a remote store, shared by the processes of a machine.

Each entry is a folder named after the version key *and* the upload that produced it
(``p3+v2@<upload id>``), so a key deleted and written again can never be served stale. Entries
appear by one ``rename`` from a hidden staging folder (a half-downloaded version is never loaded),
one process fills a given key at a time (a file lock per key), and after every fill the least
recently used entries are removed until the cache is back under its cap. The entry just returned is
never removed, so a version larger than the cap still loads (it then has the cache to itself).
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from xmd.storage.base import StorageError, check_key

log = logging.getLogger(__name__)
_TOKEN = re.compile(r"[A-Za-z0-9]{1,64}")
STALE_STAGING_S = 24 * 3600.0


def _size(path: Path) -> int:
    total = 0
    for root, _, names in os.walk(path):
        for name in names:
            with suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` (created if missing), released on exit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


class VersionCache:
    """Local copies of remote versions under ``root``, at most ``max_bytes`` in all (but see above)."""

    def __init__(self, root: str | os.PathLike[str], max_bytes: int) -> None:
        if max_bytes <= 0:
            raise ValueError("the version cache needs a positive size cap")
        self.root = Path(root).expanduser().resolve()
        self.max_bytes = int(max_bytes)

    @staticmethod
    def _flat(key: str) -> str:
        return check_key(key).replace("/", "+")

    def entry(self, key: str, token: str) -> Path:
        """The folder that holds upload ``token`` of version ``key`` once cached."""
        if not _TOKEN.fullmatch(token):
            raise StorageError(f"invalid upload id for version {key}")
        return self.root / f"{self._flat(key)}@{token}"

    def get(self, key: str, token: str, fill: Callable[[Path], None]) -> Path:
        """The cached folder of ``key``/``token``; on a miss ``fill(folder)`` writes the files into a fresh
        staging folder, which then appears whole. Marks the entry as just used."""
        entry = self.entry(key, token)
        for _ in range(3):  # another process may evict the entry between the check and the touch
            if not entry.is_dir():
                with _locked(self.root / ".locks" / f"{self._flat(key)}.lock"):
                    if not entry.is_dir():
                        self._fill(key, entry, fill)
            try:
                # An explicit fine-grained stamp: the kernel's own "now" is coarse (a few ms), and two uses
                # within one tick would leave the least recently used order to the names.
                now = time.time_ns()
                os.utime(entry, ns=(now, now))
                break
            except FileNotFoundError:
                continue
        self.evict(keep=entry)
        return entry

    def _fill(self, key: str, entry: Path, fill: Callable[[Path], None]) -> None:
        staging = self.root / f".tmp-{uuid.uuid4().hex}"
        staging.mkdir(parents=True)
        try:
            fill(staging)
            os.rename(staging, entry)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        for old in self.root.glob(f"{self._flat(key)}@*"):
            if old != entry:  # an earlier upload under the same key: deleted and written again since
                shutil.rmtree(old, ignore_errors=True)
        log.info("cached version %s in %s", key, self.root)

    def drop(self, key: str) -> None:
        """Forget every cached copy of ``key`` (after the version is deleted)."""
        for old in self.root.glob(f"{self._flat(key)}@*"):
            shutil.rmtree(old, ignore_errors=True)

    def entries(self) -> list[tuple[Path, int, float]]:
        """``(folder, bytes, last used)`` for every complete entry, least recently used first."""
        if not self.root.is_dir():
            return []
        out = []
        for path in self.root.iterdir():
            if path.name.startswith(".") or not path.is_dir():
                continue
            try:
                used = path.stat().st_mtime
            except FileNotFoundError:
                continue
            out.append((path, _size(path), used))
        return sorted(out, key=lambda e: (e[2], e[0].name))

    def total_bytes(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def evict(self, keep: Path | None = None) -> list[Path]:
        """Remove least recently used entries (never ``keep``) until the cache fits its cap; also
        staging folders a killed process left behind. Returns the entries removed."""
        removed: list[Path] = []
        with _locked(self.root / ".lock"):
            entries = self.entries()
            total = sum(size for _, size, _ in entries)
            for path, size, _ in entries:
                if total <= self.max_bytes:
                    break
                if path == keep:
                    continue
                shutil.rmtree(path, ignore_errors=True)
                total -= size
                removed.append(path)
            now = time.time()
            for stale in self.root.glob(".tmp-*"):
                try:
                    if now - stale.stat().st_mtime > STALE_STAGING_S:
                        shutil.rmtree(stale, ignore_errors=True)
                except FileNotFoundError:
                    pass
        if removed:
            log.info("evicted %d cached versions from %s (cap %d bytes)", len(removed), self.root, self.max_bytes)
        return removed
