"""Leftover upload folders and download archives from a process that died mid-request are removed at
start-up. Requests clean up after themselves; only a crash (or a kill) leaves anything behind.

Each temporary name carries its owner, ``upload-<pid>@<host>-…``: at start-up a leftover whose owner
ran on this host and is gone is removed whatever its age (a killed upload left 48 MB for an hour
before). One whose owner still runs (another API process sharing the data dir), or ran on another
host, is removed only once untouched for :data:`STALE_AFTER_S`, as are names without an owner.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import socket
import time
from pathlib import Path

log = logging.getLogger(__name__)
STALE_AFTER_S = 3600.0
"""Older than this is a leftover: other API processes sharing the data dir may be using newer ones."""
PATTERNS = ("upload-*", "download-*.tar.gz")
_OWNED = re.compile(r"^(?:upload|download)-(\d+)@(.+)-[A-Za-z0-9_]+(?:\.tar\.gz)?$")
_LOADED_AT = time.time()
"""No temporary name of this process is older: ``owner_prefix`` lives here, so this module loads first."""


def owner_prefix(kind: str) -> str:
    """``<kind>-<pid>@<host>-``: the prefix of this process's temporary names (``kind``: upload, download)."""
    return f"{kind}-{os.getpid()}@{socket.gethostname()}-"


def _owner_gone(name: str, mtime: float) -> bool:
    """Whether ``name`` was made by a process of this host that no longer runs. A name with this
    process's pid but older than this process was left by an earlier one under the same pid (in a
    container the API is PID 1 after every restart, with the same hostname)."""
    m = _OWNED.match(name)
    if m is None or m.group(2) != socket.gethostname():
        return False
    pid = int(m.group(1))
    if pid == os.getpid():  # newer: an app starting beside another of this process may own it
        return mtime < _LOADED_AT
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def clean_stale_uploads(uploads_dir: Path, *, older_than_s: float = STALE_AFTER_S) -> int:
    """Remove temp folders and files in ``uploads_dir`` whose owner is gone, or untouched for
    ``older_than_s``; how many."""
    if not uploads_dir.is_dir():
        return 0
    cutoff = time.time() - older_than_s
    removed = 0
    for pattern in PATTERNS:
        for path in uploads_dir.glob(pattern):
            try:
                mtime = path.lstat().st_mtime
                if mtime > cutoff and not _owner_gone(path.name, mtime):
                    continue
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()
                removed += 1
            except OSError as exc:  # another process removed it first, or it is not ours to remove
                log.warning("could not remove leftover %s: %s", path.name, exc)
    if removed:
        log.info("removed %d leftover upload file(s) from %s", removed, uploads_dir)
    return removed
