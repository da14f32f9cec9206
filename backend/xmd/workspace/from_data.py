"""A project started from labelled data instead of a fine-tuned model: a ``from_data`` job (of no project
until it has made one) fine-tunes a base model on the data — the bundled MiniLM, a server folder or a Hub
id — then makes the project with that model as version 1, records the base model (so the retrain's
``deletion_base`` control can run), adds the data as its training set and queues the job explaining it.

Everything a request can get wrong is checked by :func:`start_from_data` before the job exists (the
route's 4xx change nothing); the job's fine-tune is :func:`xmd.core.from_data.fine_tune_from`, the one
``xmd train`` runs, reported as the demo's preparation is (:mod:`xmd.workspace.finetune`).
"""

from __future__ import annotations

import shutil
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from xmd.config import Settings
from xmd.core.data import load_examples, save_examples
from xmd.core.from_data import check_base, fine_tune_from
from xmd.core.options import build
from xmd.core.retrain import TrainConfig
from xmd.core.types import Example, tick
from xmd.datasets import service as datasets
from xmd.datasets.models import DatasetRole
from xmd.db.errors import ConflictError
from xmd.explanations.flows import start_explain
from xmd.explanations.schemas import ExplainIn
from xmd.jobs import flows as jobs_flows
from xmd.jobs import kinds
from xmd.jobs import phases as job_phases
from xmd.jobs import service as jobs
from xmd.jobs.context import JobContext
from xmd.jobs.models import Job
from xmd.jobs.queue import Enqueue, QueueUnavailableError, sender
from xmd.projects import paths
from xmd.projects import service as projects
from xmd.versions import service as versions_service
from xmd.workspace import flows as projects_flows
from xmd.workspace.finetune import fine_tune_phases, phase_hooks, step_hook

FROM_DATA = "from_data"
"""The job kind that fine-tunes a base model on uploaded data and makes a project of it."""

MAX_ROWS = 50_000
"""The most rows a project started from data may train on: a fine-tune on a CPU is minutes per
thousand rows (a larger set is fine-tuned with ``xmd train`` and brought as a model)."""

TRAIN_NAME = "train"


def base_choice(settings: Settings, *, model_path: str | None, hub_id: str | None) -> tuple[Path, dict, str]:
    """The base model a request names (neither: the bundled MiniLM): its local folder now (a Hub id
    fetched into the cache), the record the project keeps, and its name as the screens say it."""
    if model_path is None and hub_id is None:
        return paths.bundled_model_dir("minilm"), {"bundled": "minilm"}, "MiniLM"
    source = paths.model_source(settings, model_path=model_path, hub_id=hub_id)
    record = paths.base_model_record(settings, model_path=model_path, hub_id=hub_id)
    return source.folder, {k: v for k, v in record.items() if k != "recipe"}, source.record


def start_from_data(
    db: Session,
    settings: Settings,
    enqueue: Enqueue,
    *,
    name: str,
    examples: list[Example],
    labels: list[str],
    base: tuple[Path, dict, str],
    config: TrainConfig,
    description: str = "",
    source_name: str | None = None,
    text_column: str = "text",
    label_column: str = "label",
    user_id: int | None = None,
) -> Job:
    """Queue the ``from_data`` job for checked ``examples`` (:func:`xmd.core.from_data.read_labelled`):
    409 when the name is taken, 422 when the base model cannot take ``labels``; the data waits for the
    job in a folder of its own under the data directory."""
    name = name.strip()
    if projects.get_by_name(db_session=db, name=name) is not None:
        raise ConflictError(f"project {name!r} already exists")
    folder, record, shown = base
    check_base(folder, labels)
    workdir = Path(settings.data_dir) / "from-data" / uuid.uuid4().hex
    save_examples(examples, workdir / "train.jsonl")
    params: dict[str, Any] = {
        "workdir": str(workdir),
        "name": name,
        "description": description,
        "labels": list(labels),
        "base": {**record, "recipe": asdict(config)},
        "base_name": shown,
        "n_train": len(examples),
        "source_name": source_name,
        "text_column": text_column,
        "label_column": label_column,
        "user_id": user_id,
    }
    try:
        return jobs_flows.start(db, enqueue, None, FROM_DATA, params)
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise


