"""Validating column lists into :class:`~xmd.core.types.Example` objects, collecting every problem.

Validation collects *all* problems before raising, so a person fixing an upload sees every issue at
once, and nothing is returned unless the whole dataset is valid (all-or-nothing). Rows are counted
from 0, which is also how default example ids are made, so "row 17" in a message is the example with
id "17".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from xmd.core.data_read import NA_STRINGS, Columns
from xmd.core.types import DataError, Example

# A label cell holding one of these (any case) means "no label", unless a class has that name.
NA_LABELS = frozenset(x.lower() for x in NA_STRINGS)
_SHOW = 5  # how many offending rows or values a message lists


def check_label_names(labels: Sequence[str] | None) -> list[str] | None:
    if labels is None:
        return None
    if isinstance(labels, str) or not isinstance(labels, Sequence):
        raise DataError(f"labels must be a list of class names, got {labels!r}")
    names = [str(x) for x in labels]
    if not names:
        raise DataError("labels must name at least one class")
    if len({n.strip().lower() for n in names}) != len(names):
        raise DataError(f"class names must be unique (ignoring case), got {names}")
    return names


class _LabelMapper:
    """Raw label value → class index (None = missing, -1 = unknown), cached per distinct value."""

    def __init__(self, labels: list[str] | None, class_names: list[str] | None) -> None:
        self.labels = labels
        self.exact = {n: i for i, n in enumerate(labels or [])}
        self.folded = {n.strip().lower(): i for i, n in enumerate(labels or [])}
        # A ClassLabel column stores indices into *its own* names; when those names are the
        # model's class names (in any order), map through them rather than trusting the order.
        self.class_names = None
        if labels is not None and class_names and all(n.strip().lower() in self.folded for n in class_names):
            self.class_names = class_names
        self.is_class_label = class_names is not None
        self.cache: dict[tuple[type, Any], int | None] = {}

    def __call__(self, v: Any) -> int | None:
        try:
            key = (type(v), v)
            hit = self.cache.get(key, -2)
        except TypeError:  # unhashable (list, dict): never a label
            return -1
        if hit != -2:
            return hit
        out = self._map(v)
        self.cache[key] = out
        return out

    def _index(self, i: int) -> int:
        if i < 0:
            return -1
        if self.labels is not None and i >= len(self.labels):
            return -1
        return i

    def _map(self, v: Any) -> int | None:
        if v is None:
            return None
        if isinstance(v, bool):
            return -1
        if isinstance(v, int):
            if self.is_class_label and v == -1:  # datasets' convention for "no label"
                return None
            if self.class_names is not None:
                if 0 <= v < len(self.class_names):
                    return self.folded[self.class_names[v].strip().lower()]
                return -1
            return self._index(v)
        if isinstance(v, float):
            if math.isnan(v):
                return None
            return self._index(int(v)) if v.is_integer() else -1
        if isinstance(v, str):
            name = v.strip()
            if not name:
                return None
            if name in self.exact:
                return self.exact[name]
            if name.lower() in self.folded:
                return self.folded[name.lower()]
            if name.lower() in NA_LABELS:
                return None
            try:
                number = float(name)
            except ValueError:
                return -1
            return self._index(int(number)) if number.is_integer() else -1
        return -1


def _show(items: list[str], total: int) -> str:
    more = f" and {total - len(items)} more" if total > len(items) else ""
    return ", ".join(items) + more


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def build_examples(
    cols: Columns,
    *,
    text_column: str,
    label_column: str | None,
    id_column: str | None,
    labels: list[str] | None,
    split: str,
    max_chars: int | None,
    require_labels: bool,
) -> list[Example]:
    if cols.n_rows == 0:
        raise DataError("the dataset is empty (no rows)")
    available = cols.names
    missing = []
    if text_column not in cols.data:
        missing.append(("text", text_column))
    if id_column is not None and id_column not in cols.data:
        missing.append(("id", id_column))
    use_labels = label_column is not None and label_column in cols.data
    if label_column is not None and not use_labels and require_labels:
        missing.append(("label", label_column))
    if missing:
        what = "; ".join(f"{kind} column {name!r} not found" for kind, name in missing)
        hint = ", ".join(f"the {kind} column ({kind}_column)" for kind, _ in missing)
        raise DataError(f"{what}. The file's columns: {', '.join(map(repr, available))}. Choose {hint} among them")

    n = cols.n_rows
    texts = cols.data[text_column]
    raw_ids = cols.data[id_column] if id_column is not None else None
    raw_labels = cols.data[label_column] if use_labels and label_column is not None else None
    used = {text_column, id_column, label_column if use_labels else None, "split"}
    meta_names = [c for c in available if c not in used]
    meta_lists = [cols.data[c] for c in meta_names]

    problems: list[str] = []

    # Ids first: every other message refers to rows by them.
    ids: list[str] = []
    if raw_ids is None:
        ids = [str(i) for i in range(n)]
    else:
        no_id: list[int] = []
        first_row: dict[str, int] = {}
        dups: dict[str, list[int]] = {}
        for i, v in enumerate(raw_ids):
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            s = "" if v is None else v if isinstance(v, str) else str(v)
            if not s.strip():
                no_id.append(i)
            elif s in first_row:
                dups.setdefault(s, [first_row[s]]).append(i)
            else:
                first_row[s] = i
            ids.append(s)
        if no_id:
            problems.append(
                f"{_plural(len(no_id), 'row')} {'has' if len(no_id) == 1 else 'have'} an empty id "
                f"in column {id_column!r}: " + _show([f"row {i}" for i in no_id[:_SHOW]], len(no_id))
            )
        if dups:
            shown = [f"{k!r} (rows {', '.join(map(str, rows[:_SHOW]))})" for k, rows in list(dups.items())[:_SHOW]]
            problems.append(f"duplicate ids in column {id_column!r}: " + _show(shown, len(dups)))

    def where(i: int) -> str:
        if raw_ids is None or not ids[i].strip():
            return f"row {i}"
        return f"row {i} (id {ids[i]!r})"

    empty: list[int] = []
    not_text: list[int] = []
    too_long: list[int] = []
    for i, t in enumerate(texts):
        if type(t) is not str:
            if t is None:
                empty.append(i)
            else:
                not_text.append(i)
        elif not t or t.isspace():
            empty.append(i)
        elif max_chars is not None and len(t) > max_chars:
            too_long.append(i)
    if empty:
        problems.append(
            f"{_plural(len(empty), 'row')} {'has' if len(empty) == 1 else 'have'} an empty or "
            f"whitespace-only text in column {text_column!r}: " + _show([where(i) for i in empty[:_SHOW]], len(empty))
        )
    if not_text:
        problems.append(
            f"column {text_column!r} must hold text, but {_plural(len(not_text), 'row')} "
            f"{'holds' if len(not_text) == 1 else 'hold'} other values: "
            + _show([f"{where(i)}: {texts[i]!r}" for i in not_text[:_SHOW]], len(not_text))
        )
    if too_long:
        problems.append(
            f"{_plural(len(too_long), 'text')} {'is' if len(too_long) == 1 else 'are'} longer than "
            f"max_chars={max_chars} characters: "
            + _show([f"{where(i)} has {len(texts[i])} characters" for i in too_long[:_SHOW]], len(too_long))
        )

    label_idx: list[int | None] = [None] * n
    if raw_labels is not None:
        mapper = _LabelMapper(labels, cols.class_names.get(str(label_column)))
        unknown: dict[str, list[int]] = {}
        no_label: list[int] = []
        for i, v in enumerate(raw_labels):
            k = mapper(v)
            if k is None:
                if require_labels:
                    no_label.append(i)
            elif k < 0:
                unknown.setdefault(repr(v), []).append(i)
            else:
                label_idx[i] = k
        if no_label:
            problems.append(
                f"{_plural(len(no_label), 'row')} {'has' if len(no_label) == 1 else 'have'} no label "
                f"in column {label_column!r}: "
                + _show([where(i) for i in no_label[:_SHOW]], len(no_label))
                + " (pass require_labels=False to load unlabelled rows)"
            )
        if unknown:
            n_bad = sum(len(r) for r in unknown.values())
            shown = [
                f"{value} in {where(rows[0])}" + (f" and {_plural(len(rows) - 1, 'more row')}" if len(rows) > 1 else "")
                for value, rows in list(unknown.items())[:_SHOW]
            ]
            if labels is None:
                known = (
                    "without label names only class indices (integers >= 0) are accepted; "
                    "pass labels=[...] to map label names"
                )
            else:
                known = f"known labels: {labels} (or their indices 0-{len(labels) - 1})"
            problems.append(
                f"unknown label {'value' if len(unknown) == 1 else 'values'} in column "
                f"{label_column!r} ({_plural(n_bad, 'row')}): {_show(shown, len(unknown))}; {known}"
            )

    if problems:
        if len(problems) == 1:
            raise DataError(problems[0])
        raise DataError(f"{len(problems)} problems found:\n- " + "\n- ".join(problems))

    if meta_names:
        metas = [dict(zip(meta_names, row, strict=True)) for row in zip(*meta_lists, strict=True)]
    else:
        metas = [{} for _ in range(n)]
    return [
        Example(id_, text, label, split, meta)
        for id_, text, label, meta in zip(ids, texts, label_idx, metas, strict=True)
    ]
