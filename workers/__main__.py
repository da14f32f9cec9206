"""``python -m workers [celery worker options]``: run a worker in this process."""

from __future__ import annotations

import sys

from xmd.config import Settings

from workers.launch import worker_argv


def main(argv: list[str] | None = None) -> None:
    """Start a worker on the configured queues; extra arguments go to ``celery worker``."""
    from workers.app import app

    args = worker_argv(Settings.from_env())[2:]  # drop "-A workers.app": the app is given directly
    app.worker_main([*args, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    main()
