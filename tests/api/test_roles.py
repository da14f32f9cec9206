"""Every route x every role, on SQLite and PostgreSQL.

The matrix is built from the app's own routes, so a new route without a role check fails here.
"""

from __future__ import annotations

import re
from typing import Any

from apihelpers import Api
from fastapi.routing import APIRoute
from xmd.http.deps import RANK, current_user, user_from_token
from xmd.jobs import service as jobs_service
from xmd.users.models import Role

PUBLIC = {"/api/health"}


def required_role(route: APIRoute) -> Role | None:
    """The role a route's dependencies demand (viewer for plain authentication), None if public."""
    found: list[Role] = []

    def walk(dep: Any) -> None:
        call = dep.call
        if getattr(call, "required_role", None) is not None:
            found.append(call.required_role)
        elif call in (current_user, user_from_token):
            found.append(Role.VIEWER)
        for sub in dep.dependencies:
            walk(sub)

    walk(route.dependant)
    return max(found, key=lambda r: RANK[r]) if found else None


def api_routes(routes: list[Any]) -> list[APIRoute]:
    """APIRoutes of an app, including those of included routers (FastAPI >= 0.165 wraps them)."""
    out: list[APIRoute] = []
    for r in routes:
        if isinstance(r, APIRoute):
            out.append(r)
        elif hasattr(r, "original_router"):
            out.extend(api_routes(r.original_router.routes))
    return out


def _order(item: tuple[str, str, APIRoute]) -> tuple[int, str]:
    method, path, _ = item
    if method == "DELETE":
        return (2 if path == "/api/projects/{project_id}" else 1, path)
    return (0, path)


SELF_AUTHENTICATED = {"/api/jobs/{job_id}/events": Role.VIEWER}
"""Routes that check the token by hand: the event stream authenticates in a session of its own, closed
before the stream starts, so an open stream holds no pool connection (a dependency would hold one)."""


def test_every_route_checks_its_role(api: Api, project, db, session_factory):
    app = api.client.app
    ex = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": 1}).json()["items"][0]
    api.post(f"/api/projects/{project['id']}/slices", json={"name": "s", "filters": {}})
    job = jobs_service.create(db_session=db, kind="evaluate", project_id=project["id"])
    jobs_service.mark_running(db_session=db, job_id=job.id)
    jobs_service.finish(db_session=db, job_id=job.id)
    ids = {
        "project_id": project["id"],
        "dataset_id": project["clean"]["id"],
        "example_id": ex["id"],
        "version_id": project["base_version_id"],
        "job_id": job.id,
        "user_id": 1,
        "token_id": 999999,  # not the admin's own token: revoking that would end the walk
        "word": "spielberg",
        "name": "s",
        "queue_id": 999999,
    }
    routes = [
        (m, r.path, r)
        for r in api_routes(app.routes)
        if r.path.startswith("/api")
        for m in sorted(r.methods - {"HEAD", "OPTIONS"})
    ]
    assert len(routes) >= 37
    checked = 0
    for method, path, route in sorted(routes, key=_order):
        need = required_role(route) or SELF_AUTHENTICATED.get(path)
        if path in PUBLIC:
            assert need is None
            continue
        assert need is not None, f"{method} {path} has no role check"
        url = re.sub(r"\{(\w+)(:path)?\}", lambda m: str(ids[m.group(1)]), path)
        params = {"a": ids["version_id"], "b": ids["version_id"]} if path.endswith("/compare") else None
        r = api.client.request(method, url, params=params, json={} if method in ("POST", "PUT") else None)
        assert r.status_code == 401, (method, path, r.status_code)
        for role in (Role.VIEWER, Role.ANNOTATOR, Role.REVIEWER, Role.ADMIN):
            r = api.client.request(
                method, url, headers=api.h(role.value), params=params, json={} if method in ("POST", "PUT") else None
            )
            if RANK[role] < RANK[need]:
                assert r.status_code == 403, (method, path, role, r.status_code, r.text)
                assert need.value in r.json()["detail"]
            else:
                assert r.status_code not in (401, 403, 500), (method, path, role, r.status_code, r.text)
            checked += 1
    assert checked >= 3 * 36
