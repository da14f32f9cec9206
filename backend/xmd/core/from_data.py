"""A classifier from labelled data: the class names read off the data, and the fine-tune of a base model.

One flow for every front end: ``xmd train``, the demo's baseline (:mod:`xmd.core.demo_story`) and a
project started from a CSV (``POST /api/projects/from-data`` and its job) all call
:func:`fine_tune_from`; the CLI and the API read the data with :func:`read_labelled`, so the classes a
model gets from a file do not depend on where the file was given.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from xmd.core.data_check import NA_LABELS, build_examples
from xmd.core.data_read import read_source
from xmd.core.modeling import is_classifier, load_model
from xmd.core.pipeline import RunResult, fine_tune
from xmd.core.retrain import ProgressCallback, TrainConfig, count_steps
from xmd.core.types import DataError, Example, ModelLoadError, Progress, TooLargeError, tick

FINE_TUNE_DEFAULTS: dict[str, Any] = {"epochs": 3, "lr": 5e-5}
"""A fine-tune of a base encoder (a fresh classifier head) needs more than a retrain: ``xmd train``'s and
the API's defaults over :class:`TrainConfig`'s."""

MAX_CLASSES = 50
"""The most classes a label column may hold: more is almost always a free-text column chosen by mistake."""


def class_names(values: Sequence[Any], *, given: Sequence[str] | None = None) -> list[str]:
    """The classes of a label column, in a stable order: integers (0, 1, …) numerically, names
    alphabetically (case-insensitively one class, spelt as first seen); empty and NA cells are skipped.
    ``given``: the names a ``datasets.ClassLabel`` column declares, kept as they are."""
    if given:
        return [str(x) for x in given]
    seen: dict[str, str] = {}
    for v in values:
        if v is None or isinstance(v, bool | dict | list) or (isinstance(v, float) and math.isnan(v)):
            continue
        name = _label_text(v)
        if not name or name.lower() in NA_LABELS:
            continue
        seen.setdefault(name.lower(), name)
    names = list(seen.values())
    if names and all(_is_int(n) for n in names):
        return sorted(names, key=int)
    return sorted(names, key=str.lower)


def _label_text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


def _as_name(v: Any) -> Any:
    """A number cell as the class name :func:`class_names` made of it (1 and 1.0 both "1"), else as it is."""
    if isinstance(v, bool) or not isinstance(v, int | float) or (isinstance(v, float) and not v.is_integer()):
        return v
    return _label_text(v)


def _is_int(name: str) -> bool:
    return name.lstrip("-").isdigit()


def read_labelled(
    source: str | os.PathLike,
    *,
    text_column: str = "text",
    label_column: str = "label",
    id_column: str | None = None,
    split: str = "train",
    max_chars: int | None = 20000,
    max_rows: int | None = None,
    max_classes: int = MAX_CLASSES,
) -> tuple[list[Example], list[str]]:
    """The examples of a labelled file and its class names (:func:`class_names`), for a model that does
    not have classes yet. DataError (422) when the label column is missing, holds one class only or too
    many, or any row is invalid (every problem at once, as :func:`xmd.core.data.load_examples`);
    TooLargeError (413) beyond ``max_rows`` rows."""
    cols, where = read_source(source, split=split, verbatim=(text_column, id_column, label_column))
    prefix = f"{where}: " if where else ""
    if label_column not in cols.data:
        raise DataError(
            f"{prefix}no label column {label_column!r} (columns: {', '.join(cols.names[:20])}); a fine-tune needs "
            "the gold label of every row"
        )
    if max_rows is not None and cols.n_rows > max_rows:
        raise TooLargeError(f"{prefix}{cols.n_rows:,} rows; a fine-tune here takes at most {max_rows:,}")
    raw = cols.data[label_column]
    names = class_names(raw, given=cols.class_names.get(label_column))
    if len(names) < 2:
        found = f"only the class {names[0]!r}" if names else "no label at all"
        raise DataError(f"{prefix}column {label_column!r} holds {found}; a classifier needs at least two classes")
    if len(names) > max_classes:
        raise DataError(
            f"{prefix}column {label_column!r} holds {len(names)} different values; a classifier here has at most "
            f"{max_classes} classes (is it the label column?)"
        )
    if not cols.class_names.get(label_column):  # numbers are matched by their text, as the names were made
        cols.data[label_column] = [_as_name(v) for v in raw]
    try:
        examples = build_examples(
            cols,
            text_column=text_column,
            label_column=label_column,
            id_column=id_column,
            labels=names,
            split=split,
            max_chars=max_chars,
            require_labels=True,
        )
    except DataError as exc:
        raise type(exc)(f"{prefix}{exc}") from None
    return examples, names


def fine_tune_from(
    base: str | os.PathLike,
    train: Sequence[Example],
    out_dir: str | os.PathLike,
    *,
    labels: list[str] | None,
    config: TrainConfig,
    eval_sets: dict[str, Sequence[Example]] | None = None,
    device: str = "auto",
    callback: ProgressCallback | None = None,
    on_phase: Callable[[str], Progress] | None = None,
    progress: bool = False,
    name: str | None = None,
) -> RunResult:
    """Load ``base`` with a head for ``labels`` (None: the model's own classes) and fine-tune it on
    ``train`` into ``out_dir`` (which appears whole or not at all). ``on_phase(name)`` is told when the
    ``"load"`` and ``"train"`` parts start (a hook answering False cancels); ``callback`` gets every step."""
    tick(on_phase("load") if on_phase else None, 0, 1)
    loaded = load_model(str(base), labels=labels, device=device, seed=config.seed)
    tick(on_phase("train") if on_phase else None, 0, count_steps(len(train), config))
    return fine_tune(
        loaded,
        train,
        Path(out_dir),
        config=config,
        eval_sets=eval_sets,
        callback=callback,
        progress=progress,
        name=name,
    )


def check_base(folder: str | os.PathLike, labels: Sequence[str]) -> None:
    """Before a fine-tune is queued, in milliseconds (its config only): ModelLoadError (422) when
    ``folder`` is not a model, or is a classifier with a different number of classes than ``labels``."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(str(folder))
    except Exception as exc:  # a missing or malformed config.json raises anything
        raise ModelLoadError(f"the base model has no usable config.json ({type(exc).__name__})") from None
    if is_classifier(config) and config.num_labels != len(labels):
        raise ModelLoadError(
            f"the base model is a classifier with {config.num_labels} classes, but the data has {len(labels)} "
            f"({', '.join(labels)}); start from an encoder without a classification head, or one with "
            f"{len(labels)} classes"
        )
