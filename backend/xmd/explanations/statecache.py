"""A small cache of values read off a (version, method)'s explanations, valid while its aggregate state
row does not change: shared by the word pager's count and the coverage note (``state_cache``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from xmd.explanations.models import AggregateState

T = TypeVar("T")


class StateCache:
    """Values read off a (version, method)'s explanations, kept until its aggregate changes (the state
    row's ``updated_at`` and ``n_examples`` move with every stored or deleted explanation): the pager's
    word count and the coverage note's per-dataset counts each cost more per page than the page itself."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._data: dict[tuple[Any, ...], Any] = {}
        self._lock = threading.Lock()

    def get(self, db: Session, state: AggregateState | None, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()``, or its value from an earlier call with the same ``key`` under this ``state``."""
        if state is None:
            return compute()
        full = (
            db.get_bind().url.render_as_string(),
            state.model_version_id,
            state.method,
            state.updated_at,
            state.n_examples,
            *key,
        )
        with self._lock:
            if full in self._data:
                return self._data[full]
        value = compute()
        with self._lock:
            if len(self._data) >= self.size:
                self._data.clear()
            self._data[full] = value
        return value


state_cache = StateCache()
"""The process's one cache: the ranking's word count and the coverage note's explained counts."""
