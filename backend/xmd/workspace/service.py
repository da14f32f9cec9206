"""What a project shows beside its own columns: its counts of datasets, examples and feedback, and its
base and latest ready versions (read from the domains below it)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from xmd.datasets.models import Dataset
from xmd.feedback.models import Feedback
from xmd.projects.models import Project
from xmd.versions import service as versions_service


def counts(*, db_session: Session, project_id: int) -> tuple[int, int, int]:
    """(datasets, examples, current feedback entries) of a project."""
    n_ds, n_ex = db_session.execute(
        select(func.count(Dataset.id), func.coalesce(func.sum(Dataset.n_examples), 0)).where(
            Dataset.project_id == project_id
        )
    ).one()
    n_fb = db_session.scalar(select(func.count()).select_from(Feedback).where(Feedback.project_id == project_id))
    return int(n_ds), int(n_ex), int(n_fb or 0)


def summary(*, db_session: Session, project: Project) -> dict[str, int | None]:
    """What a project shows beside its own columns: its base and latest ready version, and its counts."""
    versions = versions_service.list_versions(db_session=db_session, project_id=project.id)
    n_ds, n_ex, n_fb = counts(db_session=db_session, project_id=project.id)
    ready = [v for v in versions if v.status.value == "ready"]
    return {
        "base_version_id": versions[0].id if versions else None,
        "latest_version_id": ready[-1].id if ready else None,
        "n_datasets": int(n_ds),
        "n_examples": int(n_ex),
        "n_feedback": int(n_fb or 0),
    }
