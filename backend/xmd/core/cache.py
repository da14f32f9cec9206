"""What views need beyond a DB session: settings, the job enqueuer, and a small cache of loaded models.

Explaining one example or a "what if" text on request needs the model in memory; loading MiniLM takes
about a second, so the last few versions stay loaded (an LRU keyed by the version's directory, which
never changes content: a retrain writes a new directory). One lock per model keeps two requests from
running the same model at once (torch modules are not re-entrant under autograd).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import Request

from xmd.config import Settings
from xmd.core.modeling import LoadedModel, load_model
from xmd.jobs.models import Job

Enqueue = Callable[[Job, dict[str, str] | None], None]


class ModelCache:
    """Keeps up to ``size`` loaded models; ``use(path, labels)`` yields one under its own lock."""

    def __init__(self, size: int = 2, device: str = "cpu") -> None:
        self.size = size
        self.device = device
        self._models: OrderedDict[str, tuple[LoadedModel, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def _get(self, path: str, labels: list[str]) -> tuple[LoadedModel, threading.Lock]:
        with self._lock:
            hit = self._models.get(path)
            if hit is not None:
                self._models.move_to_end(path)
                return hit
        loaded = load_model(path, labels=labels, device=self.device)
        with self._lock:
            entry = self._models.setdefault(path, (loaded, threading.Lock()))
            self._models.move_to_end(path)
            while len(self._models) > self.size:
                self._models.popitem(last=False)
        return entry

    @contextmanager
    def use(self, path: str, labels: list[str]) -> Iterator[LoadedModel]:
        loaded, lock = self._get(path, labels)
        with lock:
            yield loaded


def settings_of(request: Request) -> Settings:
    return request.app.state.settings


def models_of(request: Request) -> ModelCache:
    return request.app.state.models


def enqueue_of(request: Request) -> Enqueue:
    return request.app.state.enqueue


def default_enqueue(settings: Settings) -> Enqueue:
    """Send jobs through :mod:`xmd.jobs.queue` (the only module that talks to the broker)."""

    def send(job: Job, secrets: dict[str, str] | None = None) -> None:
        from xmd.jobs import queue

        queue.enqueue(settings, job, secrets=secrets)

    return send


def page(items: list[Any], total: int, offset: int, limit: int) -> dict[str, Any]:
    """The one pagination envelope every list route returns."""
    return {"items": items, "total": total, "offset": offset, "limit": limit}
