"""Loading labelled texts from the formats people actually have, with errors they can act on.

Every source (CSV/TSV, JSON Lines, JSON, Parquet, a ``datasets`` directory, or an in-memory
``Dataset``/``DataFrame``/list of dicts) is first turned into plain column lists, then validated in
one pass. Validation collects *all* problems before raising, so a person fixing an upload sees every
issue at once, and nothing is returned unless the whole dataset is valid (all-or-nothing): a job
never runs on a silently truncated dataset.

Rows are counted from 0 (the header of a CSV file is not a row), which is also how default example
ids are made, so "row 17" in a message is the example with id "17".
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import decimal
import gc
import json
import math
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xmd.core.types import DataError, Example

SUPPORTED_EXTENSIONS = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet")
SAVE_EXTENSIONS = (".jsonl", ".ndjson", ".csv")
#: Columns that :func:`save_examples` writes itself; meta keys never shadow them.
RESERVED_COLUMNS = ("id", "text", "label", "split")

# Cell values that mean "missing" in CSV/TSV meta columns (pandas' defaults). Text and id columns are
# read verbatim, so a review that says "NA" stays a review; label cells are matched against the class
# names before these are taken to mean "no label".
_NA_STRINGS = [
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
]
_NA_LABELS = frozenset(x.lower() for x in _NA_STRINGS)
_SHOW = 5  # how many offending rows or values a message lists


@dataclass
class _Columns:
    """A source reduced to column lists of Python values (what validation works on)."""

    names: list[str]
    data: dict[str, list[Any]]
    n_rows: int
    # Names of ``datasets.ClassLabel`` columns, so integer labels can be matched by name.
    class_names: dict[str, list[str]] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------------
# Public API


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
    label_names = _check_label_names(labels)
    if max_chars is not None and max_chars <= 0:
        raise DataError(f"max_chars must be positive, got {max_chars}")
    with _gc_paused():
        cols, where = _read_source(source, split=split, verbatim=(text_column, id_column, label_column))
        try:
            return _build_examples(
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
                raise DataError(f"{where}: {exc}") from None
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
    cols = _read_path(p, split="train", verbatim=tuple(_peek_columns(p)))
    rows = [{name: _jsonable(cols.data[name][i]) for name in cols.names} for i in range(min(n_rows, cols.n_rows))]
    return {
        "format": p.suffix.lower().lstrip("."),
        "columns": cols.names,
        "n_rows": cols.n_rows,
        "rows": rows,
        "guess": guess_columns(cols.names),
    }


def _peek_columns(path: Path) -> list[str]:
    """Header of a CSV/TSV file, so that every column is read verbatim (no NA guessing) in a preview."""
    if path.suffix.lower() not in (".csv", ".tsv"):
        return []
    try:
        with path.open(newline="", encoding="utf-8") as f:
            return next(csv.reader(f, delimiter="\t" if path.suffix.lower() == ".tsv" else ","), [])
    except (UnicodeDecodeError, csv.Error):
        return []


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


# --------------------------------------------------------------------------------------------------
# Reading sources into columns


def _read_source(source: Any, *, split: str, verbatim: tuple[str | None, ...]) -> tuple[_Columns, str]:
    """Dispatch on the kind of ``source``; returns the columns and a name to prefix errors with."""
    if isinstance(source, str | os.PathLike):
        path = Path(source).expanduser()
        return _read_path(path, split=split, verbatim=verbatim), path.name
    # Only check for library types whose module is already imported: an object cannot be a
    # Dataset or a DataFrame otherwise, and importing them just to say "no" costs seconds.
    ds_mod = sys.modules.get("datasets")
    if ds_mod is not None and isinstance(source, ds_mod.DatasetDict | ds_mod.IterableDatasetDict):
        source = _pick_split(source, split)
    if ds_mod is not None and isinstance(source, ds_mod.Dataset):
        return _from_dataset(source), ""
    if ds_mod is not None and isinstance(source, ds_mod.IterableDataset):
        raise DataError("streaming (iterable) datasets are not supported; load the dataset without streaming")
    pd_mod = sys.modules.get("pandas")
    if pd_mod is not None and isinstance(source, pd_mod.DataFrame):
        return _from_dataframe(source), ""
    pa_mod = sys.modules.get("pyarrow")
    if pa_mod is not None and isinstance(source, pa_mod.Table):
        return _from_arrow(source), ""
    if isinstance(source, list | tuple):
        return _from_records(source, what="item"), ""
    raise DataError(
        f"cannot read examples from a {type(source).__name__}; pass a file path, a directory saved "
        "with datasets' save_to_disk, a datasets.Dataset, a pandas DataFrame or a list of dicts"
    )


def _read_path(path: Path, *, split: str, verbatim: tuple[str | None, ...]) -> _Columns:
    if not path.exists():
        raise DataError(f"file not found: {str(path)!r}")
    if path.is_dir():
        return _read_saved_dataset(path, split)
    ext = path.suffix.lower()
    if ext not in SUPPORTED_EXTENSIONS:
        raise DataError(
            f"unsupported file type {ext or '(no extension)'!r} for {path.name!r}; supported: "
            f"{', '.join(SUPPORTED_EXTENSIONS)} or a directory saved with datasets' save_to_disk"
        )
    if ext in (".csv", ".tsv"):
        return _read_delimited(path, sep="\t" if ext == ".tsv" else ",", verbatim=verbatim)
    if ext in (".jsonl", ".ndjson"):
        return _read_jsonl(path)
    if ext == ".json":
        return _read_json(path)
    return _read_parquet(path)


def _not_utf8(path: Path, exc: UnicodeDecodeError) -> DataError:
    return DataError(
        f"{path.name!r} is not UTF-8 encoded (undecodable byte at position {exc.start}); re-save the file as UTF-8"
    )


def _read_delimited(path: Path, *, sep: str, verbatim: tuple[str | None, ...]) -> _Columns:
    """Read CSV/TSV with pandas' C parser (fast for millions of rows).

    ``verbatim`` (text, id, label) columns are read as strings without NA parsing, so a review
    that says "NA" stays a review and a label "1" means the class named "1" if there is one, else
    class index 1 (an empty label cell is still a missing label).
    """
    import pandas as pd

    kind = "TSV" if sep == "\t" else "CSV"
    try:
        header = pd.read_csv(path, sep=sep, nrows=0, encoding="utf-8-sig").columns.tolist()
        names = [str(c) for c in header]
        keep = {c for c in verbatim if c}
        df = pd.read_csv(
            path,
            sep=sep,
            encoding="utf-8-sig",
            dtype={c: str for c in names if c in keep},
            keep_default_na=False,
            na_values={c: _NA_STRINGS for c in names if c not in keep},
        )
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, exc) from None
    except pd.errors.EmptyDataError:
        raise DataError(f"{path.name!r} is empty (no header row)") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError(f"could not parse {path.name!r} as {kind}: {exc}") from None
    return _from_dataframe(df)


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, exc) from None


def _read_jsonl(path: Path) -> _Columns:
    text = _read_text(path)
    rows: list[Any] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = _json_loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"line {lineno} of {path.name!r} is not valid JSON: {exc.msg}") from None
        except RecursionError:
            raise DataError(f"line {lineno} of {path.name!r} is nested too deeply to read") from None
        if not isinstance(obj, dict):
            raise DataError(
                f"line {lineno} of {path.name!r} is a JSON {type(obj).__name__}, not an object; "
                'each line must be an object like {"text": ..., "label": ...}'
            )
        rows.append(obj)
    return _from_records(rows, what="row", parsed_json=True)


def _read_json(path: Path) -> _Columns:
    try:
        obj = _json_loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise DataError(f"{path.name!r} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise DataError(f"{path.name!r} is nested too deeply to read") from None
    if not isinstance(obj, list):
        raise DataError(
            f"{path.name!r} must hold a JSON list of objects (one per example), "
            f"not a JSON {type(obj).__name__}; for one object per line use .jsonl"
        )
    return _from_records(obj, what="item", parsed_json=True)


# One decoder for all lines: ``json.loads`` with a hook builds a new decoder per call, which is most
# of the time spent on a large JSON Lines file.
_DECODER = json.JSONDecoder(parse_constant=lambda _: None)


def _json_loads(text: str) -> Any:
    """``json.loads`` that reads the non-standard NaN/Infinity constants as None."""
    return _DECODER.decode(text)


def _read_parquet(path: Path) -> _Columns:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"could not read {path.name!r} as Parquet: {exc}") from None
    return _from_arrow(table)


def _read_saved_dataset(path: Path, split: str) -> _Columns:
    if not ((path / "dataset_dict.json").exists() or (path / "state.json").exists()):
        raise DataError(
            f"directory {str(path)!r} is not a dataset saved with datasets' save_to_disk "
            "(no state.json or dataset_dict.json); pass a file or a saved dataset directory"
        )
    import datasets

    try:
        ds = datasets.load_from_disk(str(path))
    except Exception as exc:  # datasets raises many types for a damaged directory
        raise DataError(f"could not load the saved dataset in {str(path)!r}: {exc}") from None
    if isinstance(ds, datasets.DatasetDict):
        ds = _pick_split(ds, split)
    return _from_dataset(ds)


def _pick_split(dsd: Any, split: str) -> Any:
    names = list(dsd.keys())
    if split not in dsd:
        raise DataError(f"the dataset has no split {split!r}; available splits: {names}")
    return dsd[split]


def _from_dataset(ds: Any) -> _Columns:
    import datasets

    table = ds.with_format("arrow")[:]  # applies any select/shuffle index mapping
    cols = _from_arrow(table)
    for name, feature in ds.features.items():
        if isinstance(feature, datasets.ClassLabel):
            cols.class_names[str(name)] = list(feature.names)
    return cols


def _from_arrow(table: Any) -> _Columns:
    import pyarrow as pa

    names = [str(n) for n in table.column_names]
    data: dict[str, list[Any]] = {}
    for i, name in enumerate(names):
        column = table.column(i)
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        values = column.to_pylist()
        if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
            if pa.types.is_integer(column.type) or pa.types.is_boolean(column.type):
                pass  # already plain ints/bools/None
            else:
                values = [_jsonable(v) for v in values]
        data.setdefault(name, values)
    return _Columns(names=list(dict.fromkeys(names)), data=data, n_rows=table.num_rows)


def _from_dataframe(df: Any) -> _Columns:
    names = [str(c) for c in df.columns]
    data: dict[str, list[Any]] = {}
    for i, name in enumerate(names):
        series = df.iloc[:, i]  # by position: column labels may repeat or not be strings
        values = series.tolist()
        if series.dtype.kind not in "iub":  # ints and bools are already plain Python values
            values = [_jsonable(v) for v in values]
        data.setdefault(name, values)
    return _Columns(names=list(dict.fromkeys(names)), data=data, n_rows=len(df))


def _from_records(records: Sequence[Any], *, what: str, parsed_json: bool = False) -> _Columns:
    """Column lists from dicts; a key missing from some rows is None there.

    ``parsed_json`` skips the per-cell conversion for values that came out of ``json.loads``
    (already JSON types, NaN/Infinity mapped to None by :func:`_json_loads`).
    """
    names: dict[str, None] = {}
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise DataError(
                f"{what} {i} is a {type(rec).__name__}, not an object/dict; "
                'every example must look like {"text": ..., "label": ...}'
            )
        names.update(dict.fromkeys(rec))
    keys = list(names)
    if parsed_json:
        data = {str(k): [rec.get(k) for rec in records] for k in keys}
    else:
        data = {str(k): [_jsonable(rec.get(k)) for rec in records] for k in keys}
    return _Columns(names=list(data), data=data, n_rows=len(records))


def _jsonable(v: Any) -> Any:
    """A JSON-friendly Python value: NaN/NA become None, numpy scalars plain numbers, dates ISO."""
    t = type(v)
    if v is None or t is str or t is int or t is bool:
        return v
    if t is float:
        return v if math.isfinite(v) else None
    if isinstance(v, str):
        return str(v)
    if isinstance(v, bool | int):
        return int(v) if not isinstance(v, bool) else bool(v)
    if isinstance(v, float):
        return float(v) if math.isfinite(v) else None
    if hasattr(v, "item") and type(v).__module__ == "numpy" and getattr(v, "ndim", 1) == 0:
        return _jsonable(v.item())
    pd_mod = sys.modules.get("pandas")
    if pd_mod is not None and (v is pd_mod.NA or v is pd_mod.NaT):
        return None
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple | set | frozenset):
        return [_jsonable(x) for x in v]
    if hasattr(v, "tolist"):  # numpy arrays
        return _jsonable(v.tolist())
    if isinstance(v, _dt.datetime | _dt.date | _dt.time):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return _jsonable(float(v))
    if isinstance(v, bytes | bytearray):
        return bytes(v).decode("utf-8", errors="replace")
    return str(v)


# --------------------------------------------------------------------------------------------------
# Validation


def _check_label_names(labels: Sequence[str] | None) -> list[str] | None:
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
            if name.lower() in _NA_LABELS:
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


def _build_examples(
    cols: _Columns,
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


# --------------------------------------------------------------------------------------------------
# Saving


def _example_row(ex: Example) -> dict[str, Any]:
    row: dict[str, Any] = {"id": ex.id, "text": ex.text, "label": ex.label, "split": ex.split}
    for key, value in ex.meta.items():
        name = str(key)
        while name in row:
            name = f"meta_{name}"
        row[name] = _jsonable(value)
    return row


def _csv_cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, dict | list):
        return json.dumps(v, ensure_ascii=False)
    return v
