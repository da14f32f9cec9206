"""A net under every statement: values no column of either database can hold are refused before
they are sent, with the same error on SQLite and PostgreSQL.

PostgreSQL refuses text with a NUL byte and SQLite stores it, so the same upload succeeded on one
and failed with a 500 on the other; Python integers of 64 bits or more raised ``OverflowError`` in
SQLite's driver and "out of range" in PostgreSQL's. Requests are validated before they get here
(:mod:`xmd.http.params`); this catches what validation cannot see — uploaded rows, form fields,
values computed from input — and raises :class:`~xmd.core.types.DataError` (a 422 at the API).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Engine, event

from xmd.core.types import DataError

MAX_INT = 2**31 - 1
"""The largest value of an ``INTEGER`` column on PostgreSQL (every id and count column)."""
MIN_BIGINT, MAX_BIGINT = -(2**63), 2**63 - 1
"""What a bound integer may be at all (PostgreSQL ``BIGINT``, SQLite ``INTEGER``)."""


class NulByteError(DataError):
    """Text with a NUL byte (``\\x00``): PostgreSQL cannot store it, so neither database does."""


class IntegerRangeError(DataError):
    """An integer outside 64 bits: no column of either database holds it."""


def check_value(value: Any) -> None:
    """Raise if ``value`` (a bound parameter) cannot be stored on both databases."""
    if isinstance(value, str):
        if "\x00" in value:
            raise NulByteError("text must not contain NUL bytes (\\x00); remove them and send it again")
    elif isinstance(value, int) and not isinstance(value, bool) and not MIN_BIGINT <= value <= MAX_BIGINT:
        raise IntegerRangeError(f"the integer {value} is out of range (at most {MAX_BIGINT})")


def _values(parameters: Any) -> Iterable[Any]:
    if isinstance(parameters, Mapping):
        yield from parameters.values()
    elif isinstance(parameters, (list, tuple)):
        for p in parameters:
            if isinstance(p, (Mapping, list, tuple)):
                yield from _values(p)  # executemany: one set of parameters per row
            else:
                yield p


_UNCHECKED = frozenset({float, bytes, memoryview, bool, type(None)})


def _check_column(values: Sequence[Any]) -> None:
    """Check many values at once: an array parameter, or one column of an executemany. The bulk writes
    of the store bind hundreds of thousands of values per statement, and a Python call per value cost
    as much as the statement; a column of one plain type is checked by C-level joins, min and max."""
    kinds = set(map(type, values))
    if kinds <= _UNCHECKED:
        return
    if kinds == {str}:
        if "\x00" not in "".join(values):
            return
    elif kinds <= {int, type(None)}:
        ints = [v for v in values if v is not None]
        if not ints or (min(ints) >= MIN_BIGINT and max(ints) <= MAX_BIGINT):
            return
    for value in _values(list(values)):  # mixed, nested, or something to refuse: one by one
        check_value(value)


def _before_cursor_execute(
    _conn: Any, _cursor: Any, _statement: str, parameters: Any, _context: Any, _executemany: bool
) -> None:
    rows = isinstance(parameters, list) and parameters and all(type(p) is tuple for p in parameters)
    if rows and len({len(p) for p in parameters}) == 1:  # executemany of positional rows: column by column
        for i in range(len(parameters[0])):
            _check_column([p[i] for p in parameters])
        return
    if isinstance(parameters, tuple):  # one positional row; array parameters are lists
        for p in parameters:
            if isinstance(p, list):
                _check_column(p)
            else:
                for value in _values([p]):
                    check_value(value)
        return
    for value in _values(parameters):
        check_value(value)


def install(engine: Engine) -> None:
    """Check every statement's parameters on ``engine`` (idempotent)."""
    if not event.contains(engine, "before_cursor_execute", _before_cursor_execute):
        event.listen(engine, "before_cursor_execute", _before_cursor_execute)
