"""Leftover upload folders and download archives from a process that died mid-request are removed at
start-up. Requests clean up after themselves; only a crash (or a kill) leaves anything behind."""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path

log = logging.getLogger(__name__)
STALE_AFTER_S = 3600.0
"""Older than this is a leftover: other API processes sharing the data dir may be using newer ones."""
PATTERNS = ("upload-*", "download-*.tar.gz")


def clean_stale_uploads(uploads_dir: Path, *, older_than_s: float = STALE_AFTER_S) -> int:
    """Remove temp folders and files in ``uploads_dir`` untouched for ``older_than_s``; how many."""
    if not uploads_dir.is_dir():
        return 0
    cutoff = time.time() - older_than_s
    removed = 0
    for pattern in PATTERNS:
        for path in uploads_dir.glob(pattern):
            try:
                if path.lstat().st_mtime > cutoff:
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
