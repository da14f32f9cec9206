"""No raw Python exception text in any 4xx answer (issue 31: a malformed download link answered
``invalid literal for int() with base 10: '²'``). The walk sends odd values (a superscript digit, a
full-width digit, a float, a word, an overflow, half a JSON document) in every path and query parameter
of every route, as admin, on SQLite and PostgreSQL, and reads every 4xx body for the phrases Python and
its libraries put in their exceptions."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from apihelpers import Api

ODD = ["²", "１", "1.5", "1e309", "abc", "-1", "[", "1².2.x"]
RAW = re.compile(
    r"invalid literal for|could not convert|Traceback|object has no attribute|unsupported operand|"
    r"not subscriptable|unhashable type|NoneType|positional argument|errors\.pydantic\.dev|values to unpack|"
    r"Invalid isoformat|codec can't|index out of range|KeyError|math domain error|with base 10"
)


def _valid_path_values(api: Api, project: dict[str, Any]) -> dict[str, Any]:
    """Real ids for every path parameter, so each case reaches its route's own checks."""
    pid = project["id"]
    example = api.get(f"/api/datasets/{project['train']['id']}/examples?limit=1").json()["items"][0]
    version = api.get(f"/api/projects/{pid}/versions").json()["items"][0]
    viewer = next(u for u in api.get("/api/users").json()["items"] if u["name"] == "viewer-user")
    return {
        "project_id": pid,
        "dataset_id": project["clean"]["id"],
        "example_id": example["id"],
        "version_id": version["id"],
        "user_id": viewer["id"],
        "token_id": 1,
        "queue_id": 1,
        "job_id": "00000000-0000-0000-0000-000000000000",
        "name": "slice",
        "word": "great",
        "a": version["id"],
        "b": version["id"],
    }


def _cases(schema: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    out = []
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            if path == "/api/jobs/{job_id}/events" or method == "delete":
                continue  # a live stream never ends; deletes change what the next case sees
            out += [(method, path, p["name"], p["in"]) for p in op.get("parameters", [])]
    return out


def test_no_4xx_answer_carries_python_exception_text(api: Api, project):
    valid = _valid_path_values(api, project)
    cases = _cases(api.client.get("/openapi.json").json())
    assert len(cases) > 80
    seen, leaks = 0, []
    for method, path, name, where in cases:
        for value in ODD:
            params = {k: v for k, v in valid.items() if "{" + k + "}" in path}
            query: dict[str, Any] = {}
            (params if where == "path" else query)[name] = value
            url = path.format(**{k: quote(str(v), safe="") for k, v in params.items()})
            body = {} if method in ("post", "put", "patch") else None
            r = api.client.request(method.upper(), url, params=query, headers=api.h("admin"), json=body)
            if 400 <= r.status_code < 500:
                seen += 1
                if RAW.search(r.text):
                    leaks.append(f"{method.upper()} {path} {name}={value!r} -> {r.status_code}: {r.text[:200]}")
    assert seen > 300
    assert not leaks, f"{len(leaks)} answers carry exception text:\n" + "\n".join(leaks[:20])


def test_a_malformed_download_link_says_what_is_wrong(api: Api, project):
    vid = project["base_version_id"]
    for link in ("1².9999999999.abc", "１.2.x", "a.b.c", "1.2"):
        r = api.client.get(f"/api/versions/{vid}/download", params={"link": link})
        assert 400 <= r.status_code < 500, r.text
        assert not RAW.search(r.text) and r.json()["detail"], r.text
