"""``xmd serve`` stops its whole process tree (the embedded Celery workers and their pools) when its own
process gets SIGTERM or SIGINT (issue 13), or SIGKILL (issue 31: the workers die with their parent).
Only the main process is signalled, as systemd, Docker or a shell's ``kill`` would do: the workers run
in their own session, so nothing else reaches them. A worker that dies is restarted, and the jobs list
says so (issue 31)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            tree.setdefault(ppid, []).append(int(d.name))
    return tree


def _descendants(pid: int) -> set[int]:
    tree, out, todo = _children(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"


def _start_serve(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int, object]:
    port = _free_port()
    env = {**os.environ, "XMD_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1", "XMD_LOG_LEVEL": "warning"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "backend"), str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("XMD_DATABASE_URL", None)
    env.pop("XMD_BROKER_URL", None)
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "xmd.cli", "serve", "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    return proc, port, log


def _wait_started(tmp_path: Path, proc: subprocess.Popen[bytes], port: int) -> set[int]:
    """Once the API answers and both workers and their pool processes run: serve's descendants."""
    deadline = time.time() + 120
    while True:
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.time() < deadline, "xmd serve did not start"
        time.sleep(0.3)
    while len(tree := _descendants(proc.pid)) < 4 and time.time() < deadline:  # 2 workers + their pool children
        time.sleep(0.3)
    assert len(tree) >= 4, f"the embedded workers did not start: {tree}"
    return tree


def _signal_and_check_all_gone(proc: subprocess.Popen[bytes], tree: set[int], sig: int) -> None:
    """Signal serve's main process only, then every process it started must be gone."""
    proc.send_signal(sig)
    assert proc.wait(60) is not None
    gone = time.time() + 30
    while any(_alive(p) for p in tree) and time.time() < gone:
        time.sleep(0.2)
    survivors = [p for p in tree if _alive(p)]
    assert survivors == [], f"left running after {signal.Signals(sig).name}: {survivors}"


# SIGTERM is sent at the end of the dead-worker test below (one `xmd serve` start fewer: ~30 s of the suite)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_signal_to_serve_stops_the_embedded_worker(tmp_path: Path, sig: int):
    proc, port, log = _start_serve(tmp_path)
    tree: set[int] = set()
    try:
        tree = _wait_started(tmp_path, proc, port)
        _signal_and_check_all_gone(proc, tree, sig)
    finally:
        log.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        for p in tree:  # never leave a worker behind, even when the test fails
            if _alive(p):
                os.kill(p, signal.SIGKILL)


def test_a_dead_worker_is_restarted_and_sigterm_then_stops_everything(tmp_path: Path):
    """A killed worker is restarted (its pool goes with it) and the jobs list says so; SIGTERM to serve then
    stops the whole tree, the replacement included; what serve, the API and the worker wrote is the owner's."""
    proc, port, log = _start_serve(tmp_path)
    tree: set[int] = set()
    try:
        tree = _wait_started(tmp_path, proc, port)
        written = [tmp_path / "data", *(tmp_path / "data").rglob("*")]
        assert any(p.name == "broker.db" for p in written) and any(p.name == "xmd.db" for p in written)
        shared = [
            f"{p.relative_to(tmp_path)} {p.stat().st_mode & 0o777:o}" for p in written if p.stat().st_mode & 0o077
        ]
        assert shared == [], shared
        workers = sorted(_children().get(proc.pid, []))
        assert len(workers) == 2, workers
        # the retrain worker (its queue is "<default>-retrain"): its restart is said on the jobs list
        victim = next(w for w in workers if b"celery-retrain" in Path(f"/proc/{w}/cmdline").read_bytes())
        pool = _descendants(victim)
        assert pool, "the worker has no pool process"
        os.kill(victim, signal.SIGKILL)
        deadline = time.time() + 60
        while time.time() < deadline:
            now = set(_children().get(proc.pid, [])) - {victim}
            if len(now) == 2 and not any(_alive(p) for p in pool):
                break
            time.sleep(0.3)
        assert [p for p in pool if _alive(p)] == [], "the dead worker's pool process runs on"
        replacement = set(_children().get(proc.pid, [])) - set(workers)
        assert len(replacement) == 1, (workers, _children().get(proc.pid))
        terminal = (tmp_path / "serve.log").read_text()
        assert "restarted" in terminal
        assert httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5).status_code == 200
        # and on the jobs list (issue 31 §2): which worker, when, why, how many restarts
        token = re.search(r"admin token \(shown once\): (\S+)", terminal).group(1)
        for _ in range(50):  # the row is written just after the new worker process starts
            r = httpx.get(f"http://127.0.0.1:{port}/api/jobs", headers={"Authorization": f"Bearer {token}"}, timeout=10)
            assert r.status_code == 200, r.text
            if r.json()["workers"] and r.json()["workers"][0]["restarted_at"]:
                break
            time.sleep(0.1)
        [notice] = r.json()["workers"]
        assert notice["role"] == "retrain" and notice["queue"] == "celery-retrain", notice
        assert notice["exit_code"] == -signal.SIGKILL and notice["restarts"] == 1, notice
        assert notice["restarted_at"] is not None, notice
        assert notice["message"].startswith("the retrain worker was restarted at "), notice
        assert "after it died (exit -9); restart 1 since the server started" in notice["message"], notice
        tree |= replacement | _descendants(proc.pid)
        _signal_and_check_all_gone(proc, tree, signal.SIGTERM)
    finally:
        log.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
        for p in tree | _descendants(proc.pid):
            if _alive(p):
                os.kill(p, signal.SIGKILL)
