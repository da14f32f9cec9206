"""Creating a project means checking the model loads, then copying it into the version store.

The copy is version 1 of the project's lineage: later edits to the user's folder (or a Hub repo that
moves on) cannot change what was explained and retrained. Everything is checked before the project
row exists, and a failure while copying removes the row and anything stored, so a failed create
leaves nothing behind.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from xmd.config import Settings
from xmd.core.modeling import load_model, save_model
from xmd.core.types import ModelLoadError
from xmd.db.errors import ConflictError
from xmd.projects import archives, paths, service
from xmd.projects.models import Project
from xmd.storage import version_key
from xmd.versions import service as versions_service


def create_project(
    *,
    db_session: Session,
    settings: Settings,
    name: str,
    source: str,
    labels: list[str] | None = None,
    description: str = "",
    user_id: int | None = None,
    model_dir: Path | None = None,
    base_model: dict | None = None,
) -> Project:
    """Project from the model in ``model_dir`` (checked by :mod:`xmd.projects.paths`), recorded as
    ``source``; without ``model_dir``, ``source`` is a server path under the same rule. ``base_model``:
    the checked record of :func:`xmd.projects.paths.base_model_record`, if the user gave one."""
    if service.get_by_name(db_session=db_session, name=name.strip()) is not None:
        raise ConflictError(f"project {name.strip()!r} already exists")
    if model_dir is None:  # a server-side path (the demo): the same rule as for requests
        model_dir = paths.local_model_dir(settings, source)
    try:
        loaded = load_model(str(model_dir), labels=labels or None, device="cpu")
    except ModelLoadError as exc:  # its message names the folder it read: say what the user gave instead
        raise ModelLoadError(str(exc).replace(str(model_dir), source)) from None
    project = service.create(
        db_session=db_session,
        name=name,
        labels=loaded.labels,
        model_source=source,
        description=description,
        created_by=user_id,
        base_model=base_model,
    )
    try:
        with versions_service.store_of(settings).build(version_key(project.id, 1)) as out:
            save_model(loaded, out)
        versions_service.create_base(
            db_session=db_session,
            project=project,
            path=versions_service.version_dir(settings, project.id),
            name="base",
            config={"source": source},
        )
    except BaseException:
        db_session.rollback()
        service.delete(db_session=db_session, project=project)
        versions_service.delete_files(settings, project.id)
        raise
    return project


def extract_model_archive(archive: Path, into: Path, settings: Settings) -> Path:
    """Unpack an uploaded model archive within the limits of ``settings`` (see :mod:`xmd.projects.archives`)."""
    return archives.extract_model_archive(archive, into, max_unpacked_mb=settings.max_unpacked_mb)
