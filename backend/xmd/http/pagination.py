"""The one page envelope every list route returns: ``{items, total, offset, limit}``.

A list route takes ``offset``/``limit`` as query parameters and answers :class:`Page` of its item
schema, so clients page every list the same way (and read ``total`` for a pager) without guessing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Query
from pydantic import BaseModel

T = TypeVar("T")
MAX_LIMIT = 1000
"""No list answers more than this many items at once (the default pages are much smaller)."""

Offset = Annotated[int, Query(ge=0, description="items to skip")]
Limit = Annotated[int, Query(ge=0, le=MAX_LIMIT, description="items to return at most")]


class Page(BaseModel, Generic[T]):
    """A page of a list: ``total`` counts every item the filters select, not only this page."""

    items: list[T]
    total: int
    offset: int
    limit: int


def page(items: Sequence[Any], total: int, offset: int, limit: int) -> dict[str, Any]:
    """The envelope's fields, for ``Page[...]`` or a subclass with more fields."""
    return {"items": list(items), "total": total, "offset": offset, "limit": limit}


def page_of(rows: Sequence[Any], offset: int, limit: int) -> dict[str, Any]:
    """Page a list that is already whole in memory (a project's datasets, a user list): small by nature."""
    return page(rows[offset : offset + limit], len(rows), offset, limit)
