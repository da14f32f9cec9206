"""``/api/health/hub`` tells the UI whether the Hub can be reached. The Hub itself is the loopback
fake (tests/hubserver.py): nothing outside this machine can be reached from the test run."""

from __future__ import annotations

import socket

import pytest
from apihelpers import Api
from hubserver import HubServer
from xmd.http import hubcheck


@pytest.fixture(autouse=True)
def _fresh_cache():
    hubcheck._cache.clear()
    yield
    hubcheck._cache.clear()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_hub_state_reachable_unreachable_offline(monkeypatch):
    hub = HubServer(tokens={})
    hub.start()
    url = hub.url
    try:
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        assert hubcheck.hub_state(url) == "offline"  # switched off: no request at all
        monkeypatch.setenv("HF_HUB_OFFLINE", "0")
        assert hubcheck.hub_state(url) == "reachable"
        assert hubcheck.hub_state(f"http://127.0.0.1:{_closed_port()}") == "unreachable"
    finally:
        hub.stop()
    # cached: the stopped server still reads as reachable within the minute
    assert hubcheck.hub_state(url) == "reachable"


def test_route_answers_any_signed_in_user(api: Api, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert api.client.get("/api/health/hub").status_code == 401
    r = api.get("/api/health/hub", role="viewer")
    assert r.status_code == 200 and r.json()["hub"] == "offline"
