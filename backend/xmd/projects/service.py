"""Projects: create, look up, delete (deleting cascades to everything the project owns)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from xmd.core.attribution import DEFAULT_METHOD, METHODS
from xmd.core.types import DataError
from xmd.db.engine import is_sqlite, lock_row
from xmd.db.errors import ConflictError, found
from xmd.projects.models import Project


def get(*, db_session: Session, project_id: int) -> Project | None:
    """Project by id, or None."""
    return db_session.get(Project, project_id)


def get_or_raise(*, db_session: Session, project_id: int) -> Project:
    """Project by id; NotFoundError if there is none."""
    return found(get(db_session=db_session, project_id=project_id), f"project {project_id}")


def get_by_name(*, db_session: Session, name: str) -> Project | None:
    """Project by unique name, or None."""
    return db_session.scalars(select(Project).where(Project.name == name)).one_or_none()


def list_projects(*, db_session: Session) -> list[Project]:
    """All projects, newest first."""
    return list(db_session.scalars(select(Project).order_by(Project.id.desc())))


def create(
    *,
    db_session: Session,
    name: str,
    labels: list[str],
    model_source: str,
    description: str = "",
    created_by: int | None = None,
    settings: dict[str, Any] | None = None,
    base_model: dict[str, Any] | None = None,
) -> Project:
    """Create a project; ValueError for an empty or duplicated label list, ConflictError for a taken name."""
    name = name.strip()
    if not name:
        raise ValueError("a project needs a non-empty name")
    labels = [str(label) for label in labels]
    if not labels:
        raise ValueError("a project needs at least one label")
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels must be distinct, got {labels}")
    if get_by_name(db_session=db_session, name=name) is not None:
        raise ConflictError(f"project {name!r} already exists")
    project = Project(
        name=name,
        labels=labels,
        model_source=model_source,
        description=description,
        created_by=created_by,
        settings=dict(settings or {}),
        base_model=base_model,
    )
    db_session.add(project)
    db_session.commit()
    return project


def update_settings(*, db_session: Session, project: Project, settings: dict[str, Any]) -> Project:
    """Merge ``settings`` into the project's settings (a new dict, so the JSON change is tracked)."""
    project.settings = {**project.settings, **settings}
    db_session.commit()
    return project


HUB_FEEDBACK = "hub_feedback"
"""``settings`` key: model repository → the dataset repository its feedback was pushed to (issue 32 §6)."""


def feedback_repo(project: Project, model_repo: str) -> str | None:
    """The dataset repository this project pushed its feedback to beside ``model_repo`` (None: none), so a
    later push of the model keeps its card's link to it."""
    found_repo = (project.settings.get(HUB_FEEDBACK) or {}).get(model_repo)
    return str(found_repo) if found_repo else None


def set_feedback_repo(*, db_session: Session, project: Project, model_repo: str, dataset_repo: str) -> None:
    """Remember where the feedback of ``model_repo`` went (the settings read afresh: a job's copy is old)."""
    db_session.refresh(project)
    known = dict(project.settings.get(HUB_FEEDBACK) or {})
    update_settings(
        db_session=db_session, project=project, settings={HUB_FEEDBACK: {**known, model_repo: dataset_repo}}
    )


def set_base_model(*, db_session: Session, project: Project, base_model: dict[str, Any] | None) -> Project:
    """Record (or, with None, forget) the project's base model; checked by ``projects.paths.base_model_record``."""
    project.base_model = dict(base_model) if base_model is not None else None
    db_session.commit()
    return project


def update(
    *, db_session: Session, project: Project, name: str | None = None, description: str | None = None
) -> Project:
    """Rename a project and/or change its description; ConflictError for a name another project has."""
    if name is not None and name != project.name:
        if get_by_name(db_session=db_session, name=name) is not None:
            raise ConflictError(f"project {name!r} already exists")
        project.name = name
    if description is not None:
        project.description = description
    db_session.commit()
    return project


def delete(*, db_session: Session, project: Project) -> None:
    """Delete a project and, through ON DELETE CASCADE, its datasets, versions, feedback and jobs."""
    db_session.delete(project)
    db_session.commit()


def method_for(project: Project, method: str | None) -> str:
    """The request's attribution method, else the project's default, else the core's; 422 for unknown ones."""
    chosen = method or project.settings.get("method") or DEFAULT_METHOD
    if chosen not in METHODS:
        raise DataError(f"unknown attribution method {chosen!r}; choose one of {', '.join(METHODS)}")
    return chosen


def max_length(project: Project) -> int:
    """Token limit for explaining this project's texts (a project setting; the demo uses 64)."""
    return int(project.settings.get("max_length", 256))


def lock_when_idle(*, db_session: Session, project: Project, what: str) -> None:
    """Lock the project against new jobs and raise ConflictError (409) while any of its jobs is queued or
    running: deleting ``what`` (a dataset) under a running retrain would take its examples and feedback
    from under the job. The lock (PostgreSQL ``FOR UPDATE`` on the project row, which a job's insert
    waits for; SQLite the write lock) holds until the caller's commit, so no job starts in between."""
    from xmd.jobs.models import Job, JobStatus

    if is_sqlite(db_session):
        lock_row(db_session, Project, Project.id == project.id)
    else:
        db_session.execute(select(Project.id).where(Project.id == project.id).with_for_update()).all()
    active = list(
        db_session.scalars(
            select(Job)
            .where(Job.project_id == project.id, Job.status.in_((JobStatus.QUEUED, JobStatus.RUNNING)))
            .order_by(Job.created_at, Job.id)
        )
    )
    if active:
        db_session.rollback()
        listed = ", ".join(f"{j.kind} {j.id} ({j.status.value})" for j in active[:5])
        raise ConflictError(
            f"{what} cannot be deleted while {len(active)} job(s) of project {project.name!r} are unfinished: "
            f"{listed}; wait until they finish or cancel them (POST /api/jobs/{{id}}/cancel)"
        )
