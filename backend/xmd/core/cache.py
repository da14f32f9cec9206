"""The one cache of loaded models, used by the API (explain on request, "what if") and the workers
(explain chunks, evaluate).

Explaining one example or a "what if" text on request needs the model in memory; loading MiniLM takes
about a second, so the last few versions stay loaded (an LRU keyed by the version's directory, which
never changes content: a retrain writes a new directory). One lock per model keeps two requests from
running the same model at once (torch modules are not re-entrant under autograd).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from xmd.core.modeling import LoadedModel, load_model


class ModelCache:
    """Keeps up to ``size`` loaded models; ``use(path, labels)`` yields one under its own lock."""

    def __init__(self, size: int = 2, device: str = "cpu") -> None:
        self.size = size
        self.device = device
        self._models: OrderedDict[str, tuple[LoadedModel, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def _get(self, path: str, labels: list[str] | None) -> tuple[LoadedModel, threading.Lock]:
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
    def use(self, path: str, labels: list[str] | None = None) -> Iterator[LoadedModel]:
        loaded, lock = self._get(path, labels)
        with lock:
            yield loaded


_PROCESS: dict[str, ModelCache] = {}


def process_cache(device: str) -> ModelCache:
    """This process's cache for ``device``, for workers: one model kept, so consecutive explain chunks
    and evaluations of one version reuse it while a worker moving on to another version frees memory."""
    return _PROCESS.setdefault(device, ModelCache(size=1, device=device))
