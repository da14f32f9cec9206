"""Human rationales as people store them, turned into one 0/1 flag per xmd word.

Rationale columns come in many shapes: 0/1 per word, word positions, the rationale words, character
spans, and any of these once per annotator; positions often refer to a *different* tokenisation
(HateXplain's ``post_tokens``, a whitespace split) than xmd's words. :func:`align_rationales` reads
a whole column, decides its format once for all rows (a column is never half flags, half
positions), projects every annotator onto xmd's words and keeps the words enough annotators agree
on. A column that cannot be read is a :class:`DataError` naming the rows; a row whose tokens do not
line up with its text is *skipped* and counted, so a person sees how much of the data was usable.
The alignment itself is :mod:`xmd.core.align`.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xmd.core.align import TextWords, align_with_coverage, content_words
from xmd.core.types import DataError, Example, Progress, tick

FORMATS = ("binary", "positions", "words", "spans")
_SPAN_STR = re.compile(r"^(\d+)\s*[:\-]\s*(\d+)$")
_INT_STR = re.compile(r"^[+-]?\d+$")
_SHOW = 5
HOOK_EVERY = 256
"""Rows between two calls of an alignment's progress hook (a cancel is seen within a few ms)."""


# --------------------------------------------------------------------------------------------------
# Reading cells


def parse_cell(value: Any) -> Any:
    """A rationale cell as a Python value: lists stay lists, JSON or Python-literal strings are
    decoded, a plain string is split into words (or ints / ``start:end`` spans). None when empty."""
    if value is None:
        return None
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, bool | int) or (isinstance(value, float) and value.is_integer()):
        return [int(value)]  # one position (a CSV column of single numbers is read as floats)
    if isinstance(value, str):
        s = value.strip()
        if not s:
            return None
        if s[0] in "[{(":
            value = _literal(s, f"cannot parse {_short(s)} (not JSON or a Python literal)")
        else:
            parts = [p for p in re.split(r"[\s,;]+", s) if p]
            if all(_INT_STR.match(p) for p in parts):
                return [int(p) for p in parts]
            if all(_SPAN_STR.match(p) for p in parts):  # "3:8 10:15" is spans, never positions
                return [{"start": int(m.group(1)), "end": int(m.group(2))} for p in parts if (m := _SPAN_STR.match(p))]
            return s.split()
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, list | dict):
        return value if value else None
    raise DataError(f"a rationale must be a list, a string or a JSON/Python literal, got {_short(value)}")


def _literal(s: str, error: str) -> Any:
    """A JSON or Python-literal cell (HateXplain writes Python lists); DataError(``error``) otherwise."""
    try:
        return json.loads(s)
    except ValueError:
        try:
            return ast.literal_eval(s)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise DataError(error) from None


