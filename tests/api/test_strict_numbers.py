"""Booleans are not numbers (issue 31): ``{"word_index": true}`` was read as 1 and wrote a feedback
event. Every numeric field of every JSON request body now answers 422 naming the field, on SQLite and
PostgreSQL, and nothing is written."""

from __future__ import annotations

import re

from apihelpers import Api
from fastapi.routing import APIRoute
from pydantic import BaseModel
from sqlalchemy import func, select
from xmd.feedback.models import FeedbackEvent
from xmd.http.strict import bool_paths


def test_a_boolean_word_index_is_refused_and_writes_nothing(api: Api, project, db):
    ex = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": 1}).json()["items"][0]
    for value in (True, False):
        r = api.put(f"/api/examples/{ex['id']}/feedback", role="annotator", json={"word_index": value, "action": "add"})
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["loc"] == ["body", "word_index"] and "not true or false" in r.text
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(FeedbackEvent)) == 0
    r = api.put(f"/api/examples/{ex['id']}/feedback", role="annotator", json={"word_index": 1, "action": "add"})
    assert r.status_code == 200, r.text  # a number still is one


def _numeric_fields(model: type[BaseModel]) -> list[str]:
    return [f.alias or n for n, f in model.model_fields.items() if bool_paths(f.annotation, True)]


def _routes(routes: list) -> list[APIRoute]:
    """Every APIRoute, also those of included routers (FastAPI keeps them nested)."""
    out = []
    for route in routes:
        if isinstance(route, APIRoute):
            out.append(route)
        elif hasattr(route, "original_router"):
            out += _routes(route.original_router.routes)
    return out


def test_every_numeric_body_field_refuses_booleans(api: Api, project):
    walked = []
    for route in _routes(api.client.app.routes):
        if route.body_field is None:
            continue
        model = route.body_field.field_info.annotation
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            continue
        url = re.sub(r"\{[^}]+\}", "1", route.path)
        for name in _numeric_fields(model):
            for method in route.methods:
                r = api.client.request(method, url, headers=api.h("admin"), json={name: True})
                assert r.status_code == 422, (method, url, name, r.text)
                assert ["body", name] in [e["loc"] for e in r.json()["detail"]], (method, url, name, r.text)
                walked.append((method, route.path, name))
    assert len(walked) >= 15, walked  # feedback, explain, retrain, evaluate, users, imports...
    assert ("PUT", "/api/examples/{example_id}/feedback", "word_index") in walked


def test_the_walk_sees_numbers_in_lists_and_options():
    from typing import Annotated

    from pydantic import Field

    class Inner(BaseModel):
        n: float | None = None

    class Body(BaseModel):
        ids: list[Annotated[int, Field(ge=1)]] = []
        inner: Inner | None = None
        flag: bool = False
        either: int | str = 0

    body = {"ids": [1, True], "inner": {"n": False}, "flag": True, "either": True}
    assert bool_paths(Body, body) == [("ids", 1), ("inner", "n")]
