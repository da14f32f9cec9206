"""Twenty clients clicking the same example at once, over real HTTP (uvicorn on loopback), on SQLite
and PostgreSQL: every click is answered 200 and is in the history afterwards, and the current state is
the last click's."""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import uvicorn
from apihelpers import Api
from xmd.app import create_app

N_CLIENTS = 20


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_twenty_concurrent_clients_lose_no_feedback(api: Api, project, engine, settings):
    app = create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.time() + 20
        while not server.started:
            assert time.time() < deadline, "server did not start"
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        ex = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": 1}).json()["items"][0]
        url = f"{base}/api/examples/{ex['id']}/feedback"
        headers = api.h("annotator")
        barrier = threading.Barrier(N_CLIENTS)

        def click(i: int) -> httpx.Response:
            body = {"word_index": i % 3, "action": "remove" if i % 2 else "add"}
            with httpx.Client(timeout=60) as client:
                barrier.wait()
                return client.put(url, json=body, headers=headers)

        with ThreadPoolExecutor(N_CLIENTS) as pool:
            responses = list(pool.map(click, range(N_CLIENTS)))
        assert [r.status_code for r in responses] == [200] * N_CLIENTS, [
            r.text for r in responses if r.status_code != 200
        ]
        events = api.get(f"/api/projects/{project['id']}/feedback/events", params={"limit": 1000}).json()["items"]
        assert len(events) == N_CLIENTS
        assert sorted(e["id"] for e in events) == sorted(r.json()["event_id"] for r in responses)
        current = api.get(f"/api/projects/{project['id']}/feedback", params={"example_id": ex["id"]}).json()
        assert current["total"] == 3  # three word positions were clicked
        for fb in current["items"]:
            last = max((e for e in events if e["key"] == fb["key"]), key=lambda e: e["id"])
            assert fb["action"] == last["action"]
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_two_people_clicking_one_word_at_once_each_keep_their_own_mark(api: Api, project, engine, settings):
    """Issue 32: ten clicks of each of two people on the same word at once: two current rows, each the
    last click of its person, and no click of one overwrites the other's mark."""
    app = create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.time() + 20
        while not server.started:
            assert time.time() < deadline, "server did not start"
            time.sleep(0.05)
        ex = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": 1}).json()["items"][0]
        url = f"http://127.0.0.1:{port}/api/examples/{ex['id']}/feedback"
        barrier = threading.Barrier(N_CLIENTS)
        people = ("annotator", "admin")

        def click(i: int) -> httpx.Response:
            body = {"word_index": 0, "action": "remove" if i % 4 < 2 else "add"}
            with httpx.Client(timeout=60) as client:
                barrier.wait()
                return client.put(url, json=body, headers=api.h(people[i % 2]))

        with ThreadPoolExecutor(N_CLIENTS) as pool:
            responses = list(pool.map(click, range(N_CLIENTS)))
        assert [r.status_code for r in responses] == [200] * N_CLIENTS
        events = api.get(f"/api/projects/{project['id']}/feedback/events", params={"limit": 1000}).json()["items"]
        assert len(events) == N_CLIENTS
        current = api.get(f"/api/projects/{project['id']}/feedback", params={"example_id": ex["id"]}).json()
        assert sorted(fb["updated_by"] for fb in current["items"]) == ["admin-user", "annotator-user"]
        for fb in current["items"]:
            last = max((e for e in events if e["user"] == fb["updated_by"]), key=lambda e: e["id"])
            assert fb["action"] == last["action"]
    finally:
        server.should_exit = True
        thread.join(timeout=10)
