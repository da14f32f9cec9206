"""Round trips of the hot routes stay bounded: the task words page and a feedback click.

Under load the API queues behind CPU, and every statement costs a round trip plus the ORM's work on
both sides (bench/route_cost.py measures it). These bounds fail when someone adds a query per word row,
reads the project or the aggregate state a second time, or reads after a click's commit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from apihelpers import Api
from sqlalchemy import Engine, event

WORDS_STATEMENTS = 7
"""token + user, project + version, aggregate state, the page, task feedback, training sets, active jobs."""
CLICK_STATEMENTS = {"sqlite": 4, "postgresql": 5}
"""token + user, example + project (instance) or project (task), [PostgreSQL: the key's lock], the event,
the current row."""


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
