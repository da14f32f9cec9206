"""Explain a whole dataset in chunks that any number of workers share.

The job row holds the plan in ``result`` while it runs: chunk bounds (example id ranges), which
chunks are done and who claimed the others. The first worker (the job's own message) writes the plan
and sends a few helper messages; every participant then claims chunks one at a time under a lock on
the job row, explains them and writes the explanations *and* marks the chunk done in one
transaction, so a chunk is either fully counted or not at all. Word aggregates are updated
incrementally by ``upsert_explanations``, which serialises writers per (version, method): the final
aggregates are the same whichever worker did which chunk (sums may differ in the last floating-point
bits, since additions happen in another order).

A claim whose worker died (same host: pid gone) or that is older than ``4 x stale_after_s`` is taken
over by another participant; explaining a chunk twice is harmless (upserts replace). The first worker
stays until every chunk is done, so a job with work left always has a heartbeat.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session
from xmd.core.attribution import METHODS, explain
from xmd.core.modeling import LoadedModel, load_model
from xmd.core.types import DataError, XMDError
from xmd.datasets import service as datasets
from xmd.datasets.models import Example
from xmd.db.engine import lock_row
from xmd.explanations import service as explanations
from xmd.jobs import service as jobs
from xmd.jobs.models import Job, JobStatus
from xmd.models import service as models
from xmd.models.models import ModelStatus, ModelVersion

from workers.runtime import JobCancelled, JobContext, _process_alive, worker_id

log = logging.getLogger("xmd.workers")

DEFAULT_CHUNK_SIZE = 256
DEFAULT_MAX_LENGTH = 256
POLL_S = 0.5

_MODELS: dict[tuple[str, str], LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


def cached_model(path: str, device: str) -> LoadedModel:
    """The model of a version, loaded once per process: consecutive chunks reuse it (one kept)."""
    key = (path, device)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS.clear()
            _MODELS[key] = load_model(path, device=device)
        return _MODELS[key]


def _version_and_dataset(db: Session, params: dict[str, Any]) -> tuple[ModelVersion, Any]:
    version = models.get_or_raise(db_session=db, model_version_id=int(params["version_id"]))
    if version.status is not ModelStatus.READY:
        raise XMDError(f"model version v{version.version} is {version.status.value}; only a ready version can explain")
    dataset = datasets.get_or_raise(db_session=db, dataset_id=int(params["dataset_id"]))
    if dataset.project_id != version.project_id:
        raise DataError(f"dataset {dataset.id} belongs to another project than model version {version.id}")
    return version, dataset


def _state(db: Session, job_id: str, *, lock: bool) -> tuple[Job, dict[str, Any]]:
    if lock:
        lock_row(db, Job, Job.id == job_id)
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    return job, dict(job.result or {})


def plan(ctx: JobContext) -> dict[str, Any]:
    """Split the dataset into chunks of ``chunk_size`` examples (by id) and store the plan on the job."""
    params = ctx.params
    method = params.get("method") or "grad_x_input"
    if method not in METHODS:
        raise DataError(f"unknown attribution method {method!r}; choose one of {METHODS}")
    _, dataset = _version_and_dataset(ctx.db, params)
    size = max(1, int(params.get("chunk_size") or DEFAULT_CHUNK_SIZE))
    ids = list(ctx.db.scalars(select(Example.id).where(Example.dataset_id == dataset.id).order_by(Example.id)))
    if not ids:
        raise DataError(f"dataset {dataset.name!r} has no examples")
    bounds = [[ids[i], ids[min(i + size, len(ids)) - 1]] for i in range(0, len(ids), size)]
    job, _ = _state(ctx.db, ctx.job.id, lock=True)
    job.result = {"n_examples": len(ids), "bounds": bounds, "done": {}, "claims": {}}
    job.total_steps = len(bounds)
    ctx.db.commit()
    return job.result


def _claim(db: Session, job_id: str, owner: str, reclaim_after: float) -> tuple[int | None, bool]:
    """Claim the next chunk nobody is working on; returns (chunk index or None, job still running)."""
    job, st = _state(db, job_id, lock=True)
    if job.status is not JobStatus.RUNNING or "bounds" not in st:
        db.commit()
        return None, False
    now = time.time()
    done, claims = st["done"], dict(st["claims"])
    for i in range(len(st["bounds"])):
        key = str(i)
        if key in done:
            continue
        c = claims.get(key)
        if c is None or now - c["at"] > reclaim_after or (c["by"] != owner and _process_alive(c["by"]) is False):
            claims[key] = {"by": owner, "at": now}
            job.result = {**st, "claims": claims}
            db.commit()
            return i, True
    db.commit()
    return None, True


def _explain_chunk(ctx: JobContext, i: int, owner: str) -> int:
    """Explain chunk ``i`` and, in the same transaction, store it and mark it done; returns chunks done."""
    db, params = ctx.db, ctx.params
    version, dataset = _version_and_dataset(db, params)
    method = params.get("method") or "grad_x_input"
    _, st = _state(db, ctx.job.id, lock=False)
    db.commit()
    lo, hi = st["bounds"][i]
    rows = list(
        db.scalars(
            select(Example).where(Example.dataset_id == dataset.id, Example.id.between(lo, hi)).order_by(Example.id)
        )
    )
    loaded = cached_model(version.path, ctx.settings.device)
    exps = explain(
        loaded,
        [ex.text for ex in rows],
        method=method,
        max_length=int(params.get("max_length") or DEFAULT_MAX_LENGTH),
        batch_size=int(params.get("batch_size") or 32),
        example_ids=[ex.ext_id for ex in rows],
    )
    explanations.upsert_explanations(
        db_session=db, model_version=version, method=method, items=list(zip(rows, exps, strict=True)), commit=False
    )
    job, st = _state(db, ctx.job.id, lock=True)
    done = {**st["done"], str(i): owner}
    claims = {k: v for k, v in st["claims"].items() if k != str(i)}
    job.result = {**st, "done": done, "claims": claims}
    db.commit()
    n = len(st["bounds"])
    ctx.progress(100.0 * len(done) / n, step=len(done), total_steps=n)
    return len(done)


def work(ctx: JobContext, *, lead: bool) -> dict[str, Any] | None:
    """Claim and explain chunks until none is left; the lead then waits for the others' chunks.
    Returns the job's result once every chunk is done (whoever sees that first finishes the job)."""
    owner = worker_id()
    reclaim_after = 4 * ctx.settings.stale_after_s
    while True:
        ctx.check_cancel()
        i, running = _claim(ctx.db, ctx.job.id, owner, reclaim_after)
        if not running:
            return None  # failed, cancelled or finished by someone else
        if i is not None:
            _explain_chunk(ctx, i, owner)
            continue
        _, st = _state(ctx.db, ctx.job.id, lock=False)
        ctx.db.commit()
        if len(st["done"]) == len(st["bounds"]):
            return {
                "n_explained": st["n_examples"],
                "chunks": len(st["bounds"]),
                "workers": sorted(set(st["done"].values())),
            }
        if not lead:
            return None  # the rest is claimed by live participants; the lead waits for them
        time.sleep(POLL_S)


def explain_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.explain``: plan the chunks, call helpers, work, and wait until all are done."""
    from workers.app import app

    st = plan(ctx)
    n_helpers = min(ctx.settings.explain_fanout, len(st["bounds"]) - 1)
    for k in range(n_helpers):
        app.send_task(
            "xmd.explain_chunk",
            args=[ctx.job.id],
            queue=ctx.settings.default_queue,
            task_id=f"{ctx.job.id}-helper-{k}",
        )
    result = work(ctx, lead=True)
    if result is None:
        job = jobs.get_or_raise(db_session=ctx.db, job_id=ctx.job.id)
        if job.status is JobStatus.SUCCEEDED:  # a helper did the last chunk and finished the job
            return dict(job.result or {})
        if job.cancel_requested:
            raise JobCancelled("cancelled on request")
        raise XMDError(f"the job stopped while explaining (it is now {job.status.value})")
    return result
