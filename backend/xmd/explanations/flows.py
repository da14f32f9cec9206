"""Explanations that orchestrate other domains: one example on request (compute, store, mark its
feedback), and a whole dataset as a job, in chunks that any number of workers share.

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
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from xmd.core.attribution import DEFAULT_METHOD, METHODS, explain
from xmd.core.cache import ModelCache, process_cache
from xmd.core.types import DataError, XMDError
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import word_key
from xmd.datasets import service as datasets
from xmd.datasets.models import Dataset, DatasetRole, Example
from xmd.db.engine import lock_row
from xmd.explanations import service as explanations
from xmd.explanations.schemas import ExplainIn, WordMark
from xmd.explanations.service import EXPLAIN
from xmd.feedback import service as feedback_service
from xmd.feedback import team
from xmd.feedback.models import FeedbackLevel
from xmd.jobs import kinds, queue
from xmd.jobs import service as jobs
from xmd.jobs.context import JobCancelled, JobContext, process_alive, worker_id
from xmd.jobs.flows import start
from xmd.jobs.models import Job, JobStatus
from xmd.jobs.queue import Enqueue
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.users.models import User
from xmd.versions import service as versions
from xmd.versions.models import ModelVersion

log = logging.getLogger("xmd.workers")

NO_TRAIN = "the project has no training dataset; upload one first"

DEFAULT_CHUNK_SIZE = 256
DEFAULT_MAX_LENGTH = 256
POLL_S = 0.5
PHASES = ["claim", "plan", "read", "model", "explain", "store", "mark"]
"""A chunk's phases, timed in ``chunk_s``: claiming it and marking it done (the job row, locked), reading
the version, dataset and plan, reading its examples, taking the model from the process cache,
explaining, storing."""


# ---------------------------------------------------------------------------------- one example


def explanation_for(
    db: Session, models: ModelCache, project: Project, mv: ModelVersion, example: Example, method: str
) -> CoreExplanation:
    """The stored explanation, or compute, store (updating the aggregates) and return it."""
    found = explanations.get_explanation(db_session=db, example_id=example.id, model_version_id=mv.id, method=method)
    if found is not None:
        return found
    with models.use(mv.path, list(project.labels)) as loaded:
        exp = explain(
            loaded,
            [example.text],
            method=method,
            max_length=projects.max_length(project),
            example_ids=[example.ext_id],
        )
    explanations.upsert_explanations(db_session=db, model_version=mv, method=method, items=[(example, exp[0])])
    stored = explanations.get_explanation(db_session=db, example_id=example.id, model_version_id=mv.id, method=method)
    assert stored is not None
    return stored


def marks_for(
    db: Session,
    project: Project,
    example: Example,
    words: list[str],
    predicted: int | None = None,
    user: User | None = None,
) -> list[WordMark]:
    """Instance feedback on the example, plus the task-level feedback that applies to it: on one of its
    words, for its gold label (or any), and whose scope (correct / incorrect predictions) matches
    ``predicted`` under the version shown (scoped feedback is left out when the prediction is unknown).
    Each mark says whose it is (``by``, ``mine`` for ``user``); in blind mode an annotator gets their
    own marks only, until they mark the example done (``feedback.team.visible_to``)."""
    where = team.visible_to(project, user) if user is not None else None
    inst = feedback_service.list_feedback(db_session=db, project_id=project.id, example_id=example.id, where=where)
    task = feedback_service.list_feedback(db_session=db, project_id=project.id, level=FeedbackLevel.TASK, where=where)
    names = team.names_of(db, sorted({fb.owner for fb in inst} | {fb.owner for fb in task}))
    me = feedback_service.owner_of(user.id) if user is not None else None
    marks = [
        WordMark(
            word_index=fb.word_index,
            action=fb.action.value,
            level="instance",
            by=names[fb.owner],
            mine=me is None or fb.owner == me,
        )
        for fb in inst
        if fb.word_index is not None
    ]
    keys = [word_key(w) for w in words] if task else []
    for fb in task:
        scope = fb.scope.value if fb.scope else "all"
        if scope != "all" and (
            predicted is None or example.label is None or (predicted == example.label) != (scope == "correct")
        ):
            continue
        for i, k in enumerate(keys):
            if k == fb.word and (fb.label is None or fb.label == example.label):
                marks.append(
                    WordMark(
                        word_index=i,
                        action=fb.action.value,
                        level="task",
                        scope=fb.scope.value if fb.scope else None,
                        label=fb.label,
                        by=names[fb.owner],
                        mine=me is None or fb.owner == me,
                    )
                )
    return marks


# ---------------------------------------------------------------------------------- a dataset, as a job


def _version_and_dataset(db: Session, params: dict[str, Any]) -> tuple[ModelVersion, Dataset]:
    version = versions.ready_or_raise(db_session=db, model_version_id=int(params["version_id"]))
    project = projects.get_or_raise(db_session=db, project_id=version.project_id)
    dataset = datasets.in_project(db_session=db, project=project, dataset_id=int(params["dataset_id"]))
    return version, dataset


def _state(db: Session, job_id: str, *, lock: bool) -> tuple[Job, dict[str, Any]]:
    if lock:
        lock_row(db, Job, Job.id == job_id)
    job = jobs.get_or_raise(db_session=db, job_id=job_id)
    return job, dict(job.result or {})


def plan(ctx: JobContext) -> dict[str, Any]:
    """Split the dataset into chunks of ``chunk_size`` examples (by id) and store the plan on the job."""
    params = ctx.params
    method = params.get("method") or DEFAULT_METHOD
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


def _next_claim(st: dict[str, Any], owner: str, reclaim_after: float) -> int | None:
    """The next chunk nobody is working on (a dead or stale claim counts as nobody), claimed in ``st``."""
    now = time.time()
    done, claims = st["done"], st["claims"]
    for i in range(len(st["bounds"])):
        key = str(i)
        if key in done:
            continue
        c = claims.get(key)
        if c is None or now - c["at"] > reclaim_after or (c["by"] != owner and process_alive(c["by"]) is False):
            st["claims"] = {**claims, key: {"by": owner, "at": now}}
            return i
    return None


def _claim(db: Session, job_id: str, owner: str, reclaim_after: float) -> tuple[int | None, bool]:
    """Claim the next chunk nobody is working on; returns (chunk index or None, job still running)."""
    job, st = _state(db, job_id, lock=True)
    if job.status is not JobStatus.RUNNING or "bounds" not in st:
        db.commit()
        return None, False
    i = _next_claim(st, owner, reclaim_after)
    if i is not None:
        job.result = st
    db.commit()
    return i, True


class _Chunks:
    """What every chunk of one job shares, read once per participant rather than once per chunk: the
    version, the dataset, the method and the chunk bounds (the plan never changes once written)."""

    def __init__(self, ctx: JobContext) -> None:
        self.version, self.dataset = _version_and_dataset(ctx.db, ctx.params)
        self.method = ctx.params.get("method") or DEFAULT_METHOD
        _, st = _state(ctx.db, ctx.job.id, lock=False)
        ctx.db.commit()
        self.bounds: list[list[int]] = st.get("bounds", [])


def _explain_chunk(
    ctx: JobContext,
    shared: _Chunks,
    i: int,
    owner: str,
    reclaim_after: float,
    claim_s: float = 0.0,
    setup_s: float = 0.0,
) -> int | None:
    """Explain chunk ``i`` and, in the same transaction, store it, mark it done and claim the next one
    (one lock of the job row per chunk, not two); returns the next chunk claimed, or None.

    The seconds per phase, summed over the chunks, go into the result's ``chunk_s``: what orchestration
    costs beside the explaining (``bench/worker_scaling.py`` reads it). ``claim_s`` is this chunk's share
    of the claim (the first chunk's own claim; later ones are claimed while the previous is marked);
    ``setup_s`` is the reading of what the chunks share, counted with this chunk's plan."""
    t0 = time.perf_counter()
    db, params = ctx.db, ctx.params
    lo, hi = shared.bounds[i]
    t_plan = time.perf_counter()
    rows = list(
        db.scalars(
            select(Example)
            .where(Example.dataset_id == shared.dataset.id, Example.id.between(lo, hi))
            .order_by(Example.id)
        )
    )
    t1 = time.perf_counter()
    with process_cache(ctx.settings.device, versions.locator(ctx.settings)).use(shared.version.path) as loaded:
        t2 = time.perf_counter()
        ctx.check_cancel()  # loading a model can take seconds
        exps = explain(
            loaded,
            [ex.text for ex in rows],
            method=shared.method,
            max_length=int(params.get("max_length") or DEFAULT_MAX_LENGTH),
            batch_size=int(params.get("batch_size") or 32),
            example_ids=[ex.ext_id for ex in rows],
            on_batch=ctx.cancel_hook(),  # a cancel stops the chunk within about a second
        )
        t3 = time.perf_counter()
    explanations.upsert_explanations(
        db_session=db,
        model_version=shared.version,
        method=shared.method,
        items=list(zip(rows, exps, strict=True)),
        commit=False,
    )
    t4 = time.perf_counter()
    job, st = _state(db, ctx.job.id, lock=True)
    st["done"] = {**st["done"], str(i): owner}
    st["claims"] = {k: v for k, v in st["claims"].items() if k != str(i)}
    nxt = _next_claim(st, owner, reclaim_after) if job.status is JobStatus.RUNNING else None
    phases = [claim_s, setup_s + t_plan - t0, t1 - t_plan, t2 - t1, t3 - t2, t4 - t3, time.perf_counter() - t4]
    before = st.get("chunk_s") or {"chunks": 0, "sum": [0.0] * len(PHASES)}
    chunk_s = {"phases": PHASES, "chunks": before["chunks"] + 1}
    chunk_s["sum"] = [round(a + b, 4) for a, b in zip(before["sum"], phases, strict=True)]
    job.result = {**st, "chunk_s": chunk_s}
    db.commit()
    n = len(st["bounds"])
    # forward only: another worker of this job may have reported a later chunk already
    ctx.progress(100.0 * len(st["done"]) / n, step=len(st["done"]), total_steps=n, forward_only=True)
    return nxt


def work(ctx: JobContext, *, lead: bool, after_first: Callable[[], object] | None = None) -> dict[str, Any] | None:
    """Claim and explain chunks until none is left; the lead then waits for the others' chunks.
    Returns the job's result once every chunk is done (whoever sees that first finishes the job).
    ``after_first`` runs once this participant's first chunk is in (or at once when it gets none)."""
    owner = worker_id()
    reclaim_after = 4 * ctx.settings.stale_after_s
    shared: _Chunks | None = None
    while True:
        ctx.check_cancel()
        t = time.perf_counter()
        i, running = _claim(ctx.db, ctx.job.id, owner, reclaim_after)
        if not running:
            return None  # failed, cancelled or finished by someone else
        claim_s = time.perf_counter() - t
        while i is not None:  # each chunk's mark claims the next: one job-row lock per chunk
            t = time.perf_counter()
            shared = shared or _Chunks(ctx)
            i = _explain_chunk(ctx, shared, i, owner, reclaim_after, claim_s, time.perf_counter() - t)
            claim_s = 0.0
            ctx.check_cancel()
            if after_first is not None:  # the next chunk stays claimed by this participant meanwhile
                after_first, then = None, after_first
                then()
        if after_first is not None:
            after_first, then = None, after_first
            then()
        _, st = _state(ctx.db, ctx.job.id, lock=False)
        ctx.db.commit()
        if len(st["done"]) == len(st["bounds"]):
            return {
                "n_explained": st["n_examples"],
                "chunks": len(st["bounds"]),
                "workers": sorted(set(st["done"].values())),
                "chunk_s": st.get("chunk_s", {}),
            }
        if not lead:
            return None  # the rest is claimed by live participants; the lead waits for them
        time.sleep(POLL_S)


def start_explain(db: Session, enqueue: Enqueue, project: Project, body: ExplainIn) -> Job:
    """Explain a training dataset (default: the first) with a ready version and a method."""
    mv = versions.resolve(db_session=db, project=project, version_id=body.version_id)
    method = projects.method_for(project, body.method)
    wanted = None if body.dataset_id is None else [body.dataset_id]
    ids = datasets.resolve_ids(db_session=db, project=project, ids=wanted, role=DatasetRole.TRAIN)
    if not ids:
        raise DataError(NO_TRAIN)
    params = {"version_id": mv.id, "dataset_id": ids[0].id, "method": method, "chunk_size": body.chunk_size}
    return start(db, enqueue, project, EXPLAIN, params)


BEFORE_HELPERS: list[Callable[[JobContext, ModelVersion, Dataset], object]] = []
"""Work another domain does in an explain job once its first chunk is in and before its helpers are
called, while nothing else of the job shares the machine (a retrain's calibration,
:mod:`xmd.retrain.calibration`, registers itself here)."""


def explain_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.explain``: plan the chunks, explain the first (the ranking starts filling at once,
    issue 30 §6), run :data:`BEFORE_HELPERS` (time a retrain's work once per project), call helpers, work
    on, and wait until all are done."""
    st = plan(ctx)

    def then_the_rest() -> None:
        if BEFORE_HELPERS:
            version, dataset = _version_and_dataset(ctx.db, ctx.params)
            for hook in BEFORE_HELPERS:
                hook(ctx, version, dataset)
        queue.send_helpers(ctx.settings, ctx.job, min(ctx.settings.explain_fanout, len(st["bounds"]) - 1))

    result = work(ctx, lead=True, after_first=then_the_rest)
    if result is None:
        job = jobs.get_or_raise(db_session=ctx.db, job_id=ctx.job.id)
        if job.status is JobStatus.SUCCEEDED:  # a helper did the last chunk and finished the job
            return dict(job.result or {})
        if job.cancel_requested:
            raise JobCancelled("cancelled on request")
        raise XMDError(f"the job stopped while explaining (it is now {job.status.value})")
    return result


kinds.register(EXPLAIN, explain_job, helper=lambda ctx: work(ctx, lead=False))
