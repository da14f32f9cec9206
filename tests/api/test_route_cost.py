"""Round trips of the hot routes stay bounded: the task words page and a feedback click.

Under load the API queues behind CPU, and every statement costs a round trip plus the ORM's work on
both sides (bench/api_latency/route_cost.py measures it). These bounds fail when someone adds a query per word row,
reads the project or the aggregate state a second time, or reads after a click's commit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from apihelpers import Api
from sqlalchemy import Engine, event
from xmd.explanations.schemas import ExplanationOut, WordPage
from xmd.feedback.schemas import WriteOut

WORDS_STATEMENTS = 7
"""token + user, project + version, aggregate state, the page, task feedback, training sets, active jobs."""
CLICK_STATEMENTS = {"sqlite": 4, "postgresql": 4}
"""token + user, example + project (instance) or project (task), then on SQLite the event and the current
row; on PostgreSQL the key's lock, and the event and the current row in one statement (``feedback.click``)."""


class Recorder:
    """What the engine sends, in order: each statement's text, and ``COMMIT`` / ``ROLLBACK``."""

    def __init__(self) -> None:
        self.log: list[str] = []

    @property
    def statements(self) -> list[str]:
        return [s for s in self.log if s not in ("COMMIT", "ROLLBACK")]

    def reads_of(self, table: str) -> int:
        """Statements that read ``table`` (as the first table of their FROM)."""
        return sum(1 for s in self.statements if re.search(rf"\bFROM {table}\b", s))


