"""A retrain's calibration: a project's first explain job times each kind of a retrain's work
(:mod:`xmd.core.calibrate`), so that its first retrain shows an expected duration before it starts. It
runs inside the explain job (:data:`xmd.explanations.flows.BEFORE_HELPERS`, filled here at import).
"""

from __future__ import annotations

import logging

from xmd.core import calibrate as timing
from xmd.core.cache import process_cache
from xmd.core.retrain import RetrainConfig
from xmd.datasets import service as datasets
from xmd.datasets.models import Dataset
from xmd.explanations.flows import BEFORE_HELPERS
from xmd.explanations.service import EXPLAIN
from xmd.jobs import service as jobs
from xmd.jobs.context import JobCancelled, JobContext
from xmd.retrain import plan
from xmd.retrain.estimate import RETRAIN
from xmd.versions import service as versions
from xmd.versions.models import ModelVersion

log = logging.getLogger("xmd.workers")


def calibrate(ctx: JobContext, version: ModelVersion, dataset: Dataset) -> bool:
    """Time each kind of a retrain's work on this version and a sample of the dataset
    (:mod:`xmd.core.calibrate`), so that the project's first retrain shows an expected duration before it
    starts; the times go into the job's phase log, where :func:`xmd.retrain.estimate.retrain_prior` finds
    them. Runs once per project, until a retrain has measured real rates, after the job's first chunk (the
    ranking shows at once) and before its helpers are called, so nothing else of this job shares the
    machine. Returns whether it ran. A failure only costs the estimate (logged); a cancel stops the job.
    The job parameter ``calibrate: false`` turns it off (``bench/worker_scaling.py`` times the explaining
    alone)."""
    if ctx.params.get("calibrate") is False:
        return False
    project_id = version.project_id
    for kind in (RETRAIN, EXPLAIN):
        if jobs.last_phases(db_session=ctx.db, kind=kind, project_id=project_id, any_project=False):
            return False
    config = RetrainConfig()
    sample = datasets.sample_core_examples(db_session=ctx.db, dataset=dataset, n=timing.sample_size(config))
    done = jobs.get_or_raise(db_session=ctx.db, job_id=ctx.job.id).progress or 0.0  # the first chunk's share
    ctx.db.commit()

    def on_kind(kind: str) -> None:
        label = f"{plan.CALIBRATION_LABELS.get(kind, kind)}, for the retrain's expected duration"
        if jobs.report_progress(db_session=ctx.db, job_id=ctx.job.id, progress=done, phase={"phase": label}):
            raise JobCancelled("cancelled on request")

    try:
        with process_cache(ctx.settings.device, versions.locator(ctx.settings)).use(version.path) as loaded:
            timings = timing.time_retrain_work(loaded, sample, config=config, on_kind=on_kind)
    except JobCancelled:
        raise
    except Exception as exc:  # the estimate is optional; the explanations are the job
        log.warning("job %s: timing a retrain's work failed, so no expected duration: %s", ctx.job.id, exc)
        timings = []
    phase = {"phase": None, "phases": plan.calibration_log(timings) or None}
    jobs.report_progress(db_session=ctx.db, job_id=ctx.job.id, progress=done, phase=phase)
    return bool(timings)


BEFORE_HELPERS.append(calibrate)
