"""Loading labelled texts from the formats people actually have, with errors they can act on.

Every source (CSV/TSV, JSON Lines, JSON, Parquet, a ``datasets`` directory, or an in-memory
``Dataset``/``DataFrame``/list of dicts) is first turned into plain column lists, then validated in
one pass. Validation collects *all* problems before raising, so a person fixing an upload sees every
issue at once, and nothing is returned unless the whole dataset is valid (all-or-nothing): a job
never runs on a silently truncated dataset.

Rows are counted from 0 (the header of a CSV file is not a row), which is also how default example
ids are made, so "row 17" in a message is the example with id "17".

The public functions live here; the readers (one per format) in :mod:`xmd.core.data_read`, the
validation in :mod:`xmd.core.data_check`.
"""

from __future__ import annotations

import contextlib
import csv
import gc
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from xmd.core.data_check import build_examples, check_label_names
from xmd.core.data_read import jsonable, peek_columns, read_path, read_source
from xmd.core.types import DataError, Example

SAVE_EXTENSIONS = (".jsonl", ".ndjson", ".csv")
#: Columns that :func:`save_examples` writes itself; meta keys never shadow them.
RESERVED_COLUMNS = ("id", "text", "label", "split")


def load_examples(
    source: Any,
    *,
    text_column: str = "text",
    label_column: str | None = "label",
    id_column: str | None = None,
    labels: Sequence[str] | None = None,
    split: str = "train",
    max_chars: int | None = 20000,
    require_labels: bool = True,
) -> list[Example]:
    """Read and validate labelled texts; raise :class:`DataError` listing every problem found.

    ``labels`` are the model's class names: the label column may hold names (matched
    case-insensitively) or class indices (integers or numeric strings), and ``Example.label`` is
    always the index. Without ``labels`` only integer indices >= 0 are accepted. With
    ``label_column=None``, or ``require_labels=False`` and no such column, labels are None; with
    ``require_labels=False`` individual empty label cells are None too.

    Ids come from ``id_column`` (as strings, unique) or are the row numbers "0", "1", ....
    Every other column goes into ``Example.meta`` as JSON-friendly values (NaN becomes None),
    except a column named ``split``: the split of an example is the ``split`` argument, and a stale
    split written by :func:`save_examples` must not contradict it.
    """
    label_names = check_label_names(labels)
    if max_chars is not None and max_chars <= 0:
        raise DataError(f"max_chars must be positive, got {max_chars}")
    with _gc_paused():
        cols, where = read_source(source, split=split, verbatim=(text_column, id_column, label_column))
        try:
            return build_examples(
                cols,
                text_column=text_column,
                label_column=label_column,
                id_column=id_column,
                labels=label_names,
                split=split,
                max_chars=max_chars,
                require_labels=require_labels,
            )
        except DataError as exc:
            if where:  # name the file: an upload form may take several
                raise type(exc)(f"{where}: {exc}") from None  # a TooLargeError stays a 413
            raise


COLUMN_GUESSES: dict[str, tuple[str, ...]] = {
    "text": ("text", "sentence", "review", "content", "body", "document", "comment", "tweet", "post", "utterance"),
    "label": ("label", "labels", "class", "category", "sentiment", "target", "y", "gold", "gold_label", "annotation"),
    "id": ("id", "idx", "guid", "uid", "example_id", "post_id"),
}
"""Column names the upload form pre-selects, per role, first match wins (compared case-insensitively).
The one list: the API sends the guess with every preview, the UI shows it."""


def guess_columns(columns: Sequence[str]) -> dict[str, str | None]:
    """Per role (text, label, id), the first column whose name is a common one for it, else None; the
    text falls back to the first column no other role took."""
    lower = {c.lower().strip(): c for c in reversed(list(columns))}
    out: dict[str, str | None] = {
        role: next((lower[n] for n in names if n in lower), None) for role, names in COLUMN_GUESSES.items()
    }
    if out["text"] is None:
        out["text"] = next((c for c in columns if c not in (out["label"], out["id"])), None)
    return out


def preview_file(path: str | os.PathLike, *, n_rows: int = 10) -> dict[str, Any]:
    """Columns and the first ``n_rows`` rows of a file, unvalidated: what an upload form shows so a
    person can pick the text and label columns before the whole file is checked."""
    p = Path(path)
    cols = read_path(p, split="train", verbatim=tuple(peek_columns(p)))
    rows = [{name: jsonable(cols.data[name][i]) for name in cols.names} for i in range(min(n_rows, cols.n_rows))]
    return {
        "format": p.suffix.lower().lstrip("."),
        "columns": cols.names,
        "n_rows": cols.n_rows,
        "rows": rows,
        "guess": guess_columns(cols.names),
    }


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building millions of small, acyclic objects.

    Each generation-2 collection re-scans every object allocated so far, which roughly doubles the
    time to load a million rows; reference counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def save_examples(examples: Iterable[Example], path: str | os.PathLike) -> Path:
    """Write examples as JSON Lines (``.jsonl``/``.ndjson``) or CSV (``.csv``).

    Columns are ``id, text, label, split`` then the meta keys; the label is the class index, so
    ``load_examples(path, id_column="id", labels=...)`` gives the same examples back. A meta key
    that collides with one of those columns is written as ``meta_<key>`` rather than lost. The file
    is written to a temporary name and renamed, so a crash never leaves half a dataset behind.
    """
    out = Path(path)
    ext = out.suffix.lower()
    if ext not in SAVE_EXTENSIONS:
        raise DataError(f"cannot save to {out.name!r}: use one of {', '.join(SAVE_EXTENSIONS)}")
    rows = [_example_row(ex) for ex in examples]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    try:
        if ext == ".csv":
            keys: dict[str, None] = dict.fromkeys(RESERVED_COLUMNS)
            for row in rows:
                keys.update(dict.fromkeys(row))
            with tmp.open("w", encoding="utf-8", newline="") as fh:
                writer = csv.writer(fh)
                writer.writerow(list(keys))
                for row in rows:
                    writer.writerow([_csv_cell(row.get(k)) for k in keys])
        else:
            with tmp.open("w", encoding="utf-8") as fh:
                for row in rows:
                    fh.write(json.dumps(row, ensure_ascii=False, allow_nan=False))
                    fh.write("\n")
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()
    return out


def _example_row(ex: Example) -> dict[str, Any]:
    row: dict[str, Any] = {"id": ex.id, "text": ex.text, "label": ex.label, "split": ex.split}
    for key, value in ex.meta.items():
        name = str(key)
        while name in row:
            name = f"meta_{name}"
        row[name] = jsonable(value)
    return row


def _csv_cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, dict | list):
        return json.dumps(v, ensure_ascii=False)
    return v
