"""Every bad input answers 4xx with a message and changes nothing (issue 13: 132 probes got a 500).

The walk over the OpenAPI schema fires the issue's values at every integer and string parameter of
every route, with the fixture's real ids elsewhere, as admin, on SQLite and on PostgreSQL; the
other tests send the issue's bodies and uploads. A 500 left is a bug: it carries a request id.
"""

from __future__ import annotations

import io
import json
import logging
import re
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from apihelpers import Api, demo_csv
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.exc import DataError as SQLDataError
from xmd.app import create_app
from xmd.datasets.models import Dataset, Example
from xmd.feedback.models import Feedback
from xmd.projects.models import Project

BIG_INTS = [2**31, 2**63, 2**64]
NUL = "a\x00b"


def _valid_path_values(api: Api, project: dict[str, Any]) -> dict[str, Any]:
    pid = project["id"]
    examples = api.get(f"/api/datasets/{project['train']['id']}/examples?limit=1").json()["items"]
    version = api.get(f"/api/projects/{pid}/versions").json()["items"][0]
    users = api.get("/api/users").json()["items"]
    viewer = next(u for u in users if u["name"] == "viewer-user")
    return {
        "project_id": pid,
        "dataset_id": project["clean"]["id"],
        "example_id": examples[0]["id"],
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


def _cases(schema: dict[str, Any]) -> list[tuple[str, str, str, str, Any]]:
    """(method, path, parameter, where, bad value) for every integer and string parameter."""
    out = []
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            if path == "/api/jobs/{job_id}/events" or method == "delete":
                continue  # a live stream never ends; deletes are probed by the fuzz
            for p in op.get("parameters", []):
                s = p["schema"]
                kinds = {s.get("type")} | {x.get("type") for x in s.get("anyOf", [])}
                if "integer" in kinds:
                    out += [(method, path, p["name"], p["in"], v) for v in BIG_INTS]
                if "string" in kinds and p["name"] not in ("token", "link"):
                    out.append((method, path, p["name"], p["in"], NUL))
    return out


def test_huge_integers_and_nul_bytes_in_any_parameter_are_4xx(api: Api, project, db):
    schema = api.client.get("/openapi.json").json()
    valid = _valid_path_values(api, project)
    cases = _cases(schema)
    assert len(cases) > 100
    before = _counts(db)
    failures = []
    for method, path, name, where, value in cases:
        params = {k: v for k, v in valid.items() if "{" + k + "}" in path}
        query: dict[str, Any] = {}
        if where == "path":
            params[name] = value
        else:
            query[name] = value
        if path.endswith("/compare"):
            query = {"a": valid["a"], "b": valid["b"], **query}
        url = path.format(**{k: quote(str(v), safe="") for k, v in params.items()})
        body = {} if method in ("post", "put", "patch") else None
        r = api.client.request(method.upper(), url, params=query, headers=api.h("admin"), json=body)
        if not 400 <= r.status_code < 500 or not r.json().get("detail"):
            failures.append(f"{method.upper()} {path} {name}={value!r} -> {r.status_code}: {r.text[:200]}")
    assert not failures, f"{len(failures)} of {len(cases)}:\n" + "\n".join(failures[:30])
    assert _counts(db) == before


def _counts(db) -> tuple[int, ...]:
    db.expire_all()
    return tuple(db.scalar(select(func.count()).select_from(t)) for t in (Project, Dataset, Example, Feedback))


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("post", "/api/projects/{pid}/jobs/evaluate", {"version_id": 2**63}),
        ("post", "/api/projects/{pid}/jobs/explain", {"dataset_id": 2**31}),
        ("post", "/api/projects/{pid}/jobs/retrain", {"train_dataset_ids": [2**64]}),
        ("put", "/api/examples/{eid}/feedback", {"word_index": 2**63, "action": "remove"}),
        ("put", "/api/projects/{pid}/task-feedback", {"word": NUL, "action": "remove"}),
        ("put", "/api/projects/{pid}/task-feedback", {"word": "great", "action": "remove", "label": 2**63}),
        ("post", "/api/projects/{pid}/slices", {"name": NUL, "filters": {}}),
        ("post", "/api/projects/{pid}/slices", {"name": "s", "dataset_id": 2**40}),
        ("post", "/api/projects/{pid}/feedback/import", {"dataset_id": 2**63, "feedback": {}}),
        ("post", "/api/projects/{pid}/feedback/import", {"dataset_id": "{did}", "feedback": {"task": [{"word": NUL}]}}),
        ("post", "/api/projects", {"name": NUL, "model_path": "x"}),
        ("post", "/api/users", {"name": "x", "expires_in_days": 2**63}),
    ],
)
def test_bad_bodies_are_4xx_and_change_nothing(api: Api, project, db, method: str, url: str, body: dict):
    eid = api.get(f"/api/datasets/{project['train']['id']}/examples?limit=1").json()["items"][0]["id"]
    body = json.loads(json.dumps(body).replace('"{did}"', str(project["train"]["id"])))
    before = _counts(db)
    r = api.client.request(method.upper(), url.format(pid=project["id"], eid=eid), headers=api.h("admin"), json=body)
    assert 400 <= r.status_code < 500, r.text
    assert r.json()["detail"]
    assert _counts(db) == before


