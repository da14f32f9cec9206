"""``python -m workers [celery worker options]`` (or ``xmd worker``): run a worker in this process."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from xmd.config import Settings

from workers.launch import worker_argv


def run_worker(
    *,
    queues: Sequence[str] | None = None,
    concurrency: int = 1,
    pool: str = "prefork",
    loglevel: str = "info",
    extra: Sequence[str] = (),
) -> None:
    """Consume the configured queues (default: the default and retrain queues) until stopped."""
    from workers.app import app

    argv = worker_argv(Settings.from_env(), queues=queues, concurrency=concurrency, pool=pool, loglevel=loglevel)
    app.worker_main([*argv[2:], *extra])  # argv[:2] is "-A workers.app": the app is given directly


if __name__ == "__main__":
    run_worker(extra=sys.argv[1:])
