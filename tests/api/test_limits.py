"""Bounded work per request (issue 13, availability): a catastrophic regex search cannot stall the
service, a PostgreSQL statement cannot outlive its budget, and one user cannot run unbounded parallel
regex searches. Every test runs on SQLite and on PostgreSQL (see dbfixtures)."""

from __future__ import annotations

import csv
import io
import threading
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
from apihelpers import Api, make_settings, start_server
from fastapi import Depends
from fastapi.testclient import TestClient
from sqlalchemy import text
from xmd.app import create_app
from xmd.db.engine import make_engine
from xmd.http.deps import get_db

ROOT = Path(__file__).resolve().parents[2]
CATASTROPHIC = (r"^(\w+\s?)*!$", r"(a{1,100}){1,100}")


def _words_csv(n: int = 400) -> bytes:
    """Rows of long single words without '!': exponential backtracking for ``^(\\w+\\s?)*!$`` in Python re."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "text", "label"])
    for i in range(n):
        w.writerow([f"w{i}", "a" * (28 + i % 8), ["negative", "positive"][i % 2]])
    return buf.getvalue().encode()


def test_catastrophic_regex_does_not_stall_other_requests(api: Api, project: dict[str, Any], db_url: str, tmp_path):
    r = api.post(
        f"/api/projects/{project['id']}/datasets",
        files={"file": ("words.csv", _words_csv(), "text/csv")},
        data={"name": "words", "role": "train", "id_column": "id"},
    )
    assert r.status_code == 201, r.text
    ds_id = r.json()["id"]
    proc, base = start_server(db_url, api.settings.data_dir, tmp_path / "api.log")
    try:
        answers: dict[str, httpx.Response | Exception] = {}

        def search(pattern: str) -> None:
            try:
                answers[pattern] = httpx.get(
                    f"{base}/api/datasets/{ds_id}/examples",
                    params={"regex": pattern},
                    headers=api.h("viewer"),
                    timeout=20,
                )
            except Exception as e:  # the search hanging is what the test reports
                answers[pattern] = e

        threads = [threading.Thread(target=search, args=(p,), daemon=True) for p in CATASTROPHIC]
        for t in threads:
            t.start()
        slow: list[str] = []
        for _ in range(5):  # while the searches run (or after they are refused), the others are answered
            for url, role in (("/api/health", None), (f"/api/projects/{project['id']}", "annotator")):
                start = time.perf_counter()
                try:
                    resp = httpx.get(base + url, headers=api.h(role) if role else {}, timeout=1.0)
                    assert resp.status_code == 200, resp.text
                except httpx.TimeoutException:
                    slow.append(url)
                assert time.perf_counter() - start < 1.0 or url in slow
            time.sleep(0.1)
        assert not slow, f"requests took over 1 s during a regex search: {slow}"
        for t in threads:
            t.join(20)
        backtracking, repetition = (answers.get(p) for p in CATASTROPHIC)
        assert isinstance(backtracking, httpx.Response), backtracking
        assert backtracking.status_code == 200 and backtracking.json()["total"] == 0, backtracking.text
        assert isinstance(repetition, httpx.Response), repetition
        assert repetition.status_code == 400, repetition.text
        assert "invalid repetition size" in repetition.json()["detail"]
        # a pattern RE2 cannot match in linear time is refused with why, a plain one still works
        r = httpx.get(f"{base}/api/datasets/{ds_id}/examples", params={"regex": r"(a)\1"}, headers=api.h("viewer"))
        assert r.status_code == 400 and "backreferences" in r.json()["detail"], r.text
        r = httpx.get(f"{base}/api/datasets/{ds_id}/examples", params={"regex": r"^A{35}$"}, headers=api.h("viewer"))
        assert r.status_code == 200 and r.json()["total"] == 50, r.text
    finally:
        proc.kill()
        proc.wait(10)


def test_regex_searches_per_user_are_limited(api: Api, project: dict[str, Any]):
    app = api.client.app
    url = f"/api/datasets/{project['train']['id']}/examples"
    viewer = api.get("/api/me", role="viewer").json()["id"]
    limit = app.state.settings.regex_searches_per_user
    for _ in range(limit):
        assert app.state.regex_slots.acquire(viewer, limit)  # searches of this user still running
    try:
        r = api.get(url, role="viewer", params={"regex": "good"})
        assert r.status_code == 429 and "XMD_REGEX_SEARCHES_PER_USER" in r.json()["detail"], r.text
        assert api.get(url, role="viewer", params={"search": "good"}).status_code == 200  # not a regex search
        assert api.get(url, role="annotator", params={"regex": "good"}).status_code == 200  # another user
    finally:
        for _ in range(limit):
            app.state.regex_slots.release(viewer)
    assert api.get(url, role="viewer", params={"regex": "good"}).status_code == 200
    assert app.state.regex_slots.running == {}


SLOW_SQL = {
    "postgresql": "SELECT pg_sleep(60)",
    # a scan of 10^9 generated rows: SQLite has no sleep; minutes of work, as a regex over a huge table is
    "sqlite": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) "
    "SELECT count(*) FROM c",
}


def test_statement_past_its_budget_is_stopped_with_408(api: Api, db_url: str, dialect: str, tmp_path):
    """The budget holds on both databases (issue 31: on SQLite a regex search ran 19.5 s past it)."""
    engine = make_engine(db_url)  # its own engine: the budget here is far below what fixtures need
    settings = make_settings(tmp_path, statement_timeout_ms=300)
    app = create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)

    @app.get("/slow-query")
    def slow_query(db: Annotated[Any, Depends(get_db)]) -> dict[str, int]:
        """Stands in for any statement that would run for a minute (a search on a huge dataset)."""
        db.execute(text(SLOW_SQL[dialect])).all()
        return {"ok": 1}

    try:
        with TestClient(app) as client:
            start = time.perf_counter()
            r = client.get("/slow-query")
            assert r.status_code == 408, r.text
            assert "300 ms" in r.json()["detail"] and "XMD_STATEMENT_TIMEOUT_MS" in r.json()["detail"]
            # stopped at 300 ms, not after the minute (the margin is for a loaded CI host: 3.8 s seen once)
            assert time.perf_counter() - start < 20
            assert client.get("/api/me", headers=api.h("viewer")).status_code == 200  # its connection is usable
    finally:
        engine.dispose()
