"""How long a newcomer waits on the first ``xmd serve --demo`` (what ``make demo`` runs after installing):
seconds until the URL is printed, until the UI and ``/api/health`` answer, until the demo project is made
(the ``prepare_demo`` job succeeded) and until its training set is explained (the story's first screen,
*Task explanations*, works). A fresh data directory each run, so the fine-tune is the first start's.
With ``--retrain`` it then goes on as the README's story does in the browser: a task-level *remove* of
the planted word, the Retrain screen's estimate, a retrain with the screen's defaults, timed from the
request to *v2 is ready* (the job succeeded), with the job's phase log and its before/after metrics. With
controls among ``--retrain-settings`` it then waits for the control jobs that follow v2 and times *controls
done* from the same request (issue 30 §5); ``--tiny`` fine-tunes the tests' tiny model instead of MiniLM.

Prints one JSON document: the times, the preparation job's phase log (seconds per phase), the load
(``uptime`` at the start and the end: on a shared machine the times say little without it) and the
environment. The server is stopped (SIGTERM) at the end. Example::

    nice -n 5 python -m bench.first_start.first_start > bench/first_start/results/first_start.json
    python -m bench.first_start.first_start --demo-examples 192   # a quick smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from bench.benchlib import emit, environment, load_average, log, resolve_device

ROOT = Path(__file__).resolve().parents[2]


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _calibration(base: str, h: dict[str, str], pid: int) -> list[dict[str, Any]]:
    """The phase log of the project's explain job: the timed batches of a retrain's work
    (``xmd.core.calibrate``) the estimate of a first retrain rests on."""
    items = httpx.get(f"{base}/api/projects/{pid}/jobs", headers=h).json()["items"]
    for job in items:
        if job["kind"] == "explain" and job.get("phases"):
            return [
                {k: p.get(k) for k in ("name", "kind", "done", "seconds")} | {"s_per_example": p["seconds"] / p["done"]}
                for p in job["phases"]
            ]
    return []


def retrain(
    base: str, h: dict[str, str], timeout_s: float, seed: int, settings: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The story's retrain through the API: remove the planted word for the task, estimate, retrain with
    the Retrain screen's defaults (``seed`` and any ``settings`` set, for both) and wait for the new
    version to be ready."""
    from xmd.core.demo import SHORTCUT_WORD

    pid = httpx.get(f"{base}/api/projects", headers=h).json()["items"][0]["id"]
    r = httpx.put(
        f"{base}/api/projects/{pid}/task-feedback", json={"word": SHORTCUT_WORD, "action": "remove"}, headers=h
    )
    r.raise_for_status()
    body = {**(settings or {}), "seed": seed}
    estimate = httpx.post(f"{base}/api/projects/{pid}/jobs/retrain/estimate", json=body, headers=h).json()
    t0 = time.monotonic()
    r = httpx.post(f"{base}/api/projects/{pid}/jobs/retrain", json=body, headers=h)
    r.raise_for_status()
    job = r.json()
    started = None
    while time.monotonic() - t0 < timeout_s:
        job = httpx.get(f"{base}/api/jobs/{job['id']}", headers=h).json()
        if started is None and job["status"] == "running":
            started = time.monotonic() - t0
        if job["status"] in ("succeeded", "failed", "cancelled"):
            break
        time.sleep(0.25)
    else:
        raise RuntimeError(f"the retrain did not end within {timeout_s} s")
    took = time.monotonic() - t0
    if job["status"] != "succeeded":
        raise RuntimeError(f"the retrain {job['status']}: {job['error']}")
    res = job["result"] or {}
    uptime_ready = _uptime()  # the load when v2 is ready, before waiting for its controls
    controls = _controls(base, h, res, t0, timeout_s) if res.get("controls") else None
    return {
        "seconds": took,
        "queued_s": started,
        "expected_s": estimate.get("expected_s"),
        "estimate_measured_before": estimate.get("measured_before"),
        "estimate_rates_from": estimate.get("rates_from"),
        "estimate_phases": {p["name"]: p.get("expected_s") for p in estimate.get("phases") or []},
        "calibration": _calibration(base, h, pid),
        "steps": job["total_steps"],
        "params": {k: job["params"].get(k) for k in ("epochs", "batch_size", "max_length", "lr", "seed", *body)},
        "phases": [
            {"name": p["name"], "label": p["label"], "done": p["done"], "total": p["total"], "seconds": p["seconds"]}
            for p in job.get("phases") or []
        ],
        "metrics_before": res.get("metrics_before"),
        "metrics_after": res.get("metrics_after"),
        "uptime_ready": uptime_ready,
        "estimate_controls_s": estimate.get("controls_s"),
        "estimate_until_controls_s": estimate.get("until_controls_s"),
        "controls": controls,
    }


def _controls(base: str, h: dict[str, str], res: dict[str, Any], t0: float, timeout_s: float) -> dict[str, Any]:
    """With controls: after *v2 is ready*, wait until every control job that follows it has ended (the
    version's ``controls``: done + ended = total), timed from the same request (issue 30 §5)."""
    vid = res["version_id"]
    while time.monotonic() - t0 < timeout_s:
        live = httpx.get(f"{base}/api/versions/{vid}", headers=h).json()
        c = live.get("controls") or {}
        if c and c["done"] + c["ended"] >= c["total"]:
            break
        time.sleep(0.5)
    else:
        raise RuntimeError(f"the controls did not end within {timeout_s} s")
    done_s = time.monotonic() - t0
    jobs = []
    for run in c["runs"]:
        job = httpx.get(f"{base}/api/jobs/{run['job_id']}", headers=h).json() if run.get("job_id") else {}
        jobs.append(
            {
                "arm": run["arm"],
                "seed": run["seed"],
                "status": run["status"],
                "steps": job.get("total_steps"),
                "created_at": job.get("created_at"),
                "started_at": job.get("started_at"),
                "finished_at": job.get("finished_at"),
            }
        )
    cmp = (live.get("config") or {}).get("comparison") or {}
    verdicts = {
        name: {m: v["text"] for m, v in s.get("verdicts", {}).items()} for name, s in (cmp.get("sets") or {}).items()
    }
    return {"done_s": done_s, "uptime_done": _uptime(), "jobs": jobs, "arms": cmp.get("arms"), "verdicts": verdicts}


