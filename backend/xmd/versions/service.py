"""Model versions: numbered per project, a tree of retrains, and a row's ``path`` is never rewritten.

"Nothing is lost": a retrain always creates a child version with its own directory; the version it
started from keeps its row, its files and its numbers.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from xmd.config import Settings
from xmd.core.types import DataError
from xmd.db.engine import lock_row
from xmd.db.errors import ConflictError, NotFoundError, found
from xmd.jobs import kinds
from xmd.jobs import service as jobs_service
from xmd.jobs.models import Job, JobStatus
from xmd.projects.models import Project
from xmd.storage import StorageError, VersionStore, shared_store
from xmd.versions.models import ModelKind, ModelStatus, ModelVersion

log = logging.getLogger(__name__)


def project_key(project_id: int) -> str:
    """The store prefix of a project's versions; ``version_key`` adds ``/v<n>``."""
    return f"p{int(project_id)}"


def store_of(settings: Settings) -> VersionStore:
    """Where this deployment keeps version files: ``settings.storage`` (a folder by default, an
    S3-compatible bucket to share versions between machines), one store per process."""
    return shared_store(settings.storage)


def version_dir(settings: Settings, project_id: int) -> str:
    """Where a project's next version goes, as recorded in ``ModelVersion.path`` (a folder, or an
    ``s3://`` location); ``{version}`` is filled in when the version is numbered."""
    return store_of(settings).location(project_key(project_id)) + "/v{version}"


def key_of(settings: Settings, model_version: ModelVersion) -> str:
    """The store key of a version written through the store (``p3/v2``); StorageError for a version
    registered at a folder outside it."""
    key = store_of(settings).key_at(model_version.path)
    if key is None:
        raise StorageError(f"model version {model_version.name} is not in {store_of(settings).url}")
    return key


def files_of(settings: Settings, model_version: ModelVersion) -> Path:
    """A local folder with the version's files, ready for ``from_pretrained``: fetched into this
    machine's cache when the store is remote. VersionNotFoundError when they are gone."""
    return store_of(settings).local_dir(model_version.path)


def locator(settings: Settings) -> Callable[[str], Path]:
    """What model caches call on a miss to turn a recorded location into a local folder."""
    return store_of(settings).local_dir


def files_exist(settings: Settings, model_version: ModelVersion) -> bool:
    """Whether the version's files can be read, without fetching them."""
    store = store_of(settings)
    key = store.key_at(model_version.path)
    return store.exists(key) if key is not None else Path(model_version.path).is_dir()


def delete_files(settings: Settings, project_id: int) -> None:
    """Remove every stored version of a deleted project. A store that fails here leaves unreachable
    files behind (logged), never a project half deleted: the rows are gone already."""
    try:
        store_of(settings).delete_under(project_key(project_id))
    except StorageError as exc:
        log.warning("the files of deleted project %d stay in the store: %s", project_id, exc)


def get(*, db_session: Session, model_version_id: int) -> ModelVersion | None:
    """Model version by id, or None."""
    return db_session.get(ModelVersion, model_version_id)


def get_or_raise(*, db_session: Session, model_version_id: int) -> ModelVersion:
    """Model version by id; NotFoundError if there is none."""
    return found(get(db_session=db_session, model_version_id=model_version_id), f"model version {model_version_id}")


def resolve(
    *,
    db_session: Session,
    project: Project,
    version_id: int | None,
    ready: bool = True,
    candidate: ModelVersion | None = None,
) -> ModelVersion:
    """The requested version of ``project`` (404 if it belongs elsewhere; 409 if ``ready`` and it is
    not), else the project's latest ready version: what "the model" means when a request names none.

    ``candidate``: the version :func:`project_and_version` read with the project; returned without a
    query when it is the one this rule picks."""
    if (
        candidate is not None
        and candidate.project_id == project.id
        and candidate.status is ModelStatus.READY
        and (version_id is None or candidate.id == version_id)
    ):
        return candidate
    if version_id is not None:
        mv = get_or_raise(db_session=db_session, model_version_id=version_id)
        if mv.project_id != project.id:
            raise NotFoundError(f"model version {version_id} not found in project {project.name!r}")
        if ready and mv.status is not ModelStatus.READY:
            raise ConflictError(f"model version {mv.name} is {mv.status.value}, not ready")
        return mv
    latest = latest_ready(db_session=db_session, project_id=project.id)
    if latest is None:
        raise NotFoundError(f"project {project.name!r} has no ready model version")
    return latest


