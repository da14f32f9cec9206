"""Pydantic fields read off the core's settings dataclasses, for the request bodies that carry settings
(``RetrainIn``, a project's recipe): one definition of each setting (:mod:`xmd.core.options`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from xmd.core.options import options


def settings_fields(*classes: type) -> dict[str, Any]:
    """Pydantic field definitions read off settings dataclasses (type, default, bounds, choices, help)."""
    fields: dict[str, Any] = {}
    for o in options(*classes):
        kind: Any = Literal[o.choices] if o.choices else o.type  # type: ignore[valid-type]
        if o.many:  # several of the choices: a JSON list of distinct names
            kind = list[Literal[o.choices]] if o.choices else list[str]  # type: ignore[valid-type]
            field = Field(default=list(o.default), description=o.help, json_schema_extra={"uniqueItems": True})
        else:
            field = Field(default=o.default, ge=o.ge, gt=o.gt, le=o.le, description=o.help)
        fields[o.name] = (kind, field)
    return fields
