"""Bulk row writes with a constant number of statements per call, for the tables written by the million
(explanations, word occurrences, word aggregates).

Why not SQLAlchemy's ``execute(table.insert(), rows)``: without RETURNING it becomes the driver's
``executemany``, which on PostgreSQL (psycopg 3, pipeline mode) is still one INSERT/UPDATE executed per
row by the server, plus SQLAlchemy's per-row parameter processing in Python. A 1,000-example explain
batch writes ~20,000 word occurrences and ~5,000 word rows; with these statements storing 100k examples
went from 585 to 1,109 rows/s on PostgreSQL and from 1,217 to 1,580 on SQLite (``bench/store_scale/store_scale.py``,
same session, BENCHMARKS.md). What is left is mostly the server's per-row work (index entries, foreign
key checks) and the contributions computed in Python.

* PostgreSQL: one ``INSERT … SELECT … FROM unnest(arrays)`` (optionally ``ON CONFLICT … DO UPDATE``)
  or ``UPDATE … FROM unnest(arrays)`` per :data:`PG_ROWS` rows: one round trip, one statement, the
  arrays sent in psycopg's binary format (floats exact).
* SQLite: the driver's ``executemany`` of one prepared statement (in-process, no round trips), given
  plain tuples so nothing is processed per row beyond the columns' own bind conversions.

Values go through each column's own bind conversion (JSON serialised as SQLAlchemy would, UTC
timestamps), so rows read back exactly as if SQLAlchemy had written them. The statements run in the
session's transaction, and the engine's parameter guard (:mod:`xmd.db.guard`) still sees every value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import JSON, ColumnElement, Table, any_, bindparam
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

PG_ROWS = 50_000
"""Rows per PostgreSQL statement (bounds the size of one message; a 1,000-example batch needs one)."""
SQLITE_IN = 500
"""Values per ``IN (…)`` list on SQLite (it allows 32766 bound parameters per statement)."""


def in_values(db_session: Session, column: Any, values: Sequence[Any]) -> list[ColumnElement[bool]]:
    """``column IN values`` as few conditions as the database needs, one statement each: on PostgreSQL
    ``column = ANY(:array)`` per :data:`PG_ROWS` values (one round trip instead of one per 500), on
    SQLite ``IN`` lists of :data:`SQLITE_IN`."""
    if db_session.get_bind().dialect.name == "sqlite":
        return [column.in_(values[i : i + SQLITE_IN]) for i in range(0, len(values), SQLITE_IN)]
    return [
        column == any_(bindparam(None, list(values[i : i + PG_ROWS]), type_=ARRAY(column.type)))
        for i in range(0, len(values), PG_ROWS)
    ]


def _processors(db_session: Session, table: Table, columns: Sequence[str]) -> list[Callable[[Any], Any] | None]:
    dialect = db_session.get_bind().dialect
    out: list[Callable[[Any], Any] | None] = []
    for name in columns:
        col_type = table.c[name].type
        if isinstance(col_type, JSON):
            # As SQLAlchemy's JSON type binds it (None too: JSON ``null``, its default ``none_as_null=False``).
            out.append(getattr(dialect, "_json_serializer", None) or json.dumps)
        else:
            out.append(col_type.dialect_impl(dialect).bind_processor(dialect))
    return out


def _convert(rows: Sequence[Sequence[Any]], processors: list[Callable[[Any], Any] | None]) -> list[tuple[Any, ...]]:
    if not any(processors):
        return [tuple(r) for r in rows]
    return [tuple(v if p is None else p(v) for v, p in zip(r, processors, strict=True)) for r in rows]


def _pg_array(db_session: Session, table: Table, name: str) -> tuple[str, str]:
    """(array type of the parameter, cast of the unnested value) of a column on PostgreSQL."""
    col_type = table.c[name].type
    if isinstance(col_type, JSON):
        return "TEXT[]", "JSON"  # serialised above; the server parses it as the column's type
    return f"{col_type.compile(dialect=db_session.get_bind().dialect)}[]", ""


def _quote(db_session: Session, name: str) -> str:
    return db_session.get_bind().dialect.identifier_preparer.quote(name)


def _pg_unnest(
    db_session: Session, table: Table, columns: Sequence[str], ordinality: bool = False
) -> tuple[str, list[str]]:
    """``unnest(CAST(%s AS t[]), …) AS u(c…)`` (``WITH ORDINALITY``: and ``ord``, the row's position) and
    the select expression of each column."""
    arrays, exprs = [], []
    for name in columns:
        array_type, cast = _pg_array(db_session, table, name)
        arrays.append(f"CAST(%s AS {array_type})")
        ref = f"u.{_quote(db_session, name)}"
        exprs.append(f"CAST({ref} AS {cast})" if cast else ref)
    names = ", ".join(_quote(db_session, n) for n in columns)
    if ordinality:
        return f"unnest({', '.join(arrays)}) WITH ORDINALITY AS u({names}, ord)", exprs
    return f"unnest({', '.join(arrays)}) AS u({names})", exprs


def _pg_columns(rows: list[tuple[Any, ...]], n: int) -> tuple[list[Any], ...]:
    return tuple([r[i] for r in rows] for i in range(n))


def insert_rows(
    db_session: Session,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    conflict: Sequence[str] | None = None,
    update: Sequence[str] = (),
    ordered: bool = False,
) -> None:
    """Insert ``rows`` (tuples in ``columns`` order); with ``conflict`` (the key columns), a row whose key
    exists instead sets the ``update`` columns to the given values (each key at most once in ``rows``).
    ``ordered``: serial ids are drawn in the order of ``rows`` (as one INSERT per row would), which
    PostgreSQL only promises for ``INSERT … SELECT`` with an ORDER BY."""
    if not rows:
        return
    conn = db_session.connection()
    values = _convert(rows, _processors(db_session, table, columns))
    names = ", ".join(_quote(db_session, n) for n in columns)
    tail = ""
    if conflict is not None:
        keys = ", ".join(_quote(db_session, n) for n in conflict)
        sets = ", ".join(f"{_quote(db_session, n)} = excluded.{_quote(db_session, n)}" for n in update)
        tail = f" ON CONFLICT ({keys}) DO " + (f"UPDATE SET {sets}" if update else "NOTHING")
    target = _quote(db_session, table.name)
    if db_session.get_bind().dialect.name == "sqlite":
        marks = ", ".join("?" * len(columns))
        conn.exec_driver_sql(f"INSERT INTO {target} ({names}) VALUES ({marks}){tail}", values)
        return
    source, exprs = _pg_unnest(db_session, table, columns, ordered)
    order = " ORDER BY u.ord" if ordered else ""
    sql = f"INSERT INTO {target} ({names}) SELECT {', '.join(exprs)} FROM {source}{order}{tail}"
    for start in range(0, len(values), PG_ROWS):
        conn.exec_driver_sql(sql, _pg_columns(values[start : start + PG_ROWS], len(columns)))


def update_rows(
    db_session: Session, table: Table, keys: Sequence[str], columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """Set ``columns`` of the rows identified by ``keys``; ``rows`` are tuples of the keys' values, then
    the columns' (rows that do not exist are left alone, as with one UPDATE per row)."""
    if not rows:
        return
    conn = db_session.connection()
    all_cols = [*keys, *columns]
    values = _convert(rows, _processors(db_session, table, all_cols))
    target = _quote(db_session, table.name)
    if db_session.get_bind().dialect.name == "sqlite":
        sets = ", ".join(f"{_quote(db_session, n)} = ?" for n in columns)
        where = " AND ".join(f"{_quote(db_session, n)} = ?" for n in keys)
        k = len(keys)
        conn.exec_driver_sql(f"UPDATE {target} SET {sets} WHERE {where}", [(*v[k:], *v[:k]) for v in values])
        return
    source, exprs = _pg_unnest(db_session, table, all_cols)
    by_name = dict(zip(all_cols, exprs, strict=True))
    sets = ", ".join(f"{_quote(db_session, n)} = {by_name[n]}" for n in columns)
    where = " AND ".join(f"{target}.{_quote(db_session, n)} = {by_name[n]}" for n in keys)
    sql = f"UPDATE {target} SET {sets} FROM {source} WHERE {where}"
    for start in range(0, len(values), PG_ROWS):
        conn.exec_driver_sql(sql, _pg_columns(values[start : start + PG_ROWS], len(all_cols)))
