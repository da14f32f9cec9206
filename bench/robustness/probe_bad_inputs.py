"""Fire issue 13's bad inputs at a live xmd API and count the answers: probes / 4xx / 5xx / hangs / lost.

Why: the README's reliability figures must come from the running service (``xmd serve`` on SQLite, or
uvicorn + ``xmd worker`` on PostgreSQL + Redis), not from the test client. Every integer and string
parameter of every route (read from ``/openapi.json``) gets 2³¹, 2⁶³, 2⁶⁴ and a NUL byte; bodies get
the same values; uploads get NUL rows, over-long ids and names, JSON nested 100,000 deep and damaged
model archives; the catastrophic regexes of the issue run as a viewer. Meanwhile a poller times
``/api/health`` (its worst latency is reported). "lost" compares the totals of projects, datasets,
examples and feedback before and after (the probes must change nothing). Issue 31's cases (races,
column caps, strict numbers, supervision with ``--serve-pid``) follow: :mod:`bench.robustness.probe_issue31`.

    python -m bench.robustness.probe_bad_inputs --url http://127.0.0.1:8000 --token ADMIN --viewer VIEWER \\
        --model-dir /path/to/save_pretrained/folder

``--model-dir`` is zipped and uploaded as the project the probes aim at. Prints one JSON document.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from bench.robustness.probe_issue31 import issue31_probes

BIG = [2**31, 2**63, 2**64]
NUL = "a\x00b"
HANG_S = 30.0


class Probe:
    """Counts answers by class; a request over ``HANG_S`` is a hang, a connection closed without an
    answer (the server's handler crashed) is dropped."""

    def __init__(self, url: str, token: str) -> None:
        self.client = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=HANG_S)
        self.counts = {"probes": 0, "2xx": 0, "4xx": 0, "5xx": 0, "hangs": 0, "dropped": 0}
        self.server_errors: list[str] = []
        self.accepted: list[str] = []

    def fire(self, method: str, url: str, **kw: Any) -> httpx.Response | None:
        self.counts["probes"] += 1
        try:
            r = self.client.request(method, url, **kw)
        except httpx.HTTPError as exc:  # no answer: a time-out is a hang, anything else a dropped connection
            self.counts["hangs" if isinstance(exc, httpx.TimeoutException) else "dropped"] += 1
            self.server_errors.append(f"{method} {url}: {type(exc).__name__}")
            return None
        kind = f"{r.status_code // 100}xx"
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if r.status_code < 300:
            self.accepted.append(f"{method} {url} {kw.get('params') or ''} -> {r.status_code}")
        if r.status_code >= 500:
            self.server_errors.append(f"{method} {url} -> {r.status_code}: {r.text[:200]}")
        return r