def _upload(api: Api, project: dict, filename: str, content: bytes, **data: str):
    return api.post(
        f"/api/projects/{project['id']}/datasets",
        files={"file": (filename, content, "application/octet-stream")},
        data={"role": "eval", "id_column": "id", **data},
    )


def test_bad_uploads_are_4xx_with_what_is_wrong(api: Api, project, db):
    before = _counts(db)
    csv = demo_csv(n=8, seed=3).decode()
    nul_row = csv.replace("\n", "\nzz,hello\x00there,positive\n", 1).encode()
    r = _upload(api, project, "nul.csv", nul_row, name="nul")
    assert r.status_code == 422 and "NUL" in r.json()["detail"], r.text
    long_id = csv.replace("\n", "\n" + "i" * 201 + ",a fine text,positive\n", 1).encode()
    r = _upload(api, project, "longid.csv", long_id, name="longid")
    assert r.status_code == 422 and "200 characters" in r.json()["detail"], r.text
    r = _upload(api, project, "s" * 201 + ".csv", demo_csv(n=8, seed=4))
    assert r.status_code == 422 and "dataset name" in r.json()["detail"], r.text
    r = _upload(api, project, "f" * 1001 + ".csv", demo_csv(n=8, seed=5), name="ok-name")
    assert r.status_code == 422 and "file name" in r.json()["detail"], r.text
    deep = ("[" * 100_000 + "]" * 100_000).encode()
    r = _upload(api, project, "deep.json", deep, name="deep")
    assert r.status_code == 422 and "nested too deeply" in r.json()["detail"], r.text
    deep_line = ('{"id": "1", "text": ' + "[" * 100_000 + "]" * 100_000 + "}\n").encode()
    r = _upload(api, project, "deep.jsonl", deep_line, name="deepl")
    assert r.status_code == 422 and "nested too deeply" in r.json()["detail"], r.text
    assert _counts(db) == before


def test_a_deeply_nested_json_body_is_4xx(api: Api, project, db):
    body = '{"dataset_id": 1, "feedback": ' + "[" * 100_000 + "]" * 100_000 + "}"
    before = _counts(db)
    r = api.client.post(
        f"/api/projects/{project['id']}/feedback/import",
        content=body,
        headers={**api.h(), "Content-Type": "application/json"},
    )
    assert r.status_code == 422 and "nested too deeply" in r.json()["detail"], r.text
    assert _counts(db) == before