def from_data_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.from_data``: the fine-tune (load, steps with an ETA, cancel), then the project with
    version 1, its recorded base model, its training set and the explain job. Its folder goes either way."""
    p = ctx.params
    workdir, labels, record = Path(p["workdir"]), list(p["labels"]), dict(p["base"])
    config = build(TrainConfig, record["recipe"])  # a setting removed since the job was queued is ignored
    plan = fine_tune_phases(str(p["base_name"]), int(p["n_train"]), config)
    plan.append(job_phases.Phase("project", "copying the model into the project", 1, unit="model", minor=True))
    plan.append(job_phases.Phase("datasets", "adding the training set", 1, unit="datasets", minor=True))
    ctx.plan(plan, prior=job_phases.rates(jobs.last_phases(db_session=ctx.db, kind=FROM_DATA)))
    phase = phase_hooks(ctx)
    project = None
    try:
        train = load_examples(workdir / "train.jsonl", id_column="id", labels=labels, max_chars=None)
        base = paths.base_model_folder(ctx.settings, record)  # checked again: the operator may have changed it
        model_dir = workdir / "model"
        fine_tune_from(
            base, train, model_dir, labels=labels, config=config, device=ctx.settings.device,
            callback=step_hook(ctx, config), on_phase=phase, name=p["name"],
        )  # fmt: skip
        tick(phase("project"), 0, 1)
        project = projects_flows.create_project(
            db_session=ctx.db,
            settings=ctx.settings,
            name=p["name"],
            source=f"fine-tuned from {p['base_name']} on {p.get('source_name') or 'uploaded data'}"[:1000],
            labels=labels,
            description=p.get("description") or "",
            user_id=p.get("user_id"),
            model_dir=model_dir,  # made by this job from checked inputs: no request path rule applies
            base_model=record,
        )
        projects.update_settings(db_session=ctx.db, project=project, settings={"max_length": config.max_length})
        tick(phase("datasets"), 0, 1)
        ds = datasets.add_dataset(
            db_session=ctx.db,
            project=project,
            name=TRAIN_NAME,
            role=DatasetRole.TRAIN,
            examples=train,
            source_name=p.get("source_name"),
            text_column=p.get("text_column") or "text",
            label_column=p.get("label_column") or "label",
        )
        ctx.end_phase("datasets")
        try:
            explain: str | None = start_explain(ctx.db, sender(ctx.settings), project, ExplainIn(dataset_id=ds.id)).id
        except QueueUnavailableError:  # its row says so; the project is made either way, and Data offers it
            explain = None
    except BaseException:
        if project is not None:  # half made (no training set): nothing worth keeping
            ctx.db.rollback()
            projects.delete(db_session=ctx.db, project=project)
            versions_service.delete_files(ctx.settings, project.id)
        raise
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"project_id": project.id, "project_name": project.name, "explain_job_id": explain}


def remove_leftovers(db: Session, job_id: str | None) -> list[str]:
    """After a ``from_data`` job failed, was cancelled while queued or abandoned: its data folder goes
    (``job_id=None``: the stale-job sweep, every finished job's folder)."""
    rows = [jobs.get(db_session=db, job_id=job_id)] if job_id else jobs.list_jobs(db_session=db, kind=FROM_DATA)
    removed = []
    for job in rows:
        folder = (job.params or {}).get("workdir") if job is not None and job.kind == FROM_DATA else None
        if folder and (job_id or job.finished_at is not None) and Path(folder).exists():
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(job.id)
    return removed


kinds.register(FROM_DATA, from_data_job, long=True)
kinds.on_cleanup(FROM_DATA, remove_leftovers)
