"""A schemathesis run over the OpenAPI schema: schema-valid and invalid requests, never a 5xx.

On SQLite and on PostgreSQL (the dbfixtures parametrisation), as each role: a viewer's, an annotator's and
a reviewer's requests (the review routes of issue 32) stop at other checks than an admin's, so each walks
different code. The
examples per operation are few by default to keep the suite fast; a deep pass
(``XMD_FUZZ_EXAMPLES=200 pytest tests/api/test_fuzz.py``) reaches rarer inputs (integers past 2³¹,
NUL bytes), which test_bad_input.py also fires at every parameter deterministically.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from apihelpers import Api
from hypothesis import HealthCheck, given, settings

MAX_EXAMPLES = int(os.environ.get("XMD_FUZZ_EXAMPLES", "5"))


@pytest.mark.parametrize("role", ["viewer", "annotator", "reviewer", "admin"])
def test_no_server_errors(api: Api, project, role: str):
    """Every operation, schema-valid and invalid inputs alike, answers 2xx/4xx, never 5xx (a Hub id
    answers 422: HF_HUB_OFFLINE=1, no Hub is reachable here). Hypothesis drives schemathesis'
    strategies directly (its pytest plugin does not support this pytest)."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", api.client.app)
    headers = api.h(role)
    failures: list[str] = []
    n_ops = 0
    statuses: list[int] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        n_ops += 1

        @given(case=operation.as_strategy())
        @settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
        def check(case) -> None:
            if case.path == "/api/jobs/{job_id}/events":
                case.query = {**(case.query or {}), "token": "xmd_invalid"}  # a live stream would never end
            # the role's token wins over a generated Authorization header, or every case stops at 401
            response = case.call(headers={**(case.headers or {}), **headers})
            statuses.append(response.status_code)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text[:300]}")

        check()
    assert n_ops >= 37 and len(statuses) >= 2 * n_ops
    assert any(200 <= s < 300 for s in statuses) and any(400 <= s < 500 for s in statuses)
    if role == "viewer":
        assert 403 in statuses  # the viewer's writes were refused, so the walk did reach the role checks
    assert not failures, "\n".join(failures[:20])
