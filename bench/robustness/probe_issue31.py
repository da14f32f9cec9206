"""Issue 31's cases, fired at a live API by :mod:`bench.robustness.probe_bad_inputs`: the last-admin race
(two admins demoting or deleting each other at once, many times), deleting a dataset under a running job,
CSV column caps and duplicate names, a boolean where a number belongs, a malformed download link, and,
with ``--serve-pid``, an embedded worker killed under ``xmd serve`` (is it restarted, and how fast).

Each case records what came back; ``problems`` lists every answer the fixed service must not give.
The admin race demotes the probing admin for a moment (two fresh admins must be the only ones) and
restores it afterwards; on a service with the race, it can leave no admin (``xmd users`` restores one).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx

RACE_TRIALS = 13
RAW = ("invalid literal for", "could not convert", "Traceback", "errors.pydantic.dev", "with base 10")


def _client(url: str, token: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60)


def _pair(first: Any, second: Any) -> list[int]:
    barrier, codes = threading.Barrier(2), [0, 0]

    def run(i: int, call: Any) -> None:
        barrier.wait()
        codes[i] = call().status_code

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate((first, second))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return codes


def _race(x: httpx.Client, y: httpx.Client, xid: int, yid: int, how: str) -> list[int]:
    if how == "patch":
        return _pair(
            lambda: x.patch(f"/api/users/{yid}", json={"role": "viewer"}),
            lambda: y.patch(f"/api/users/{xid}", json={"role": "viewer"}),
        )
    return _pair(lambda: x.delete(f"/api/users/{yid}"), lambda: y.delete(f"/api/users/{xid}"))


def admin_race(url: str, admin: httpx.Client, how: str, trials: int = RACE_TRIALS) -> dict[str, Any]:
    """``how``: "patch" (each demotes the other) or "delete" (each deletes the other)."""
    me = admin.get("/api/me").json()["id"]
    outcomes, no_admin = [], 0
    for _ in range(trials):
        made = []
        for who in ("x", "y"):
            r = admin.post("/api/users", json={"name": f"race-{how}-{who}-{time.time_ns()}", "role": "admin"})
            r.raise_for_status()
            made.append((r.json()["user"]["id"], _client(url, r.json()["token"])))
        (xid, x), (yid, y) = made
        x.patch(f"/api/users/{me}", json={"role": "viewer"}).raise_for_status()  # x and y: the only admins
        codes = _race(x, y, xid, yid, how)
        survivor = next((c for c in (x, y) if c.get("/api/users").status_code == 200), None)
        outcomes.append(sorted(codes))
        if survivor is None:
            no_admin += 1
            break  # nobody can restore the probing admin over HTTP any more
        survivor.patch(f"/api/users/{me}", json={"role": "admin"}).raise_for_status()
        for uid, c in made:
            admin.delete(f"/api/users/{uid}")
            c.close()
    return {"trials": len(outcomes), "left_no_admin": no_admin, "answers": outcomes}


def _csv(header: list[str], row: list[str]) -> bytes:
    return (",".join(header) + "\n" + ",".join(row) + "\n").encode()


def dataset_under_job(admin: httpx.Client, pid: int, labels: list[str]) -> dict[str, Any]:
    """Start an explain job on a fresh train set and try to delete the set while the job is unfinished."""
    rows = [f"v{i},text number {i},{labels[i % 2]}" for i in range(50)]
    r = admin.post(
        f"/api/projects/{pid}/datasets",
        files={"file": ("victim.csv", ("id,text,label\n" + "\n".join(rows) + "\n").encode(), "text/csv")},
        data={"name": f"victim-{time.time_ns()}", "role": "train", "id_column": "id"},
    )
    r.raise_for_status()
    did = r.json()["id"]
    job = admin.post(f"/api/projects/{pid}/jobs/explain", json={"dataset_id": did}).json()
    during = admin.delete(f"/api/datasets/{did}").status_code
    admin.post(f"/api/jobs/{job['id']}/cancel")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and admin.get(f"/api/jobs/{job['id']}").json()["status"] in ("queued", "running"):
        time.sleep(0.5)
    after = admin.delete(f"/api/datasets/{did}").status_code
    return {"delete_while_job_unfinished": during, "delete_after": after}


def column_caps(admin: httpx.Client, pid: int) -> dict[str, Any]:
    wide = _csv([f"c{i}" for i in range(100_002)], ["x"] * 100_002)
    out: dict[str, Any] = {}
    for route in ("preview", "upload"):
        path = f"/api/projects/{pid}/datasets" + ("/preview" if route == "preview" else "")
        form = {} if route == "preview" else {"role": "train", "text_column": "c0", "unlabelled": "true"}
        t = time.perf_counter()
        r = admin.post(path, files={"file": ("wide.csv", wide, "text/csv")}, data=form)
        out[f"wide_{route}"] = {"status": r.status_code, "seconds": round(time.perf_counter() - t, 2)}
        dupes = _csv(["id", "text", "label", "text"], ["1", "a", "b", "c"])
        r = admin.post(path, files={"file": ("d.csv", dupes, "text/csv")}, data=form)
        out[f"duplicates_{route}"] = r.status_code
    return out


def serve_worker_restart(serve_pid: int, wait_s: float = 90.0) -> dict[str, Any]:
    """SIGKILL one embedded worker of ``xmd serve`` (a child of ``serve_pid``) and time its replacement."""

    def children() -> set[int]:
        found = set()
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    stat = (d / "stat").read_text()
                except OSError:
                    continue
                if int(stat[stat.rindex(")") + 2 :].split()[1]) == serve_pid:
                    found.add(int(d.name))
        return found

    before = children()
    if not before:
        return {"error": f"process {serve_pid} has no children"}
    victim = min(before)
    os.kill(victim, signal.SIGKILL)
    t = time.monotonic()
    while time.monotonic() - t < wait_s:
        new = children() - before
        if new:
            return {"killed": victim, "restarted_after_s": round(time.monotonic() - t, 1)}
        time.sleep(0.2)
    return {"killed": victim, "restarted_after_s": None}


def issue31_probes(
    url: str, admin_token: str, ids: dict[str, Any], labels: list[str], serve_pid: int | None
) -> dict[str, Any]:
    admin = _client(url, admin_token)
    pid, eid, vid = ids["project_id"], ids["example_id"], ids["version_id"]
    flag = admin.put(f"/api/examples/{eid}/feedback", json={"word_index": True, "action": "add"})
    out: dict[str, Any] = {
        "bool_word_index": flag.status_code,
        "dataset": dataset_under_job(admin, pid, labels),
        "columns": column_caps(admin, pid),
    }
    link = httpx.get(f"{url}/api/versions/{vid}/download", params={"link": "1².9999999999.x"}, timeout=30)
    out["malformed_link"] = {"status": link.status_code, "exception_text": any(s in link.text for s in RAW)}
    out["admin_race_patch"] = admin_race(url, admin, "patch")
    out["admin_race_delete"] = admin_race(url, admin, "delete")
    if serve_pid is not None:
        out["worker_restart"] = serve_worker_restart(serve_pid)
    problems = [f"{k} answered {out[k]}" for k in ("bool_word_index",) if out[k] != 422]
    if out["dataset"]["delete_while_job_unfinished"] != 409:
        problems.append(f"dataset deleted under its job: {out['dataset']}")
    problems += [f"{k}: {v}" for k, v in out["columns"].items() if (v["status"] if isinstance(v, dict) else v) < 400]
    if out["malformed_link"]["exception_text"]:
        problems.append("a download link answered with Python's exception text")
    problems += [f"{k}: no admin left" for k in ("admin_race_patch", "admin_race_delete") if out[k]["left_no_admin"]]
    if serve_pid is not None and not out["worker_restart"].get("restarted_after_s"):
        problems.append(f"the killed worker was not restarted: {out['worker_restart']}")
    out["problems"] = problems
    return out