def run(
    demo_examples: int,
    timeout_s: float,
    data_dir: Path,
    retrain_seed: int | None = None,
    settings: dict[str, Any] | None = None,
    demo_model: Path | None = None,
) -> dict[str, Any]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "XMD_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}
    env.pop("XMD_DATABASE_URL", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "backend"), str(ROOT), env.get("PYTHONPATH", "")])
    argv = [sys.executable, "-m", "xmd.cli", "serve", "--demo", "--port", str(port)]
    argv += ["--demo-examples", str(demo_examples)]
    if demo_model is not None:
        argv += ["--demo-model", str(demo_model)]
    lines: list[str] = []
    t0 = time.monotonic()
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            log(line.rstrip())

    threading.Thread(target=read, daemon=True).start()
    times: dict[str, float | None] = dict.fromkeys(["url_printed", "health", "ui", "project_ready", "explained"])
    token = None
    prep: dict[str, Any] | None = None
    story: dict[str, Any] | None = None
    try:
        while time.monotonic() - t0 < timeout_s and proc.poll() is None:
            now = time.monotonic() - t0
            if token is None:
                m = re.search(r"#token=([^&\s]+)", "".join(lines))
                if m:
                    token, times["url_printed"] = m.group(1), now
            if times["health"] is None and _answers(f"{base}/api/health"):
                times["health"] = now
            if times["ui"] is None and _answers(f"{base}/"):
                times["ui"] = now
            if token and times["health"] is not None:
                h = {"Authorization": f"Bearer {token}"}
                jobs = httpx.get(f"{base}/api/jobs", params={"kind": "prepare_demo"}, headers=h).json()["items"]
                prep = jobs[0] if jobs else prep
                if prep and prep["status"] in ("failed", "cancelled"):
                    raise RuntimeError(f"the preparation {prep['status']}: {prep['error']}")
                if prep and prep["status"] == "succeeded":
                    times["project_ready"] = times["project_ready"] or now
                    explain = httpx.get(f"{base}/api/jobs/{prep['result']['explain_job_id']}", headers=h).json()
                    if explain["status"] == "succeeded":
                        times["explained"] = now
                        if retrain_seed is not None:
                            story = retrain(base, h, timeout_s, retrain_seed, settings)
                        break
                    if explain["status"] in ("failed", "cancelled"):
                        raise RuntimeError(f"the explain job {explain['status']}: {explain['error']}")
            time.sleep(0.25)
        else:
            raise RuntimeError(f"not done within {timeout_s} s (server exit code {proc.poll()})")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    phases = [
        {"name": p["name"], "label": p["label"], "done": p["done"], "total": p["total"], "seconds": p["seconds"]}
        for p in (prep or {}).get("phases") or []
    ]
    train = next((p for p in phases if p["name"] == "train" and p["seconds"]), None)
    per_step = train["seconds"] / max(1, train["done"]) if train else None
    return {
        "seconds": times,
        "fine_tune_steps": train["done"] if train else None,
        "fine_tune_s_per_step": per_step,
        "prepare_demo_phases": phases,
        "terminal_lines": len(lines),
        "retrain": story,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--demo-examples", type=int, default=2000, help="training examples (default 2000: make demo's)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="give up after this many seconds")
    ap.add_argument("--keep", type=Path, default=None, help="data directory to use and keep (default: a temp one)")
    ap.add_argument(
        "--retrain", type=int, default=None, metavar="SEED", help="then the story's retrain with this seed, timed"
    )
    ap.add_argument(
        "--retrain-settings",
        type=json.loads,
        default=None,
        metavar="JSON",
        help="more retrain settings for the estimate and the retrain, e.g. '{\"attribution_every\": 4}'",
    )
    ap.add_argument(
        "--tiny",
        action="store_true",
        help="fine-tune the tests' tiny stand-in model instead of MiniLM (for a loaded shared host; say so)",
    )
    args = ap.parse_args()
    load_start, uptime_start = load_average(), _uptime()
    with tempfile.TemporaryDirectory(prefix="xmd-first-start-") as tmp:
        model = None
        if args.tiny:
            from xmd.core.tinymodel import build_tiny_model

            model = build_tiny_model(Path(tmp) / "tiny")
        data = args.keep if args.keep is not None else Path(tmp) / "data"
        result = run(args.demo_examples, args.timeout, data, args.retrain, args.retrain_settings, model)
    emit(
        {
            "benchmark": "first_start",
            "params": {
                "demo_examples": args.demo_examples,
                "nice": os.nice(0),
                "retrain_seed": args.retrain,
                "retrain_settings": args.retrain_settings,
                "model": "tiny stand-in (xmd.core.tinymodel)" if args.tiny else "all-MiniLM-L6-v2 (bundled)",
            },
            **result,
            "uptime_start": uptime_start,
            "uptime_end": _uptime(),
            "environment": environment(resolve_device("cpu"), loadavg_start=load_start),
        }
    )


if __name__ == "__main__":
    main()
