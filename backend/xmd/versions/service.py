"""Model versions: numbered per project, a tree of retrains, and a row's ``path`` is never rewritten.

"Nothing is lost": a retrain always creates a child version with its own directory; the version it
started from keeps its row, its files and its numbers.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from xmd.db.engine import lock_row
from xmd.db.errors import ConflictError, NotFoundError
from xmd.models.models import ModelKind, ModelStatus, ModelVersion
from xmd.projects.models import Project


def get(*, db_session: Session, model_version_id: int) -> ModelVersion | None:
    """Model version by id, or None."""
    return db_session.get(ModelVersion, model_version_id)


def get_or_raise(*, db_session: Session, model_version_id: int) -> ModelVersion:
    """Model version by id; NotFoundError if there is none."""
    mv = get(db_session=db_session, model_version_id=model_version_id)
    if mv is None:
        raise NotFoundError(f"model version {model_version_id} not found")
    return mv


def get_by_version(*, db_session: Session, project_id: int, version: int) -> ModelVersion | None:
    """Model version of a project by its number (v1, v2, …), or None."""
    stmt = select(ModelVersion).where(ModelVersion.project_id == project_id, ModelVersion.version == version)
    return db_session.scalars(stmt).one_or_none()


def list_versions(*, db_session: Session, project_id: int) -> list[ModelVersion]:
    """All versions of a project by number."""
    stmt = select(ModelVersion).where(ModelVersion.project_id == project_id).order_by(ModelVersion.version)
    return list(db_session.scalars(stmt))


def _create(
    db_session: Session,
    *,
    project_id: int,
    parent_id: int | None,
    name: str | None,
    path: str,
    kind: ModelKind,
    status: ModelStatus,
    metrics: dict[str, Any] | None,
    feedback_snapshot: dict[str, Any] | None,
    config: dict[str, Any] | None,
) -> ModelVersion:
    # Lock the project row first: two concurrent retrains then get consecutive numbers instead of
    # one of them failing on the unique (project_id, version) constraint.
    lock_row(db_session, Project, Project.id == project_id)
    last = db_session.scalar(select(func.max(ModelVersion.version)).where(ModelVersion.project_id == project_id))
    version = (last or 0) + 1
    mv = ModelVersion(
        project_id=project_id,
        parent_id=parent_id,
        version=version,
        name=name or f"v{version}",
        # "{version}" in the path is filled in here, because only this transaction knows the number.
        path=path.replace("{version}", str(version)),
        kind=kind,
        status=status,
        metrics=dict(metrics or {}),
        feedback_snapshot=feedback_snapshot,
        config=dict(config or {}),
    )
    db_session.add(mv)
    db_session.commit()
    return mv


def create_base(
    *,
    db_session: Session,
    project: Project,
    path: str,
    name: str | None = None,
    status: ModelStatus | str = ModelStatus.READY,
    metrics: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
) -> ModelVersion:
    """Register the user's model (a root of the version tree); ``{version}`` in ``path`` is filled in."""
    return _create(
        db_session,
        project_id=project.id,
        parent_id=None,
        name=name,
        path=path,
        kind=ModelKind.BASE,
        status=ModelStatus(status),
        metrics=metrics,
        feedback_snapshot=None,
        config=config,
    )


def create_child(
    *,
    db_session: Session,
    parent: ModelVersion,
    path: str,
    name: str | None = None,
    status: ModelStatus | str = ModelStatus.TRAINING,
    feedback_snapshot: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
    metrics: dict[str, Any] | None = None,
) -> ModelVersion:
    """New debugged version retrained from ``parent``, numbered next in the project.

    ``path`` must differ from every existing version's path (a retrain writes a new directory, it
    never overwrites the model it started from); ``{version}`` in it is replaced by the new number.
    """
    if "{version}" not in path:
        clash = db_session.scalar(
            select(ModelVersion.id).where(ModelVersion.project_id == parent.project_id, ModelVersion.path == path)
        )
        if clash is not None:
            raise ConflictError(f"path {path!r} already belongs to model version {clash}; a retrain needs a new path")
    return _create(
        db_session,
        project_id=parent.project_id,
        parent_id=parent.id,
        name=name,
        path=path,
        kind=ModelKind.DEBUGGED,
        status=ModelStatus(status),
        metrics=metrics,
        feedback_snapshot=feedback_snapshot,
        config=config,
    )


def set_status(
    *,
    db_session: Session,
    model_version: ModelVersion,
    status: ModelStatus | str,
    metrics: dict[str, Any] | None = None,
) -> ModelVersion:
    """Record the outcome of a training run (status, merged metrics); the path is never changed."""
    model_version.status = ModelStatus(status)
    if metrics:
        model_version.metrics = {**model_version.metrics, **metrics}
    db_session.commit()
    return model_version


def lineage(*, db_session: Session, model_version: ModelVersion) -> list[ModelVersion]:
    """Versions from the root down to ``model_version`` (inclusive): what it was retrained from."""
    chain = [model_version]
    seen = {model_version.id}
    while chain[-1].parent_id is not None:
        parent = db_session.get(ModelVersion, chain[-1].parent_id)
        if parent is None or parent.id in seen:  # cannot happen through this module; do not loop
            break
        seen.add(parent.id)
        chain.append(parent)
    return chain[::-1]


def children(*, db_session: Session, model_version: ModelVersion) -> list[ModelVersion]:
    """Versions retrained directly from ``model_version``."""
    stmt = select(ModelVersion).where(ModelVersion.parent_id == model_version.id).order_by(ModelVersion.version)
    return list(db_session.scalars(stmt))
