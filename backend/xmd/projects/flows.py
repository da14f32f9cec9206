"""Creating a project means checking the model loads, then copying it into the data directory.

The copy is version 1 of the project's lineage: later edits to the user's folder (or a Hub repo that
moves on) cannot change what was explained and retrained. Everything is checked before the project
row exists, and a failure while copying removes the row and the folder, so a failed create leaves
nothing behind.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from pathlib import Path

from sqlalchemy.orm import Session

from xmd.config import Settings
from xmd.core.modeling import load_model, save_model
from xmd.core.types import ModelLoadError
from xmd.db.errors import ConflictError
from xmd.models import service as models_service
from xmd.projects import archives, paths, service
from xmd.projects.models import Project


def version_dir(settings: Settings, project_id: int) -> Path:
    """Where a project's versions live; ``{version}`` is filled in when the version is numbered."""
    return settings.models_dir / f"p{project_id}" / "v{version}"


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
) -> Project:
    """Project from the model in ``model_dir`` (checked by :mod:`xmd.projects.paths`), recorded as
    ``source``; without ``model_dir``, ``source`` is a server path under the same rule."""
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
    )
    dest = Path(str(version_dir(settings, project.id)).replace("{version}", "1"))
    partial = dest.parent / f".partial-{uuid.uuid4().hex}"
    try:
        save_model(loaded, partial)
        partial.rename(dest)
        models_service.create_base(
            db_session=db_session,
            project=project,
            path=str(version_dir(settings, project.id)),
            name="base",
            config={"source": source},
        )
    except BaseException:
        db_session.rollback()
        service.delete(db_session=db_session, project=project)
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(dest.parent, ignore_errors=True)
        raise
    return project


def extract_model_archive(archive: Path, into: Path, settings: Settings) -> Path:
    """Unpack an uploaded model archive within the limits of ``settings`` (see :mod:`xmd.projects.archives`)."""
    return archives.extract_model_archive(archive, into, max_unpacked_mb=settings.max_unpacked_mb)


def temp_dir(settings: Settings) -> Path:
    settings.uploads_dir.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="upload-", dir=settings.uploads_dir))