def project_and_version(
    *, db_session: Session, project_id: int, version_id: int | None
) -> tuple[Project, ModelVersion | None]:
    """The project (NotFoundError if there is none) and, read in the same query, the ready version
    :func:`resolve` picks for ``version_id`` (the latest ready one for None), or None when there is no
    such version; pass it to :func:`resolve` as ``candidate``, which then answers (or says why not)
    without another round trip. For the read routes that need both on every request."""
    on = ModelVersion.project_id == Project.id
    on &= ModelVersion.status == ModelStatus.READY
    if version_id is not None:
        on &= ModelVersion.id == version_id
    # Outer join: no ready version gives one row with a NULL version; otherwise every row has one.
    stmt = select(Project, ModelVersion).outerjoin(ModelVersion, on).where(Project.id == project_id)
    row = db_session.execute(stmt.order_by(ModelVersion.version.desc()).limit(1)).first()
    project, version = found(row, f"project {project_id}")
    return project, version


def latest_ready(*, db_session: Session, project_id: int) -> ModelVersion | None:
    """The project's newest ready version, or None."""
    stmt = (
        select(ModelVersion)
        .where(ModelVersion.project_id == project_id, ModelVersion.status == ModelStatus.READY)
        .order_by(ModelVersion.version.desc())
        .limit(1)
    )
    return db_session.scalars(stmt).first()


def ready_or_raise(*, db_session: Session, model_version_id: int) -> ModelVersion:
    """A version a job may start from: it exists and is ready (ConflictError otherwise)."""
    mv = get_or_raise(db_session=db_session, model_version_id=model_version_id)
    if mv.status is not ModelStatus.READY:
        raise ConflictError(f"model version {mv.name} is {mv.status.value}; it must be ready")
    return mv


def downloadable_or_raise(*, db_session: Session, settings: Settings, model_version_id: int) -> ModelVersion:
    """A version whose files can be downloaded now: ready (409 otherwise) and in the store (422 otherwise)."""
    mv = get_or_raise(db_session=db_session, model_version_id=model_version_id)
    if mv.status is not ModelStatus.READY:
        raise ConflictError(f"model version {mv.name} is {mv.status.value}; only ready versions can be downloaded")
    if not files_exist(settings, mv):
        raise DataError(f"the files of model version {mv.name} are missing on the server ({mv.path})")
    return mv


def resolve_id(*, db_session: Session, project: Project, version_id: int | None, required: bool) -> int | None:
    """Like :func:`resolve`, but None when the project has no ready version yet and the caller can do
    without one (``required`` False): a list of examples shows stored predictions only when there are."""
    try:
        return resolve(db_session=db_session, project=project, version_id=version_id).id
    except NotFoundError:
        if required:
            raise
        return None


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


def mark_ready(
    *,
    db_session: Session,
    model_version: ModelVersion,
    metrics: dict[str, Any],
    feedback_snapshot: dict[str, Any] | None,
    config: dict[str, Any],
) -> None:
    """training → ready with its results, only while it is still training (a guarded UPDATE: a sweeper
    that failed it meanwhile wins); ConflictError if it was failed while it trained."""
    done = db_session.execute(
        update(ModelVersion)
        .where(ModelVersion.id == model_version.id, ModelVersion.status == ModelStatus.TRAINING)
        .values(status=ModelStatus.READY, metrics=metrics, feedback_snapshot=feedback_snapshot, config=config),
        execution_options={"synchronize_session": False},
    )
    db_session.commit()
    if not done.rowcount:
        raise ConflictError(
            f"model version v{model_version.version} was marked failed while it trained (the job was abandoned)"
        )


def merge_metrics(*, db_session: Session, model_version: ModelVersion, metrics: dict[str, Any]) -> None:
    """Merge metrics by eval-set name under a row lock: two evaluations must not drop each other's sets."""
    lock_row(db_session, ModelVersion, ModelVersion.id == model_version.id)
    db_session.refresh(model_version)
    model_version.metrics = {**(model_version.metrics or {}), **metrics}
    db_session.commit()


def partial_dirs(path: Path) -> list[Path]:
    """Hidden build folders the core's pipeline leaves next to ``path`` when its process dies."""
    if not path.parent.is_dir():
        return []
    return sorted(path.parent.glob(f".{path.name}.partial-*"))