@contextmanager
def recorded(engine: Engine) -> Iterator[Recorder]:
    rec = Recorder()

    def on_execute(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        rec.log.append(" ".join(statement.split()))

    def on_commit(_conn: Any) -> None:
        rec.log.append("COMMIT")

    def on_rollback(_conn: Any) -> None:
        rec.log.append("ROLLBACK")

    listeners = (("before_cursor_execute", on_execute), ("commit", on_commit), ("rollback", on_rollback))
    for name, fn in listeners:
        event.listen(engine, name, fn)
    try:
        yield rec
    finally:
        for name, fn in listeners:
            event.remove(engine, name, fn)


def _explained_project(api: Api, project: dict) -> tuple[int, list[int]]:
    """The project with 8 training examples explained and task feedback on 6 ranked words."""
    pid = project["id"]
    ids = [e["id"] for e in api.get(f"/api/datasets/{project['train']['id']}/examples").json()["items"]]
    for eid in ids[:8]:
        assert api.get(f"/api/examples/{eid}/explanation").status_code == 200
    words = [w["word"] for w in api.get(f"/api/projects/{pid}/words").json()["items"]]
    assert len(words) > 20
    for word in words[:6]:
        r = api.put(f"/api/projects/{pid}/task-feedback", json={"word": word, "action": "remove"})
        assert r.status_code == 200, r.text
    return pid, ids


def test_the_words_page_costs_the_same_few_statements_whatever_its_length(api: Api, project, engine):
    pid, _ = _explained_project(api, project)
    counts = {}
    for params in ({"limit": 1}, {"limit": 100}, {"limit": 100, "sort": "suspicion"}, {"limit": 100, "sort": "count"}):
        url = f"/api/projects/{pid}/words"
        assert api.get(url, role="viewer", params=params).status_code == 200  # fills the per-state caches
        with recorded(engine) as rec:
            page = api.get(url, role="viewer", params=params).json()
        key = tuple(sorted(params.items()))
        counts[key] = len(rec.statements)
        assert len(page["items"]) == min(params["limit"], page["total"])
        assert any(item["feedback"] for item in page["items"]) or params["limit"] == 1
        assert len(rec.statements) <= WORDS_STATEMENTS, rec.statements
        assert rec.reads_of("projects") == 1, rec.statements  # read once, with the version
        assert rec.reads_of("aggregate_states") == 1, rec.statements
        assert rec.reads_of("word_aggregates") == 1, rec.statements
        assert "COMMIT" not in rec.log  # a read writes nothing
    assert len(set(counts.values())) == 1, counts  # no statement per word row


def test_a_feedback_click_is_a_few_statements_and_nothing_after_its_commit(api: Api, project, engine, dialect):
    pid, ids = _explained_project(api, project)
    assert api.get(f"/api/projects/{pid}", role="annotator").status_code == 200  # the token's last use is noted
    clicks = [
        (f"/api/examples/{ids[0]}/feedback", {"word_index": 0, "action": "add"}),
        (f"/api/examples/{ids[1]}/feedback", {"word_index": 1, "action": "remove"}),
        (f"/api/projects/{pid}/task-feedback", {"word": "spielberg", "action": "remove"}),
        (f"/api/projects/{pid}/task-feedback", {"word": "spielberg", "action": "add", "label": 1}),
    ]
    for url, body in clicks:
        with recorded(engine) as rec:
            r = api.put(url, role="annotator", json=body)
        assert r.status_code == 200, r.text
        assert r.json()["current"]["action"] == body["action"]
        assert len(rec.statements) <= CLICK_STATEMENTS[dialect], rec.statements
        assert rec.reads_of("projects") + rec.reads_of("examples") == 1, rec.statements
        # committed before the response, and the receipt needs nothing read afterwards
        assert rec.log.count("COMMIT") == 1 and rec.log[-1] == "COMMIT", rec.log
    receipt = api.put(clicks[0][0], role="annotator", json=clicks[0][1]).json()
    ext_id = api.get(f"/api/datasets/{project['train']['id']}/examples").json()["items"][0]["ext_id"]
    assert receipt["current"]["example_ext_id"] == ext_id


@contextmanager
def thread_hops(monkeypatch) -> Iterator[list[str]]:
    """Names of the functions the app sends to its thread pool (each a hand-off between the event loop
    and a worker thread, which costs CPU and a wait for a free thread on a loaded server)."""
    import anyio.to_thread

    calls: list[str] = []
    real = anyio.to_thread.run_sync

    async def counting(func: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(getattr(func, "__qualname__", repr(func)))
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting)
    try:
        yield calls
    finally:
        monkeypatch.setattr(anyio.to_thread, "run_sync", real)


def test_a_click_hops_to_the_thread_pool_only_to_authenticate_and_to_write(api: Api, project, monkeypatch):
    """Opening and closing the request's session, the role check and the answer (built by the view, not
    validated again) stay on the event loop: a click takes two hand-offs (the token lookup, the view), a
    read three (its session is rolled back). Before: six (session open and close, the role check and
    FastAPI's second validation of the answer as well)."""
    pid, ids = _explained_project(api, project)
    url = f"/api/examples/{ids[0]}/feedback"
    with thread_hops(monkeypatch) as hops:
        r = api.put(url, role="annotator", json={"word_index": 0, "action": "remove"})
    assert r.status_code == 200, r.text
    assert len(hops) == 2, hops
    assert WriteOut.model_validate_json(r.content).current.action.value == "remove"
    for path, model in (
        (f"/api/projects/{pid}/words", WordPage),
        (f"/api/examples/{ids[0]}/explanation", ExplanationOut),
    ):
        with thread_hops(monkeypatch) as hops:
            r = api.get(path, role="viewer")
        assert r.status_code == 200, r.text
        assert len(hops) == 3, hops
        model.model_validate_json(r.content)  # the answer is what the route's response_model documents
    with thread_hops(monkeypatch) as hops:
        r = api.put(f"/api/projects/{pid}/task-feedback", role="annotator", json={"word": "spielberg", "action": "add"})
    assert r.status_code == 200 and len(hops) == 2, hops
    assert WriteOut.model_validate_json(r.content).key.startswith("t:spielberg:")
    # a view that fails still rolls back and closes its session (off the event loop): the next request works
    with thread_hops(monkeypatch) as hops:
        r = api.put(url, role="annotator", json={"word_index": 10_000, "action": "remove"})
    assert r.status_code == 422, r.text
    assert any("rollback_and_close" in h for h in hops), hops
    assert api.put(url, role="annotator", json={"word_index": 0, "action": "reset"}).status_code == 200


def test_a_feedback_page_counts_its_total_without_reading_every_row(api: Api, project, engine):
    """The list's total is one COUNT: before, it loaded every current row of the project to take their number."""
    pid, _ = _explained_project(api, project)
    with recorded(engine) as rec:
        r = api.get(f"/api/projects/{pid}/feedback", params={"limit": 2})
    assert r.status_code == 200, r.text
    assert r.json()["total"] == 6 and len(r.json()["items"]) == 2
    reads = [s for s in rec.statements if re.search(r"\bFROM feedback\b", s)]
    assert any("count(" in s.lower() for s in reads), reads
    assert all("count(" in s.lower() or re.search(r"\bLIMIT\b", s) for s in reads), reads  # no unbounded read
