"""Answer a route with the model it built, as JSON, without FastAPI validating it a second time.

Why: FastAPI validates a sync route's return value against its ``response_model`` again, in its thread
pool: one more hand-off between the event loop and a worker thread, and a second validation of every row,
though the route has just built that very model. The hot routes (a feedback click, an explanation, the
words page) answer with :func:`json_of` instead; their ``response_model`` still documents the answer (the
OpenAPI schema, the UI's generated types), and tests/api/test_route_cost.py parses their answers with it.
"""

from __future__ import annotations

from fastapi import Response
from pydantic import BaseModel


def json_of(model: BaseModel) -> Response:
    """``model`` as the JSON body FastAPI would have sent for it (field aliases, every field)."""
    return Response(model.model_dump_json(by_alias=True), media_type="application/json")
