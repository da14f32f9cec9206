"""Request sessions and the pool (``xmd/http/slots.py``): a download whose client reads slowly holds no
connection and no slot while it streams, and a slot not free within the pool's timeout answers 503
"busy", as an exhausted pool does. One slot (a pool of one connection) makes both visible at once.
Runs against a real uvicorn on SQLite and on PostgreSQL (see dbfixtures)."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from apihelpers import Api, make_settings, serve_in_thread
from xmd.app import create_app
from xmd.db.engine import make_engine
from xmd.http.deps import DB
from xmd.versions.models import ModelVersion

POOL_TIMEOUT_S = 3


def _one_slot_app(db_url: str, tmp_path: Path):
    eng = make_engine(db_url, pool_size=1, max_overflow=0, pool_timeout=POOL_TIMEOUT_S)
    app = create_app(make_settings(tmp_path), engine=eng, enqueue=lambda job, secrets=None: None, serve_ui=False)
    return app, eng


def _stalled_download(base: str, path: str) -> socket.socket:
    """A GET whose client reads a few bytes, then nothing: a tiny receive window, so the server's send
    blocks once the kernel's buffers are full (the archive below is far larger than they are)."""
    url = urlsplit(base)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((url.hostname, url.port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {url.netloc}\r\n\r\n".encode())
    sock.settimeout(60)
    head = sock.recv(64)
    assert head.startswith(b"HTTP/1.1 200"), head
    return sock


def test_a_stalled_download_holds_no_connection(api: Api, project, db, db_url: str, tmp_path: Path) -> None:
    version = db.get(ModelVersion, project["base_version_id"])
    # 24 MiB that gzip cannot shrink: the archive outgrows every socket buffer between the two ends
    (Path(version.path) / "padding.bin").write_bytes(os.urandom(24 * 1024 * 1024))
    app, eng = _one_slot_app(db_url, tmp_path)
    try:
        with serve_in_thread(app) as base:
            token = api.tokens["viewer"]
            sock = _stalled_download(base, f"/api/versions/{version.id}/download?token={token}")
            try:
                time.sleep(1.0)  # the server is now blocked sending the archive
                me = httpx.get(f"{base}/api/me", headers=api.h("viewer"), timeout=30)
                # with the download holding the one slot, this waited POOL_TIMEOUT_S and got 503
                assert me.status_code == 200, (me.status_code, me.text)
            finally:
                sock.close()
    finally:
        eng.dispose()


def test_no_slot_within_the_pool_timeout_is_503_busy(api: Api, db_url: str, tmp_path: Path) -> None:
    app, eng = _one_slot_app(db_url, tmp_path)
    entered = threading.Event()

    @app.get("/test/hold-session")
    async def hold(db: DB) -> dict[str, bool]:
        entered.set()
        await asyncio.sleep(POOL_TIMEOUT_S + 3)  # keeps the one slot, on the loop
        return {"held": True}

    try:
        with serve_in_thread(app) as base:
            holder = threading.Thread(target=lambda: httpx.get(f"{base}/test/hold-session", timeout=30), daemon=True)
            holder.start()
            assert entered.wait(10)
            start = time.perf_counter()
            me = httpx.get(f"{base}/api/me", headers=api.h("viewer"), timeout=30)
            took = time.perf_counter() - start
            assert me.status_code == 503 and me.json()["error"] == "Busy", me.text
            assert me.headers["Retry-After"] == "2"
            assert took >= POOL_TIMEOUT_S - 0.5, took  # it waited for the slot, then gave up
            holder.join(30)
            # the slot came back: the next request is served
            assert httpx.get(f"{base}/api/me", headers=api.h("viewer"), timeout=30).status_code == 200
    finally:
        eng.dispose()