def ended_as(job_status: JobStatus | None, cancel_requested: bool) -> ModelStatus:
    """What a version left ``training`` by its job becomes: ``cancelled`` when the job was cancelled, or
    is being stopped because someone asked (the runner cleans up before it writes the job's end),
    else ``failed`` (an error, a lost worker, a server that stopped: the job says which)."""
    if job_status is JobStatus.CANCELLED or (cancel_requested and job_status is JobStatus.RUNNING):
        return ModelStatus.CANCELLED
    return ModelStatus.FAILED


def fail_orphans(*, db_session: Session, job_id: str | None = None) -> list[int]:
    """Mark model versions still ``training`` whose job is not running any more (or, with ``job_id``,
    that job's versions, whatever its state) as ``failed`` — ``cancelled`` when someone cancelled the
    job (:func:`ended_as`) — and delete their half-written build folders; returns their ids.

    A child version records the job that trains it in ``config["job_id"]``; only that job's worker
    sets it ready, and only while the job runs, so a training version of a finished job is debris.
    A worker that gives up on a job calls this with the job's id *before* it writes the job's final
    state, so whoever sees the job ended also sees its version failed.
    """
    db = db_session
    rows = db.execute(
        select(ModelVersion.id, ModelVersion.path, ModelVersion.config).where(
            ModelVersion.status == ModelStatus.TRAINING
        )
    ).all()
    db.commit()
    failed: list[int] = []
    for mv_id, path, config in rows:
        owner = (config or {}).get("job_id")
        if not owner or (job_id is not None and owner != job_id):
            continue
        job = db.execute(select(Job.status, Job.cancel_requested).where(Job.id == owner)).first()
        db.commit()
        if job_id is None and job is not None and job.status in (JobStatus.RUNNING, JobStatus.QUEUED):
            continue
        # The build folders go before the status is written: whoever sees the version ended must not
        # still find its half-made files (the job's process is gone or giving up, so none is being written).
        for partial in partial_dirs(Path(path)):
            shutil.rmtree(partial, ignore_errors=True)
        res = db.execute(
            update(ModelVersion)
            .where(ModelVersion.id == mv_id, ModelVersion.status == ModelStatus.TRAINING)
            .values(status=ended_as(job.status if job else None, bool(job and job.cancel_requested))),
            execution_options={"synchronize_session": False},
        )
        db.commit()
        if res.rowcount:
            failed.append(mv_id)
    return failed


def retrain_result(*, db_session: Session, mv: ModelVersion) -> dict[str, Any] | None:
    """The result of the retrain job that produced ``mv`` (metrics before/after, shares of the
    corrected words before/after), if one did: the job its ``config["job_id"]`` names."""
    owner = (mv.config or {}).get("job_id")
    if mv.kind is not ModelKind.DEBUGGED or not owner:
        return None
    job = jobs_service.get(db_session=db_session, job_id=str(owner))
    if job is None or job.status is not JobStatus.SUCCEEDED or not job.result:
        return None
    return job.result if job.result.get("version_id") == mv.id else None


def live_controls(*, db_session: Session, mv: ModelVersion) -> dict[str, Any] | None:
    """``config["controls"]`` of a debugged version whose controls run after it (issue 30 §5), each
    unfinished run's status read from its job: a job cancelled while queued, or failed by the sweeper,
    never reached the body that would have said so. With ``done``/``total`` for "controls: 1 of 2 done"."""
    controls = (mv.config or {}).get("controls")
    if not isinstance(controls, dict) or "runs" not in controls:
        return None
    runs = [dict(r) for r in controls["runs"]]
    for r in runs:
        if r.get("status") in ("queued", "running") and r.get("job_id"):
            job = jobs_service.get(db_session=db_session, job_id=str(r["job_id"]))
            if job is not None and job.status in (JobStatus.FAILED, JobStatus.CANCELLED):
                r.update(status=job.status.value, error=job.error)
            elif job is not None and job.status is JobStatus.RUNNING:
                r["status"] = "running"
    done = sum(r.get("status") == "done" for r in runs)
    ended = sum(r.get("status") in ("failed", "cancelled") for r in runs)
    return {**controls, "runs": runs, "done": done, "ended": ended, "total": len(runs)}


kinds.on_cleanup("versions", lambda db, job_id: fail_orphans(db_session=db, job_id=job_id))
"""A job that fails, is cancelled or is swept leaves the versions it was building ``failed``."""
