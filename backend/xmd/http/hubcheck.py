"""Can this server reach the Hugging Face Hub? A short, cached check, so the UI can say so before a
person submits a Hub id or a push (which would otherwise fail only after submitting)."""

from __future__ import annotations

import os
import threading
import time
import urllib.request
from typing import Literal

HubState = Literal["reachable", "unreachable", "offline"]
TTL_S = 60.0
TIMEOUT_S = 1.5
DEFAULT_ENDPOINT = "https://huggingface.co"

_lock = threading.Lock()
_cache: dict[str, tuple[float, HubState]] = {}


def hub_state(endpoint: str | None = None) -> HubState:
    """``offline`` when HF_HUB_OFFLINE is set; else whether the endpoint answered within 1.5 s (any HTTP
    status counts: it is up), cached for a minute per endpoint."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return "offline"
    url = (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/") + "/api/health"
    now = time.monotonic()
    with _lock:
        hit = _cache.get(url)
    if hit is not None and now - hit[0] < TTL_S:
        return hit[1]
    state: HubState
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=TIMEOUT_S):
            state = "reachable"
    except urllib.error.HTTPError:
        state = "reachable"  # it answered
    except (OSError, ValueError):
        state = "unreachable"
    with _lock:
        _cache[url] = (now, state)
    return state


def server_token() -> Literal["set", "missing"]:
    """Whether ``HF_TOKEN`` is set here: a push without a token in the request uses it (the embedded
    workers of ``xmd serve`` share this process's environment)."""
    return "set" if os.environ.get("HF_TOKEN", "").strip() else "missing"