def _archive(model: Path, replace: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for f in model.iterdir():
            if f.name not in replace:
                zf.write(f, f"m/{f.name}")
        for name, data in replace.items():
            zf.writestr(f"m/{name}", data)
    return buf.getvalue()


@pytest.mark.parametrize(
    "damage",
    [
        {"model.safetensors": b"\x08\x00\x00\x00\x00\x00\x00\x00{not json"},  # SafetensorError
        {"model.safetensors": b"", "pytorch_model.bin": b"\x80\x04garbage"},  # no usable weights file
        {"config.json": b'{"model_type": "bert", "hidden_size": "wide"}'},  # a config that breaks the model
    ],
    ids=["safetensors", "pickle", "config"],
)
def test_model_archives_that_fail_to_load_are_422(api: Api, tiny_model_dir: Path, db, damage: dict[str, bytes]):
    data = {k: v for k, v in damage.items() if v}
    archive = _archive(tiny_model_dir, data)
    if "pytorch_model.bin" in damage:  # drop the safetensors file so the pickle is what gets loaded
        buf = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(archive)) as src, zipfile.ZipFile(buf, "w") as dst:
            for item in src.infolist():
                if not item.filename.endswith("model.safetensors"):
                    dst.writestr(item, src.read(item))
        archive = buf.getvalue()
    before = _counts(db)
    r = api.post(
        "/api/projects/upload",
        files={"archive": ("m.zip", archive, "application/zip")},
        data={"name": "damaged", "labels": "negative,positive"},
    )
    assert r.status_code == 422, r.text
    assert "could not load" in r.json()["detail"]
    assert str(api.settings.uploads_dir) not in r.text
    assert _counts(db) == before


def test_a_server_error_is_logged_with_the_request_id_the_body_carries(engine, settings, caplog):
    """A 500 is a bug: its log line and its answer share one id (also the X-Request-ID header)."""
    app = create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)

    @app.get("/api/test-bug")
    def bug() -> None:
        raise RuntimeError("a planted bug")

    @app.get("/api/test-data-error")
    def refused() -> None:  # what PostgreSQL raises for a value out of its column's range
        raise SQLDataError("SELECT secret_statement", {}, Exception("integer out of range"))

    with TestClient(app, raise_server_exceptions=False) as client, caplog.at_level(logging.ERROR, "xmd.http"):
        r = client.get("/api/test-bug")
        ok = client.get("/api/health", headers={"X-Request-ID": "client-chosen.1"})
        refused = client.get("/api/test-data-error")
    assert r.status_code == 500
    rid = r.json()["request_id"]
    assert re.fullmatch(r"[0-9a-f]{32}", rid) and r.headers["X-Request-ID"] == rid and rid in r.json()["detail"]
    assert "a planted bug" not in r.text
    logged = [rec for rec in caplog.records if rid in rec.getMessage()]
    assert logged and logged[0].exc_info is not None
    assert ok.headers["X-Request-ID"] == "client-chosen.1"
    assert refused.status_code == 422 and "does not fit" in refused.json()["detail"]
    assert "secret_statement" not in refused.text and refused.headers["X-Request-ID"] == refused.json()["request_id"]


def _raw_post(app: Any, headers: list[tuple[bytes, bytes]]) -> tuple[int, dict[str, str], dict[str, Any]]:
    """POST straight through the ASGI app with these exact headers (an HTTP client would fix them up)."""
    import asyncio

    scope = {"type": "http", "method": "POST", "path": "/api/projects", "raw_path": b"/api/projects"}
    scope.update(query_string=b"", headers=headers, http_version="1.1", scheme="http", server=("t", 80))
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, json.loads(body)


def test_a_body_announced_too_large_or_with_a_bad_length_is_refused_unread(api: Api):
    status, _, body = _raw_post(api.client.app, [(b"content-length", b"12x")])
    assert (status, body) == (400, {"detail": "invalid Content-Length header"})
    status, headers, body = _raw_post(api.client.app, [(b"content-length", str(10 << 20).encode())])
    assert status == 413 and body["detail"] == "the request is larger than the limit of 2 MB (XMD_MAX_UPLOAD_MB)"
    assert headers["content-type"] == "application/json"


def test_every_answer_carries_a_request_id(api: Api):
    mine = api.client.get("/api/projects", headers={**api.h(), "X-Request-ID": "client-chosen.2"})
    assert mine.status_code == 200 and mine.headers["X-Request-ID"] == "client-chosen.2"
    new = api.client.get("/api/projects", headers={**api.h(), "X-Request-ID": "no spaces allowed"})
    assert re.fullmatch(r"[0-9a-f]{32}", new.headers["X-Request-ID"])
    missing = api.get("/api/projects/999999")
    assert missing.status_code == 404 and missing.json()["request_id"] == missing.headers["X-Request-ID"]