def _zip_dir(folder: Path, damage: dict[str, bytes] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for f in sorted(folder.iterdir()):
            if f.is_file() and f.name not in (damage or {}):
                zf.write(f, f"m/{f.name}")
        for name, data in (damage or {}).items():
            zf.writestr(f"m/{name}", data)
    return buf.getvalue()


def _csv(rows: list[tuple[str, str, str]]) -> bytes:
    return ("id,text,label\n" + "".join(f"{i},{t},{lab}\n" for i, t, lab in rows)).encode()


def setup(admin: httpx.Client, model_dir: Path, labels: list[str]) -> dict[str, Any]:
    """A project from the uploaded model with a small train set; the ids the probes aim at."""
    name = f"probe-{int(time.time())}"
    r = admin.post(
        "/api/projects/upload",
        files={"archive": ("model.zip", _zip_dir(model_dir), "application/zip")},
        data={"name": name, "labels": ",".join(labels)},
        timeout=300,
    )
    r.raise_for_status()
    pid = r.json()["id"]
    words = ["good movie", "bad plot", "great acting", "awful film"] * 100
    rows = [(f"e{i}", w + f" number {i}", labels[i % 2]) for i, w in enumerate(words)]
    r = admin.post(
        f"/api/projects/{pid}/datasets",
        files={"file": ("train.csv", _csv(rows), "text/csv")},
        data={"name": "train", "role": "train", "id_column": "id"},
    )
    r.raise_for_status()
    did = r.json()["id"]
    example = admin.get(f"/api/datasets/{did}/examples", params={"limit": 1}).json()["items"][0]["id"]
    version = admin.get(f"/api/projects/{pid}/versions").json()["items"][0]["id"]
    me = admin.get("/api/me").json()["id"]
    return {
        "project_id": pid,
        "dataset_id": did,
        "example_id": example,
        "version_id": version,
        "user_id": me,
        "token_id": 1,
        "job_id": "00000000-0000-0000-0000-000000000000",
        "name": "s",
        "word": "good",
        "a": version,
        "b": version,
    }


def totals(admin: httpx.Client, ids: dict[str, Any]) -> dict[str, int]:
    pid = ids["project_id"]
    return {
        "projects": admin.get("/api/projects", params={"limit": 1}).json()["total"],
        "datasets": admin.get(f"/api/projects/{pid}/datasets").json()["total"],
        "examples": admin.get(f"/api/datasets/{ids['dataset_id']}/examples", params={"limit": 1}).json()["total"],
        "feedback": admin.get(f"/api/projects/{pid}/feedback", params={"limit": 1}).json()["total"],
    }


def parameter_probes(p: Probe, schema: dict[str, Any], ids: dict[str, Any]) -> None:
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            if path.endswith("/events") or method == "delete":
                continue
            for param in op.get("parameters", []):
                s = param["schema"]
                kinds = {s.get("type")} | {x.get("type") for x in s.get("anyOf", [])}
                values = (BIG if "integer" in kinds else []) + ([NUL] if "string" in kinds else [])
                for value in values:
                    where = {k: v for k, v in ids.items() if "{" + k + "}" in path}
                    query: dict[str, Any] = {"a": ids["a"], "b": ids["b"]} if path.endswith("/compare") else {}
                    (where if param["in"] == "path" else query)[param["name"]] = value
                    url = path.format(**{k: quote(str(v), safe="") for k, v in where.items()})
                    body = {} if method in ("post", "put", "patch") else None
                    p.fire(method.upper(), url, params=query, json=body)


def body_probes(p: Probe, ids: dict[str, Any]) -> None:
    pid, eid, did = ids["project_id"], ids["example_id"], ids["dataset_id"]
    bodies = [
        ("POST", f"/api/projects/{pid}/jobs/evaluate", {"version_id": 2**63}),
        ("POST", f"/api/projects/{pid}/jobs/explain", {"dataset_id": 2**31}),
        ("POST", f"/api/projects/{pid}/jobs/retrain", {"train_dataset_ids": [2**64]}),
        ("PUT", f"/api/examples/{eid}/feedback", {"word_index": 2**63, "action": "remove"}),
        ("PUT", f"/api/projects/{pid}/task-feedback", {"word": NUL, "action": "remove"}),
        ("PUT", f"/api/projects/{pid}/task-feedback", {"word": "x", "action": "remove", "label": 2**63}),
        ("POST", f"/api/projects/{pid}/slices", {"name": NUL, "filters": {}}),
        ("POST", f"/api/projects/{pid}/feedback/import", {"dataset_id": 2**63, "feedback": {}}),
        ("POST", f"/api/projects/{pid}/feedback/import", {"dataset_id": did, "feedback": {"task": [{"word": NUL}]}}),
        ("POST", "/api/projects", {"name": NUL, "model_path": "x"}),
        ("POST", f"/api/projects/{pid}/predict", {"text": "fine " * 3, "version_id": 2**63}),
    ]
    for method, url, body in bodies:
        p.fire(method, url, json=body)
    deep = '{"dataset_id": 1, "feedback": ' + "[" * 100_000 + "]" * 100_000 + "}"
    p.fire("POST", f"/api/projects/{pid}/feedback/import", content=deep, headers={"Content-Type": "application/json"})


def upload_probes(p: Probe, ids: dict[str, Any], model_dir: Path, labels: list[str]) -> None:
    pid = ids["project_id"]
    ok = [("u1", "a fine text", labels[0]), ("u2", "another text", labels[1])]
    files = [
        ("nul.csv", _csv([*ok, ("u3", "hello\x00there", labels[0])])),
        ("longid.csv", _csv([*ok, ("i" * 201, "text", labels[0])])),
        ("s" * 201 + ".csv", _csv(ok)),
        ("f" * 1001 + ".csv", _csv(ok)),
        ("deep.json", ("[" * 100_000 + "]" * 100_000).encode()),
        ("deep.jsonl", ('{"id": "1", "text": ' + "[" * 100_000 + "]" * 100_000 + "}\n").encode()),
    ]
    for name, data in files:
        form = {"role": "eval", "id_column": "id"} | ({"name": "n-" + name[:20]} if len(name) > 1000 else {})
        p.fire("POST", f"/api/projects/{pid}/datasets", files={"file": (name, data, "text/plain")}, data=form)
    for damage in (
        {"model.safetensors": b"\x08\x00\x00\x00\x00\x00\x00\x00{not json"},
        {"config.json": b'{"model_type": "bert", "hidden_size": "wide"}'},
    ):
        archive = _zip_dir(model_dir, damage)
        p.fire(
            "POST",
            "/api/projects/upload",
            files={"archive": ("m.zip", archive, "application/zip")},
            data={"name": f"damaged-{time.time()}", "labels": ",".join(labels)},
        )


def regex_probes(viewer: Probe, ids: dict[str, Any]) -> None:
    for pattern in (r"^(\w+\s?)*!$", "(a{1,100}){1,100}"):
        viewer.fire("GET", f"/api/datasets/{ids['dataset_id']}/examples", params={"regex": pattern})


def poll_health(url: str, stop: threading.Event, worst: list[float]) -> None:
    with httpx.Client(base_url=url, timeout=HANG_S) as c:
        while not stop.is_set():
            t = time.perf_counter()
            try:
                c.get("/api/health")
                worst[0] = max(worst[0], time.perf_counter() - t)
            except httpx.HTTPError:
                worst[0] = max(worst[0], HANG_S)
            stop.wait(0.2)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--token", required=True, help="an admin token")
    ap.add_argument("--viewer", required=True, help="a viewer token")
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--labels", default="negative,positive")
    ap.add_argument("--label", default="", help="names the set-up in the output")
    ap.add_argument("--serve-pid", type=int, default=None, help="xmd serve's pid: kill one embedded worker")
    args = ap.parse_args(argv)
    labels = args.labels.split(",")
    admin, viewer = Probe(args.url, args.token), Probe(args.url, args.viewer)
    ids = setup(admin.client, args.model_dir, labels)
    before = totals(admin.client, ids)
    stop, worst = threading.Event(), [0.0]
    poller = threading.Thread(target=poll_health, args=(args.url, stop, worst), daemon=True)
    poller.start()
    t0 = time.perf_counter()
    schema = admin.client.get("/openapi.json").json()
    for probe in (admin, viewer):
        parameter_probes(probe, schema, ids)
        body_probes(probe, ids)
    upload_probes(admin, ids, args.model_dir, labels)
    regex_probes(viewer, ids)
    stop.set()
    poller.join()
    after = totals(admin.client, ids)
    issue31 = issue31_probes(args.url, args.token, ids, labels, args.serve_pid)  # these change state on purpose
    counts = {k: admin.counts.get(k, 0) + viewer.counts.get(k, 0) for k in set(admin.counts) | set(viewer.counts)}
    out = {
        "setup": args.label,
        **counts,
        "lost": sum(max(0, before[k] - after[k]) for k in before),
        "added": sum(max(0, after[k] - before[k]) for k in before),
        "health_worst_s": round(worst[0], 3),
        "seconds": round(time.perf_counter() - t0, 1),
        "server_errors": (admin.server_errors + viewer.server_errors)[:20],
        "accepted": (admin.accepted + viewer.accepted)[:20],
        "issue31": issue31,
    }
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    result = main()
    sys.exit(0 if not result["server_errors"] and not result["issue31"]["problems"] else 1)
