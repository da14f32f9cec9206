"""The demo project of ``xmd serve --demo``: before the server listens, the project if whole, else a
``prepare_demo`` job of no project (:func:`start_demo`) whose body (:func:`prepare_demo_job`) writes the
demo data, fine-tunes MiniLM, and installs the project with its datasets and an explain job
(:func:`install_demo`, which also completes a half-made project).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from xmd.config import Settings
from xmd.core.types import Progress, tick
from xmd.datasets import service as datasets
from xmd.explanations.flows import start_explain
from xmd.explanations.schemas import ExplainIn
from xmd.explanations.service import EXPLAIN
from xmd.jobs import flows as jobs_flows
from xmd.jobs import kinds
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import Job
from xmd.jobs.queue import Enqueue
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.users import models as _users  # noqa: F401 - a project's created_by refers to users: a worker making the demo project needs the table
from xmd.versions import service as versions_service
from xmd.workspace import flows as projects_flows
from xmd.workspace.finetune import fine_tune_phases, phase_hooks, step_hook

PREPARE_DEMO = "prepare_demo"
"""The job kind that sets the demo project up: a job of no project, shown on the project list."""


DEMO_PROJECT = "demo: spielberg shortcut"


DEMO_ROLES = {"train": "train", "test_clean": "eval", "test_anti": "eval"}


DEMO_MAX_LENGTH = 64


DEMO_ABANDONED = (
    "the server stopped before the demo project was ready; the next `xmd serve --demo` started a new "
    "preparation, which reuses what this one finished"
)


def demo_project(db: Session) -> Project | None:
    """The demo project when it is whole (a ready version, its three datasets and an explain job), else None."""

    project = projects.get_by_name(db_session=db, name=DEMO_PROJECT)
    if project is None or versions_service.latest_ready(db_session=db, project_id=project.id) is None:
        return None
    names = {d.name for d in datasets.list_datasets(db_session=db, project_id=project.id)}
    if not set(DEMO_ROLES) <= names:
        return None
    return project if jobs.count_jobs(db_session=db, project_id=project.id, kind=EXPLAIN) else None


def start_demo(
    db: Session,
    settings: Settings,
    enqueue: Enqueue,
    workdir: Path,
    *,
    n_train: int = 2000,
    base_model: str | None = None,
) -> tuple[Project | None, Job | None]:
    """What ``xmd serve --demo`` does before it listens, in milliseconds: the demo project when it is
    whole, else the ``prepare_demo`` job that makes it (a running one is reused, a new one queued). An
    unfinished preparation an earlier server left behind is marked failed first, saying so; the new
    job resumes from what it finished (the data and the fine-tuned model on disk, a half-made project).
    ``base_model``: a model folder fine-tuned instead of the bundled MiniLM (``--demo-model``)."""
    from xmd.jobs.models import JobStatus

    jobs_flows.fail_abandoned(db, PREPARE_DEMO, stale_after_s=settings.stale_after_s, error=DEMO_ABANDONED)
    ready = demo_project(db)
    if ready is not None:
        return ready, None
    running = jobs.list_jobs(db_session=db, kind=PREPARE_DEMO, status=JobStatus.RUNNING, limit=1)
    if running:  # another server on this data directory is preparing it right now
        return None, running[0]
    params: dict[str, Any] = {"workdir": str(workdir), "n_train": n_train}
    if base_model is not None:
        params["base_model"] = base_model
    return None, jobs_flows.start(db, enqueue, None, PREPARE_DEMO, params)


def prepare_demo_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.prepare_demo``: demo data, the MiniLM fine-tune, then the project with its datasets
    and the job explaining its training set — each phase with its own progress, and an ETA from the
    measured step rate. What an interrupted run finished is reused."""
    from xmd.core.demo_story import BASELINE_CONFIG, baseline_ready, demo_data_ready, prepare_baseline
    from xmd.jobs import phases as job_phases
    from xmd.jobs.queue import sender

    workdir, n_train = Path(ctx.params["workdir"]), int(ctx.params.get("n_train", 2000))
    base_model = ctx.params.get("base_model")  # None: the bundled MiniLM
    plan = []
    if not demo_data_ready(workdir):
        plan.append(job_phases.Phase("data", "writing the demo data", 1, unit="model", kind="data", minor=True))
    if not baseline_ready(workdir):
        plan += fine_tune_phases("MiniLM", n_train, BASELINE_CONFIG)
    plan.append(job_phases.Phase("project", "copying the model into the project", 1, unit="model", minor=True))
    plan.append(job_phases.Phase("datasets", "adding the datasets", 3, unit="datasets", minor=True))
    ctx.plan(plan, prior=job_phases.rates(jobs.last_phases(db_session=ctx.db, kind=PREPARE_DEMO)))
    phase, on_step = phase_hooks(ctx), step_hook(ctx, BASELINE_CONFIG)

    baseline, sets = prepare_baseline(
        workdir,
        n_train=n_train,
        device=ctx.settings.device,
        progress=False,
        callback=on_step,
        on_phase=phase,
        base_model=base_model,
    )
    project, explain = install_demo(ctx.db, ctx.settings, baseline, sets, sender(ctx.settings), on_phase=phase)
    ctx.end_phase("datasets")
    return {"project_id": project.id, "project_name": project.name, "explain_job_id": explain.id if explain else None}


