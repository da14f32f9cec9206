"""Reading every supported source into plain column lists (:class:`Columns`), before validation.

Files (CSV/TSV, JSON Lines, JSON, Parquet, a ``datasets`` directory) and in-memory objects (a
``Dataset``, ``DataFrame``, Arrow table or list of dicts) all end up as the same column lists of
JSON-friendly Python values, so :mod:`xmd.core.data_check` validates one shape. Kept apart from the
validation because the readers are where the file formats and their libraries live.
"""

from __future__ import annotations

import csv
import datetime as _dt
import decimal
import io
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xmd.core.types import DataError, TooLargeError

MAX_COLUMNS = 1000
"""The most columns a CSV/TSV file may have: one row of 100,002 columns took 40-60 s to read (issue 31)."""
MAX_HEADER_BYTES = 64 * 1024
"""The longest header row of a CSV/TSV file (its column names), in characters."""
SUPPORTED_EXTENSIONS = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet")

# Cell values that mean "missing" in CSV/TSV meta columns (pandas' defaults). Text and id columns are
# read verbatim, so a review that says "NA" stays a review; label cells are matched against the class
# names before these are taken to mean "no label".
NA_STRINGS = [
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


@dataclass
class Columns:
    """A source reduced to column lists of Python values (what validation works on)."""

    names: list[str]
    data: dict[str, list[Any]]
    n_rows: int
    # Names of ``datasets.ClassLabel`` columns, so integer labels can be matched by name.
    class_names: dict[str, list[str]] = field(default_factory=dict)


def peek_columns(path: Path) -> list[str]:
    """Header of a CSV/TSV file, so that every column is read verbatim (no NA guessing) in a preview."""
    if path.suffix.lower() not in (".csv", ".tsv"):
        return []
    try:
        with path.open(newline="", encoding="utf-8") as f:
            return next(csv.reader(f, delimiter="\t" if path.suffix.lower() == ".tsv" else ","), [])
    except (UnicodeDecodeError, csv.Error):
        return []


def read_source(source: Any, *, split: str, verbatim: tuple[str | None, ...]) -> tuple[Columns, str]:
    """Dispatch on the kind of ``source``; returns the columns and a name to prefix errors with."""
    if isinstance(source, str | os.PathLike):
        path = Path(source).expanduser()
        return read_path(path, split=split, verbatim=verbatim), path.name
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


def read_path(path: Path, *, split: str, verbatim: tuple[str | None, ...]) -> Columns:
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


def _read_delimited(path: Path, *, sep: str, verbatim: tuple[str | None, ...]) -> Columns:
    """Read CSV/TSV with pandas' C parser (fast for millions of rows).

    ``verbatim`` (text, id, label) columns are read as strings without NA parsing, so a review
    that says "NA" stays a review and a label "1" means the class named "1" if there is one, else
    class index 1 (an empty label cell is still a missing label).
    """
    import pandas as pd

    kind = "TSV" if sep == "\t" else "CSV"
    check_header(path, sep=sep, kind=kind)
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
            na_values={c: NA_STRINGS for c in names if c not in keep},
        )
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, exc) from None
    except pd.errors.EmptyDataError:
        raise DataError(f"{path.name!r} is empty (no header row)") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError(f"could not parse {path.name!r} as {kind}: {exc}") from None
    return _from_dataframe(df)


def check_header(path: Path, *, sep: str, kind: str = "CSV") -> None:
    """Refuse, before anything else is read, a header longer than :data:`MAX_HEADER_BYTES` or with more
    than :data:`MAX_COLUMNS` columns (TooLargeError, 413) and duplicated column names (DataError, 422:
    pandas would silently rename the second ``text`` to ``text.1``), naming the limit or the columns."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:
            head = f.read(MAX_HEADER_BYTES + 1)
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, exc) from None
    reader = csv.reader(io.StringIO(head), delimiter=sep)
    try:
        names = next(reader, [])
    except csv.Error as exc:
        raise DataError(f"could not parse the header row of {path.name!r} as {kind}: {exc}") from None
    consumed = "".join(io.StringIO(head).readlines()[: reader.line_num])
    if len(head) > MAX_HEADER_BYTES and not consumed.endswith(("\n", "\r")):  # the row goes on past the chunk
        raise TooLargeError(
            f"the header row of {path.name!r} is longer than {MAX_HEADER_BYTES:,} characters (the limit for "
            f"column names); a {kind} file may have at most {MAX_COLUMNS:,} columns"
        )
    if len(names) > MAX_COLUMNS:
        raise TooLargeError(
            f"{path.name!r} has {len(names):,} columns; a {kind} file may have at most {MAX_COLUMNS:,} columns"
        )
    seen: dict[str, int] = {}
    dupes = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 2:
            dupes.append(name)
    if dupes:
        listed = ", ".join(repr(n) for n in dupes[:10])
        raise DataError(f"{path.name!r} has duplicate column names: {listed}; each column needs its own name")


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, exc) from None


def _read_jsonl(path: Path) -> Columns:
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


def _read_json(path: Path) -> Columns:
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


def _read_parquet(path: Path) -> Columns:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"could not read {path.name!r} as Parquet: {exc}") from None
    return _from_arrow(table)


def _read_saved_dataset(path: Path, split: str) -> Columns:
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


def _from_dataset(ds: Any) -> Columns:
    import datasets

    table = ds.with_format("arrow")[:]  # applies any select/shuffle index mapping
    cols = _from_arrow(table)
    for name, feature in ds.features.items():
        if isinstance(feature, datasets.ClassLabel):
            cols.class_names[str(name)] = list(feature.names)
    return cols


def _from_arrow(table: Any) -> Columns:
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
                values = [jsonable(v) for v in values]
        data.setdefault(name, values)
    return Columns(names=list(dict.fromkeys(names)), data=data, n_rows=table.num_rows)


def _from_dataframe(df: Any) -> Columns:
    names = [str(c) for c in df.columns]
    data: dict[str, list[Any]] = {}
    for i, name in enumerate(names):
        series = df.iloc[:, i]  # by position: column labels may repeat or not be strings
        values = series.tolist()
        if series.dtype.kind not in "iub":  # ints and bools are already plain Python values
            values = [jsonable(v) for v in values]
        data.setdefault(name, values)
    return Columns(names=list(dict.fromkeys(names)), data=data, n_rows=len(df))


def _from_records(records: Sequence[Any], *, what: str, parsed_json: bool = False) -> Columns:
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
        data = {str(k): [jsonable(rec.get(k)) for rec in records] for k in keys}
    return Columns(names=list(data), data=data, n_rows=len(records))


def jsonable(v: Any) -> Any:
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
        return jsonable(v.item())
    pd_mod = sys.modules.get("pandas")
    if pd_mod is not None and (v is pd_mod.NA or v is pd_mod.NaT):
        return None
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple | set | frozenset):
        return [jsonable(x) for x in v]
    if hasattr(v, "tolist"):  # numpy arrays
        return jsonable(v.tolist())
    if isinstance(v, _dt.datetime | _dt.date | _dt.time):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return jsonable(float(v))
    if isinstance(v, bytes | bytearray):
        return bytes(v).decode("utf-8", errors="replace")
    return str(v)
