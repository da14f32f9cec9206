"""Errors raised by the store; the API maps them to HTTP statuses (404, 409, 503)."""

from __future__ import annotations

from typing import TypeVar

from xmd.core.types import XMDError


class StoreError(XMDError):
    """Base class for store errors whose message is meant for the user."""


class NotFoundError(StoreError):
    """A row looked up by id or name does not exist (``get_or_raise``)."""


class ConflictError(StoreError):
    """A unique name or key is already taken, or a state change is not allowed from the current state."""


class SchemaNotMigratedError(StoreError):
    """The database schema is not at the revision this code expects; the message names the fix."""


T = TypeVar("T")


def found(row: T | None, what: str) -> T:
    """``row``, or NotFoundError naming ``what`` (e.g. "dataset 3") when the lookup found nothing."""
    if row is None:
        raise NotFoundError(f"{what} not found")
    return row