def parse_tokens(value: Any) -> list[str] | None:
    """A token-list cell (list, JSON/Python literal, or whitespace-separated string)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        s = value.strip()
        if s.startswith("["):
            value = _literal(s, f"cannot parse token list {_short(s)}")
        else:
            return s.split()
    if not isinstance(value, list | tuple) or not all(isinstance(x, str) for x in value):
        raise DataError(f"a token list must be a list of strings, got {_short(value)}")
    return [str(x) for x in value]


def _short(v: Any, n: int = 60) -> str:
    r = repr(v)
    return r if len(r) <= n else r[: n - 1] + "…"


def _is_int(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


def _is_flag(v: Any) -> bool:
    return isinstance(v, bool) or (_is_int(v) and int(v) in (0, 1))


def _is_span(v: Any) -> bool:
    if isinstance(v, dict):
        return _is_int(v.get("start")) and _is_int(v.get("end"))
    return isinstance(v, list | tuple) and len(v) == 2 and all(_is_int(x) for x in v)


def _span(v: Any) -> tuple[int, int]:
    return (int(v["start"]), int(v["end"])) if isinstance(v, dict) else (int(v[0]), int(v[1]))


def _annotators(value: Any) -> tuple[list[list[Any]], list[list[Any]] | None]:
    """(lists of scalar items per annotator, lists of spans per annotator or None)."""
    if isinstance(value, dict):
        if "start" in value and "end" in value:
            return [], [[value]]
        lists = [v for v in value.values() if v is not None]
        if not all(isinstance(x, list) for x in lists):
            raise DataError(f"an annotator dict must map names to lists, got {_short(value)}")
        value = lists
    if not isinstance(value, list):
        raise DataError(f"cannot read rationale {_short(value)}")
    if all(not isinstance(x, list | tuple | dict) for x in value):
        return [value], None
    if all(isinstance(x, list | tuple) for x in value):
        scalar = (
            [list(x) for x in value] if all(not isinstance(y, list | tuple | dict) for x in value for y in x) else []
        )
        if all(_is_span(x) for x in value):
            return scalar, [value]
        if all(isinstance(x, list | tuple) and all(_is_span(y) for y in x) for x in value):
            return scalar, [list(x) for x in value]
        if scalar:
            return scalar, None
    if all(isinstance(x, dict) and _is_span(x) for x in value):
        return [], [value]
    raise DataError(f"cannot read rationale {_short(value)}: mixes lists and single values")


# --------------------------------------------------------------------------------------------------
# The column


@dataclass
class AlignedRationales:
    """What :func:`align_rationales` read: a 0/1 mask per xmd word for every usable row.

    ``skipped`` maps a reason to the ids of the rows left out for it; ``annotators`` counts rows
    by how many annotators gave a rationale there.
    """

    column: str
    format: str
    units: str
    masks: dict[str, list[int]] = field(default_factory=dict)
    skipped: dict[str, list[str]] = field(default_factory=dict)
    annotators: Counter[int] = field(default_factory=Counter)
    notes: dict[str, str] = field(default_factory=dict)


@dataclass
class _Row:
    ex: Example
    scalars: list[list[Any]]
    spans: list[list[Any]] | None
    tokens: list[str] | None
    text: TextWords | None = None

    def t(self) -> TextWords:
        if self.text is None:
            self.text = TextWords(self.ex.text)
        return self.text


def _units(row: _Row, fmt: str) -> list[str] | None:
    """The unit sequence flags/positions index: the tokens column, else xmd words (whitespace
    tokens for flags whose count matches them but not xmd's)."""
    if row.tokens is not None:
        return row.tokens
    words = row.t().words
    if fmt == "binary" and row.scalars and all(len(a) != len(words) for a in row.scalars):
        ws = row.ex.text.split()
        if all(len(a) == len(ws) for a in row.scalars):
            return ws
    return None


def _check(row: _Row, fmt: str) -> str | None:
    """Why ``row`` cannot be read as ``fmt`` (None when it can)."""
    if fmt == "spans":
        if row.spans is None:
            return "not a list of [start, end] character spans"
        n = len(row.ex.text)
        for ann in row.spans:
            for sp in ann:
                s, e = _span(sp)
                if not 0 <= s < e <= n:
                    return f"span {[s, e]} is outside the text's {n} characters"
        return None
    if not row.scalars:
        return "not a list of flags, positions or words"
    items = [x for a in row.scalars for x in a]
    if fmt == "words":
        return None if all(isinstance(x, str) for x in items) else "not all items are words"
    if not all(_is_int(x) or isinstance(x, bool) for x in items):
        return "not all items are integers"
    units = _units(row, fmt)
    n = len(units) if units is not None else len(row.t().words)
    what = "tokens" if row.tokens is not None else "words"
    if fmt == "binary":
        if not all(_is_flag(x) for x in items):
            return "has values other than 0/1"
        bad = next((a for a in row.scalars if len(a) != n), None)
        return None if bad is None else f"has {len(bad)} flags but the row has {n} {what}"
    bad_pos = next((int(x) for x in items if not 0 <= int(x) < n), None)
    if bad_pos is not None:
        return f"position {bad_pos} is out of range for {n} {what}"
    # [0, 1, 0, 0] is a flag list of the wrong length, not positions: positions do not repeat
    return "repeats a position" if any(len(set(map(int, a))) != len(a) for a in row.scalars) else None


def align_rationales(
    examples: Sequence[Example],
    column: str,
    *,
    tokens_column: str | None = None,
    format: str = "auto",
    min_agreement: float = 0.5,
    on_batch: Progress | None = None,
) -> AlignedRationales:
    """Read rationale ``column`` of ``examples`` (from ``Example.meta``) as 0/1 masks over xmd words.

    ``format``: auto | binary | positions | words | spans. ``tokens_column`` names a token list that
    flags/positions refer to (aligned to xmd's words here). With several annotators per row a word
    is kept when at least ``min_agreement`` of them marked it: an int is a count (2 = "two
    annotators"), a float in (0, 1] a fraction of the annotators of that row (0.5 = half).
    DataError for an unknown column, an unreadable cell, a length mismatch or a range error, listing
    the rows; nothing partial is returned. ``on_batch(done, 2 * len(examples))`` is told every
    :data:`HOOK_EVERY` rows of each pass (reading, projecting) and stops the call by answering False.
    """
    if format not in ("auto", *FORMATS):
        raise DataError(f"unknown rationale format {format!r}; use auto, {', '.join(FORMATS)}")
    _check_agreement(min_agreement)
    for col, what in ((column, "rationale"), (tokens_column, "tokens")):
        if col is not None and not any(col in ex.meta for ex in examples):
            cols = sorted({k for ex in examples for k in ex.meta})
            raise DataError(f"{what} column {col!r} not found; available columns: {cols}")
    rows: list[_Row] = []
    empty: list[str] = []
    problems: list[str] = []
    total = 2 * len(examples)
    for n, ex in enumerate(examples):
        if n % HOOK_EVERY == 0:
            tick(on_batch, n, total)
        try:
            value = parse_cell(ex.meta.get(column))
            tokens = parse_tokens(ex.meta.get(tokens_column)) if tokens_column else None
            if value is None:
                empty.append(ex.id)
                continue
            scalars, spans = _annotators(value)
        except DataError as exc:
            problems.append(f"row {ex.id!r}: {exc}")
            continue
        if not any(scalars) and not (spans and any(spans)):
            empty.append(ex.id)  # e.g. [[], []]: annotators who marked nothing at all
            continue
        if tokens_column and tokens is None:
            problems.append(f"row {ex.id!r}: has a rationale but no tokens in column {tokens_column!r}")
            continue
        rows.append(_Row(ex, scalars, spans, tokens))
    if problems:
        raise DataError(_problems(column, problems))
    fmt = _pick_format(rows, format, column)
    out = AlignedRationales(column=column, format=fmt, units="tokens" if tokens_column else "words")
    if empty:
        out.skipped["no rationale"] = empty
    for n, row in enumerate(rows):
        if n % HOOK_EVERY == 0:
            tick(on_batch, len(examples) + n, total)
        reason = _project(row, fmt, min_agreement, out)
        if reason:
            out.skipped.setdefault(reason, []).append(row.ex.id)
    tick(on_batch, total, total)
    return out


def _check_agreement(k: float) -> None:
    if isinstance(k, bool) or not isinstance(k, int | float):
        raise DataError(f"min_agreement must be a count (int) or a fraction (float), got {k!r}")
    if isinstance(k, int) and k < 1:
        raise DataError(f"min_agreement must be at least 1 annotator, got {k}")
    if isinstance(k, float) and not 0 < k <= 1:
        raise DataError(f"min_agreement as a fraction must lie in (0, 1], got {k}")


def _problems(column: str, problems: list[str], what: str = "unreadable rows") -> str:
    more = f"\n- … and {len(problems) - _SHOW} more" if len(problems) > _SHOW else ""
    return f"rationale column {column!r}: {len(problems)} {what}:\n- " + "\n- ".join(problems[:_SHOW]) + more


def _pick_format(rows: list[_Row], format: str, column: str) -> str:
    """The one format every row can be read as (explicit, or the first that fits in auto)."""
    if not rows:
        if format == "auto":
            raise DataError(f"rationale column {column!r} holds no rationale in any row")
        return format
    candidates = FORMATS if format == "auto" else (format,)
    first_fail: dict[str, str] = {}
    fits = []
    for fmt in candidates:
        bad = []
        for row in rows:
            why = _check(row, fmt)
            if why:
                bad.append(f"row {row.ex.id!r} {why}")
                if format == "auto":
                    break
        if bad:
            first_fail[fmt] = bad[0]
            if format != "auto":
                raise DataError(_problems(column, bad, f"rows that cannot be read as {fmt}"))
        else:
            fits.append(fmt)
    if not fits:
        why = "; ".join(f"{f}: {m}" for f, m in first_fail.items())
        raise DataError(
            f"cannot read rationale column {column!r} in any format ({why}). Pass --format / format= "
            "and, if the flags or positions refer to another tokenisation, its token-list column"
        )
    if "spans" in fits and ("binary" in fits or "positions" in fits):
        raise DataError(
            f"rationale column {column!r} reads both as character spans and as per-annotator "
            f"{'flags' if 'binary' in fits else 'positions'}; pass format='spans' or the other explicitly"
        )
    return fits[0]


def _project(row: _Row, fmt: str, k: float, out: AlignedRationales) -> str | None:
    """Fill ``out.masks`` for ``row``; return a skip reason instead when it cannot be aligned."""
    t = row.t()
    per_annotator: list[set[int]] = []
    if fmt == "spans":
        assert row.spans is not None
        for ann in row.spans:
            per_annotator.append({w for sp in ann for w in content_words(t.words_in_chars(*_span(sp)), t.words)})
    elif fmt == "words":
        for ann in row.scalars:
            marked: set[int] = set()
            for item in ann:
                hits = t.find_phrase(item)
                if not hits:
                    return "rationale word not found in the text"
                for h in hits:
                    marked.update(content_words(h, t.words))
            per_annotator.append(marked)
    else:
        units = _units(row, fmt)
        mapping: list[list[int] | None] | None = None
        if units is not None:
            mapping, found = align_with_coverage(row.ex.text, units)
            if found < 0.5:  # most tokens (placeholders aside) are not in the text: another text's tokens
                return "tokens do not match the text"
            if units is not row.tokens:
                out.notes["units"] = "some rows' flags are per whitespace token (aligned to xmd words)"
        for ann in row.scalars:
            idx = [i for i, v in enumerate(ann) if int(v)] if fmt == "binary" else sorted({int(v) for v in ann})
            marked = set()
            for i in idx:
                if mapping is None:
                    marked.add(i)
                    continue
                ws = mapping[i]
                if ws is None:
                    return "a marked token could not be aligned to the text"
                marked.update(ws)
            per_annotator.append(marked)
    n = len(per_annotator)
    out.annotators[n] += 1
    need = k if isinstance(k, int) else k * n - 1e-9
    votes = Counter(w for ann in per_annotator for w in ann)
    keep = {w for w, c in votes.items() if c >= need}
    if not keep:
        return "no word marked by enough annotators" if votes else "rationale marks no word"
    out.masks[row.ex.id] = [1 if w in keep else 0 for w in range(len(t.words))]
    return None
