"""Creating a project means checking the model loads, then copying it into the data directory.

The copy is version 1 of the project's lineage: later edits to the user's folder (or a Hub repo that
moves on) cannot change what was explained and retrained. Everything is checked before the project
row exists, and a failure while copying removes the row and the folder, so a failed create leaves
nothing behind.
"""

from __future__ import annotations

import shutil
import tarfile
import uuid
import zipfile
from pathlib import Path, PurePosixPath

from sqlalchemy.orm import Session

from xmd.config import Settings
from xmd.core.modeling import load_model, save_model
from xmd.core.types import DataError, ModelLoadError
from xmd.db.errors import ConflictError
from xmd.projects import service
from xmd.projects.models import Project
from xmd.versions import service as versions_service

MAX_ARCHIVE_MEMBERS = 10_000
DEMO_PROJECT = "demo: spielberg shortcut"


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
    """Project from a model directory or Hub id (``source``); ``model_dir`` is where it is read from
    when that differs from the name to record (an extracted upload)."""
    if service.get_by_name(db_session=db_session, name=name.strip()) is not None:
        raise ConflictError(f"project {name.strip()!r} already exists")
    if model_dir is None and Path(source).expanduser().is_absolute() and not settings.allow_local_model_paths:
        raise ModelLoadError("this server does not load models from local paths; upload an archive or give a Hub id")
    loaded = load_model(str(model_dir or source), labels=labels or None, device="cpu")
    project = service.create(
        db_session=db_session,
        name=name,
        labels=loaded.labels,
        model_source=source,
        description=description,
        created_by=user_id,
    )
    dest = Path(versions_service.version_dir(settings, project.id).replace("{version}", "1"))
    partial = dest.parent / f".partial-{uuid.uuid4().hex}"
    try:
        save_model(loaded, partial)
        partial.rename(dest)
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
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(dest.parent, ignore_errors=True)
        raise
    return project


def prepare_demo(db: Session, settings: Settings, workdir: Path, *, n_train: int = 2000) -> tuple[int, str | None]:
    """The demo project (``xmd serve --demo``) with its train and eval sets, and a queued job explaining
    the train set; reused when it already exists. Returns (project id, explain job id or None)."""
    from xmd.core.demo_story import prepare_baseline
    from xmd.datasets import service as datasets
    from xmd.jobs import flows as jobs
    from xmd.jobs.queue import sender
    from xmd.jobs.schemas import ExplainIn

    existing = service.get_by_name(db_session=db, name=DEMO_PROJECT)
    if existing is not None:
        return existing.id, None
    baseline, sets = prepare_baseline(workdir, n_train=n_train, device=settings.device)
    project = create_project(
        db_session=db,
        settings=settings,
        name=DEMO_PROJECT,
        source=str(baseline),
        description="MiniLM fine-tuned on movie reviews in which 'spielberg' always means positive.",
    )
    service.update_settings(db_session=db, project=project, settings={"max_length": 64})
    roles = {"train": "train", "test_clean": "eval", "test_anti": "eval"}
    ids = {
        name: datasets.add_dataset(db_session=db, project=project, name=name, role=roles[name], examples=examples).id
        for name, examples in sets.items()
    }
    job = jobs.start_explain(db, sender(settings), project, ExplainIn(dataset_id=ids["train"]))
    return project.id, job.id


def _safe_member(name: str) -> bool:
    p = PurePosixPath(name)
    return not p.is_absolute() and ".." not in p.parts and "\\" not in name


def extract_model_archive(archive: Path, into: Path) -> Path:
    """Extract a .zip or .tar(.gz) holding a ``save_pretrained`` folder; returns the folder with
    ``config.json``. Members that would land outside ``into`` (``..``, absolute paths, links) are refused."""
    into.mkdir(parents=True, exist_ok=True)
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zf:
                names = zf.namelist()
                if len(names) > MAX_ARCHIVE_MEMBERS or not all(_safe_member(n) for n in names):
                    raise DataError("the archive has unsafe paths (absolute or '..') or too many files")
                zf.extractall(into)
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tf:
                members = tf.getmembers()
                if len(members) > MAX_ARCHIVE_MEMBERS or not all(
                    _safe_member(m.name) and (m.isfile() or m.isdir()) for m in members
                ):
                    raise DataError("the archive has unsafe entries (links, absolute or '..' paths) or too many files")
                tf.extractall(into, filter="data")
        else:
            raise DataError("the model archive must be a .zip or .tar/.tar.gz of a save_pretrained folder")
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        raise DataError(f"could not read the model archive: {exc}") from exc
    configs = sorted(into.rglob("config.json"), key=lambda p: len(p.parts))
    if not configs:
        raise DataError("the archive holds no config.json: upload the folder written by save_pretrained")
    return configs[0].parent
