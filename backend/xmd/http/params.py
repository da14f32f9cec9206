"""Typed integers every route and request schema uses, bounded by what the database can hold.

Every integer column is a 32-bit ``INTEGER`` on PostgreSQL (SQLite stores 64 bits), so an id, a
count or a step above 2³¹ − 1 cannot exist: it answers 422 here, documented in the OpenAPI schema,
instead of reaching the database (where PostgreSQL raised "out of range" and SQLite "Python int
too large", both 500s). :mod:`xmd.db.guard` keeps the same bound as a net for anything else.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query
from pydantic import Field

from xmd.db.guard import MAX_INT

__all__ = ["MAX_ID", "MAX_INT", "BodyId", "Count", "Cursor", "Id", "JobId", "Label", "OptId", "QueryId"]

MAX_ID = MAX_INT
"""The largest id a row can have (PostgreSQL ``INTEGER``)."""

Id = Annotated[int, Path(ge=1, le=MAX_ID, description="a row id")]
"""An id in the path."""
OptId = Annotated[int | None, Query(ge=1, le=MAX_ID, description="a row id")]
"""An optional id in the query string."""
BodyId = Annotated[int, Field(ge=1, le=MAX_ID)]
"""An id in a request body."""
Count = Annotated[int, Field(ge=0, le=MAX_INT)]
"""A non-negative integer in a request body that is stored (a position, a count)."""
QueryId = Annotated[int, Query(ge=1, le=MAX_ID, description="a row id")]
"""A required id in the query string."""
Cursor = Annotated[int | None, Query(ge=0, le=MAX_ID, description="the last id seen (0: from the start)")]
"""An id to page after or before."""
Label = Annotated[int | None, Query(ge=0, le=MAX_INT, description="a class index")]
"""A class index filter."""
JobId = Annotated[str, Path(min_length=1, max_length=36, description="a job id (a UUID)")]
"""A job id in the path (``jobs.id`` is 36 characters)."""