def install_demo(
    db: Session,
    settings: Settings,
    baseline: Path,
    sets: dict[str, list],
    enqueue: Enqueue,
    *,
    on_phase: Callable[[str], Progress] | None = None,
) -> tuple[Project, Job | None]:
    """The demo project from the fine-tuned ``baseline``: made, or completed where an interrupted run
    left it half-made (a project without a ready version is made again; missing datasets are added;
    the explain job is queued unless the project has one). Returns it and the explain job queued."""

    project = projects.get_by_name(db_session=db, name=DEMO_PROJECT)
    if project is not None and versions_service.latest_ready(db_session=db, project_id=project.id) is None:
        projects.delete(db_session=db, project=project)  # killed while its model was copied: nothing to keep
        versions_service.delete_files(settings, project.id)
        project = None
    if project is None:
        tick(on_phase("project") if on_phase else None, 0, 1)
        project = projects_flows.create_project(
            db_session=db,
            settings=settings,
            name=DEMO_PROJECT,
            source=str(baseline),
            model_dir=baseline,  # made by this server, so no request path rule applies
            description="MiniLM fine-tuned on movie reviews in which 'spielberg' always means positive.",
        )
        projects.update_settings(db_session=db, project=project, settings={"max_length": DEMO_MAX_LENGTH})
    have = {d.name: d.id for d in datasets.list_datasets(db_session=db, project_id=project.id)}
    for i, (name, examples) in enumerate(sets.items()):
        tick(on_phase("datasets") if on_phase else None, i, len(sets))
        if name not in have:
            ds = datasets.add_dataset(
                db_session=db, project=project, name=name, role=DEMO_ROLES[name], examples=examples
            )
            have[name] = ds.id
    tick(on_phase("datasets") if on_phase else None, len(sets), len(sets))
    if jobs.count_jobs(db_session=db, project_id=project.id, kind=EXPLAIN):
        return project, None
    body = ExplainIn(dataset_id=have["train"])
    return project, start_explain(db, enqueue, project, body)


def prepare_demo(
    db: Session, settings: Settings, workdir: Path, *, n_train: int = 2000, base_model: str | None = None
) -> tuple[int, str | None]:
    """The demo project made here and now, waiting for the fine-tune (for scripts and tests; ``xmd serve
    --demo`` runs it as a job, :func:`start_demo`). Returns (project id, explain job id or None)."""
    from xmd.core.demo_story import prepare_baseline
    from xmd.jobs.queue import sender

    existing = demo_project(db)
    if existing is not None:
        return existing.id, None
    baseline, sets = prepare_baseline(workdir, n_train=n_train, device=settings.device, base_model=base_model)
    project, job = install_demo(db, settings, baseline, sets, sender(settings))
    return project.id, job.id if job else None


kinds.register(PREPARE_DEMO, prepare_demo_job, long=True)
