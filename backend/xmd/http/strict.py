"""Booleans are not numbers: ``{"word_index": true}`` must not be read as 1.

Pydantic's lax mode turns ``true`` into ``1`` for an ``int`` field (and ``1.0`` for a ``float``); its
strict mode would also refuse the strings that enum and datetime fields take from JSON, since FastAPI
validates the decoded body as Python objects. So the check is this one app-wide dependency: it reads
the route's body model and answers 422, naming the field, when a JSON ``true``/``false`` stands where
the model wants a number (nested models, lists and optional numbers included). One place, so every
request schema, present and future, gets it.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Union

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel

_NUMBERS = (int, float)


def _args(annotation: Any) -> tuple[Any, ...]:
    """The members of a union (``X | None`` included), else the annotation itself."""
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        return tuple(a for a in typing.get_args(annotation) if a is not type(None))
    if origin is typing.Annotated:
        return _args(typing.get_args(annotation)[0])
    return (annotation,)


def _is_number(annotation: Any) -> bool:
    members = _args(annotation)
    return bool(members) and all(isinstance(m, type) and issubclass(m, _NUMBERS) and m is not bool for m in members)


def bool_paths(annotation: Any, value: Any, where: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Where in ``value`` a boolean stands for a number that ``annotation`` (a model, list, dict or
    number type) wants."""
    if isinstance(value, bool):
        return [where] if _is_number(annotation) else []
    found: list[tuple[str | int, ...]] = []
    for member in _args(annotation):
        origin = typing.get_origin(member)
        if isinstance(member, type) and issubclass(member, BaseModel) and isinstance(value, dict):
            for name, field in member.model_fields.items():
                key = field.alias or name
                if key in value:
                    found += bool_paths(field.annotation, value[key], (*where, key))
        elif origin in (list, tuple, set, frozenset) and isinstance(value, list):
            args = typing.get_args(member)
            for i, item in enumerate(value):
                item_type = args[i] if origin is tuple and len(args) > i and args[-1] is not Ellipsis else args[0]
                found += bool_paths(item_type, item, (*where, i)) if args else []
        elif origin is dict and isinstance(value, dict) and len(typing.get_args(member)) == 2:
            for k, item in value.items():
                found += bool_paths(typing.get_args(member)[1], item, (*where, k))
    return found


async def refuse_bool_numbers(request: Request) -> None:
    """App-wide dependency: 422 for a JSON boolean where the route's body wants a number."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or route.body_field is None:
        return
    if not request.headers.get("content-type", "").split(";")[0].strip().lower().endswith("json"):
        return
    try:
        body = await request.json()
    except ValueError:
        return  # not JSON: FastAPI's own validation answers
    paths = bool_paths(route.body_field.field_info.annotation, body)
    if paths:
        raise RequestValidationError(
            [
                {
                    "type": "number_type",
                    "loc": ("body", *p),
                    "msg": "a number is required here, not true or false",
                    "input": True,
                }
                for p in paths
            ]
        )
