"""Settings dataclasses as the one definition of a job's options: the CLI's flags, the API's request
schema and the worker's configuration are all read off the dataclass fields.

A field declares its default, and in its ``metadata`` (built with :func:`opt`) a help text, bounds and
choices. :func:`options` lists them; :func:`add_arguments` turns them into ``argparse`` flags;
:func:`build` makes the dataclass from a mapping (a job's stored parameters, parsed CLI arguments),
keeping the defaults for what the mapping leaves out and ignoring keys it has no field for (a setting
removed since the job was stored). ``xmd.jobs.schemas`` builds the Pydantic model from the same list, so
a field added to :class:`~xmd.core.retrain.settings.TrainConfig` or
:class:`~xmd.core.retrain.settings.ERConfig` reaches ``xmd debug``, ``POST …/jobs/retrain`` (and its
OpenAPI schema) and the retrain worker with no other edit. A settings class derived from
:class:`Settings` is checked against the same bounds when it is built (:func:`check`), so the library
refuses what the API and the CLI refuse, and no class re-states a bound by hand.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def opt(
    help: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    choices: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """Field metadata: what the option means (shown by ``--help`` and in the API docs) and its bounds."""
    return {"help": help, "ge": ge, "gt": gt, "le": le, "choices": tuple(choices) if choices else None}


def redefault(cls: type, name: str, default: Any) -> Any:
    """A field of a subclass that keeps ``cls``'s field ``name`` (help, bounds) with another default."""
    return dataclasses.field(default=default, metadata=cls.__dataclass_fields__[name].metadata)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Option:
    """One field of a settings dataclass, as every front end sees it."""

    name: str
    type: type
    default: Any
    help: str
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    choices: tuple[Any, ...] | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def flag_bool(self) -> bool:
        """A ``bool`` field, or a ``bool | None`` one whose None lets the worker decide (auto)."""
        return self.type is bool or self.type == (bool | None)

    @property
    def many(self) -> bool:
        """A ``tuple[str, ...]`` field: several of ``choices`` (comma-separated on the command line)."""
        return typing.get_origin(self.type) is tuple


def options(*classes: type) -> list[Option]:
    """The options of ``classes`` in field order; a name may appear in only one of them."""
    out: list[Option] = []
    seen: dict[str, type] = {}
    for cls in classes:
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if f.name in seen:
                raise TypeError(f"option {f.name!r} is defined by both {seen[f.name].__name__} and {cls.__name__}")
            seen[f.name] = cls
            meta = dict(f.metadata)
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
            out.append(
                Option(
                    name=f.name,
                    type=hints[f.name],
                    default=default,
                    help=meta.get("help") or f.name.replace("_", " "),
                    ge=meta.get("ge"),
                    gt=meta.get("gt"),
                    le=meta.get("le"),
                    choices=meta.get("choices"),
                )
            )
    return out


@functools.cache
def _options_of(cls: type) -> tuple[Option, ...]:
    return tuple(options(cls))


def problem(o: Option, value: Any) -> str | None:
    """Why ``value`` breaks ``o``'s bounds or choices (None: it does not). ``None`` is left to the default's
    meaning (auto) and booleans have no bounds."""
    if value is None or isinstance(value, bool):
        return None
    if o.many:
        items = tuple(value)
        if any(o.choices and x not in o.choices for x in items) or len(set(items)) != len(items):
            return f"must be distinct names from {o.choices}, got {list(items)}"
        return None
    if o.choices is not None:
        return None if value in o.choices else f"must be one of {o.choices}, got {value!r}"
    if isinstance(value, int | float):
        if o.ge is not None and value < o.ge:
            return f"must be >= {o.ge}, got {value}"
        if o.gt is not None and value <= o.gt:
            return f"must be > {o.gt}, got {value}"
        if o.le is not None and value > o.le:
            return f"must be <= {o.le}, got {value}"
    return None


def check(obj: Any) -> None:
    """ValueError naming the first field of the settings dataclass ``obj`` outside its metadata's bounds
    or choices: the same rule the API's schema and the CLI's flags apply."""
    for o in _options_of(type(obj)):
        why = problem(o, getattr(obj, o.name))
        if why:
            raise ValueError(f"{o.name} {why}")


class Settings:
    """Base of a settings dataclass: checked once, when it is built (:func:`check` against the field
    metadata, then :meth:`rules`), so whoever holds one holds a valid one."""

    def __post_init__(self) -> None:
        check(self)
        self.rules()

    def rules(self) -> None:
        """Cross-field rules (ValueError); a single field's bounds belong in its metadata. None by default."""


def _bounded(o: Option) -> Any:
    """An argparse ``type`` that converts and checks the bounds, so the CLI refuses what the API refuses."""

    def several(text: str) -> tuple[str, ...]:
        items = tuple(x.strip() for x in text.split(",") if x.strip())
        bad = [x for x in items if o.choices and x not in o.choices]
        if bad or len(set(items)) != len(items):
            raise argparse.ArgumentTypeError(
                f"{text!r}: give distinct names from {', '.join(map(str, o.choices or ()))}"
            )
        return items

    if o.many:
        several.__name__ = "list"
        return several

    def convert(text: str) -> Any:
        value = o.type(text)
        if (
            (o.ge is not None and value < o.ge)
            or (o.gt is not None and value <= o.gt)
            or (o.le is not None and value > o.le)
        ):
            low = f">= {o.ge}" if o.ge is not None else f"> {o.gt}" if o.gt is not None else ""
            high = f"<= {o.le}" if o.le is not None else ""
            raise argparse.ArgumentTypeError(f"{text} is out of range ({' and '.join(x for x in (low, high) if x)})")
        return value

    convert.__name__ = o.type.__name__  # argparse names the type in its error messages
    return convert


def add_arguments(
    parser: argparse.ArgumentParser, *classes: type, defaults: Mapping[str, Any] | None = None
) -> list[Option]:
    """Add a ``--flag`` per option of ``classes`` (booleans as ``--x/--no-x``); ``defaults`` overrides
    a default for this command only. Returns the options added."""
    opts = options(*classes)
    for o in opts:
        default = (defaults or {}).get(o.name, o.default)
        if o.flag_bool:  # --x / --no-x; neither keeps the default (None: auto)
            parser.add_argument(o.flag, action=argparse.BooleanOptionalAction, default=default, help=o.help)
        else:
            shown = ",".join(default) if o.many else default
            parser.add_argument(
                o.flag,
                type=_bounded(o),
                default=default,
                choices=None if o.many else o.choices,
                help=f"{o.help} (default: {shown or 'none'})",
            )
    return opts


def build(cls: type[T], values: Mapping[str, Any] | argparse.Namespace) -> T:
    """``cls`` from the values it has fields for (missing or None keep the defaults; other keys, such as a
    setting removed since a job was stored, are ignored), checked as it is built (:class:`Settings`)."""
    if isinstance(values, argparse.Namespace):
        values = vars(values)
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    kept = {k: v for k, v in values.items() if k in fields and v is not None}
    kept = {k: tuple(v) if isinstance(v, list) else v for k, v in kept.items()}  # JSON lists of tuple fields
    return cls(**kept)
