"""Files of the service are readable by their owner only.

The data dir holds the SQLite databases, the embedded broker's messages (``broker.db``), uploads and
every model version; none of it is meant for other accounts on the machine. Each process (API,
worker, CLI) sets a ``077`` umask before writing, so new files are 0600 and new folders 0700, and
tightens what an older version left group- or world-readable directly in the data dir.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

PRIVATE_UMASK = 0o077


def private_files() -> None:
    """New files of this process: owner only (0600 files, 0700 folders)."""
    os.umask(PRIVATE_UMASK)


def secure_data_dir(data_dir: Path) -> Path:
    """Create ``data_dir`` (0700) with a private umask, and strip group/other access from it and from
    what lies directly in it (folders below a 0700 folder cannot be entered by others anyway)."""
    private_files()
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    uid = os.getuid()
    for path in (data_dir, *data_dir.iterdir()):
        with contextlib.suppress(OSError):  # a file removed meanwhile, or not ours: leave it
            st = path.lstat()
            if st.st_uid == uid and not stat.S_ISLNK(st.st_mode) and st.st_mode & 0o077:
                path.chmod(stat.S_IMODE(st.st_mode) & 0o700)
    return data_dir
