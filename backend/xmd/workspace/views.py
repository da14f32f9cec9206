"""Projects over HTTP: create from a model directory, a Hub id or an uploaded archive; list; get; rename; record
the base model; delete."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from pydantic import ValidationError

from xmd.core.from_data import FINE_TUNE_DEFAULTS, read_labelled
from xmd.core.options import build
from xmd.core.retrain import TrainConfig
from xmd.core.types import DataError
from xmd.datasets.schemas import Preview
from xmd.db.errors import ConflictError
from xmd.http.deps import DB, Admin, Viewer, enqueue_of, settings_of
from xmd.http.pagination import Limit, Offset, Page, page_of
from xmd.http.params import Id
from xmd.http.uploads import data_suffix, named, preview_upload, remove, save_upload, temp_dir
from xmd.jobs import service as jobs_service
from xmd.jobs.schemas import JobOut, job_out
from xmd.projects import paths, service
from xmd.projects.schemas import BaseModelIn, BaseRecipe, ProjectCreate, ProjectOut, ProjectUpdate, project_out
from xmd.versions import service as versions_service
from xmd.workspace import flows, from_data
from xmd.workspace import service as facts

router = APIRouter(prefix="/api", tags=["projects"])


@router.get("/projects", response_model=Page[ProjectOut])
def list_projects(db: DB, _: Viewer, offset: Offset = 0, limit: Limit = 100) -> Page[ProjectOut]:
    """All projects, newest first."""
    rows = page_of(service.list_projects(db_session=db), offset, limit)
    rows["items"] = [project_out(p, facts.summary(db_session=db, project=p)) for p in rows["items"]]
    return Page[ProjectOut](**rows)


@router.post("/projects", status_code=201, response_model=ProjectOut)
async def create_project(body: ProjectCreate, request: Request, db: DB, user: Admin) -> ProjectOut:
    """Create a project from a model directory on the server or a Hub id; the model is loaded to check
    it (422 with the reason when it does not load or its classes do not match ``labels``)."""
    settings = settings_of(request)
    base = None
    if body.base_model is not None:  # checked first: a bad base model creates nothing
        base = paths.base_model_record(
            settings,
            model_path=body.base_model.model_path,
            hub_id=body.base_model.hub_id,
            recipe=body.base_model.recipe_given(),
        )
    source = await run_in_threadpool(paths.model_source, settings, model_path=body.model_path, hub_id=body.hub_id)
    project = await run_in_threadpool(
        flows.create_project,
        db_session=db,
        settings=settings,
        name=body.name,
        source=source.record,
        model_dir=source.folder,
        labels=body.labels,
        description=body.description,
        user_id=user.id,
        base_model=base,
    )
    return project_out(project, facts.summary(db_session=db, project=project))


def _parse_labels(raw: str | None) -> list[str] | None:
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"labels look like JSON but do not parse: {exc}") from None
        if not isinstance(value, list) or not all(isinstance(x, str) and x.strip() for x in value):
            raise DataError("labels must be a JSON list of non-empty strings")
        return [x.strip() for x in value]
    labels = [x.strip() for x in text.split(",")]
    if not all(labels):
        raise DataError("labels must be comma-separated non-empty names")
    return labels


def _parse_base_model(raw: str | None) -> BaseModelIn | None:
    """The archive form's ``base_model`` field (a JSON object, since a form has no nested fields), checked
    by the same model as ``PUT …/base-model`` and ``POST /projects``; DataError (422) says what is wrong."""
    if raw is None or not raw.strip():
        return None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise DataError(f'base_model must be a JSON object such as {{"hub_id": "org/base"}}: {exc}') from None
    if not isinstance(value, dict):
        raise DataError('base_model must be a JSON object such as {"hub_id": "org/base"}')
    try:
        return BaseModelIn.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in e['loc']) or 'base_model'}: {e['msg']}" for e in exc.errors(include_url=False)
        )
        raise DataError(f"base_model: {problems}") from None


MAX_ARCHIVE_NAME = 900


@router.post("/projects/upload", status_code=201, response_model=ProjectOut)
async def create_project_from_archive(
    request: Request,
    db: DB,
    user: Admin,
    name: Annotated[str, Form(min_length=1, max_length=200)],
    archive: Annotated[UploadFile, File(description=".zip or .tar.gz of a save_pretrained folder")],
    labels: Annotated[str | None, Form(description="comma-separated or a JSON list")] = None,
    description: Annotated[str, Form(max_length=5000)] = "",
    base_model: Annotated[
        str | None,
        Form(
            max_length=20_000,
            description="the model this one was fine-tuned from, as the JSON of a BaseModelIn (e.g. "
            '{"hub_id": "org/base", "recipe": {"epochs": 3}}); enables the deletion_base control',
        ),
    ] = None,
) -> ProjectOut:
    """Create a project from an uploaded model archive (size-limited by ``XMD_MAX_UPLOAD_MB``)."""
    settings = settings_of(request)
    label_list = _parse_labels(labels)
    if len(archive.filename or "") > MAX_ARCHIVE_NAME:  # recorded as "upload:<name>" in a 1,000-character column
        raise DataError(f"the archive's file name has at most {MAX_ARCHIVE_NAME} characters")
    base = None
    given = _parse_base_model(base_model)
    if given is not None:  # checked before the archive is saved or unpacked: a bad one creates nothing
        base = paths.base_model_record(
            settings, model_path=given.model_path, hub_id=given.hub_id, recipe=given.recipe_given()
        )
    work = temp_dir(settings)
    try:
        suffix = "".join(Path(archive.filename or "model.zip").suffixes[-2:]) or ".zip"
        path = await save_upload(archive, work / f"archive{suffix}", settings)
        model_dir = await run_in_threadpool(flows.extract_model_archive, path, work / "model", settings)
        project = await run_in_threadpool(
            flows.create_project,
            db_session=db,
            settings=settings,
            name=name,
            source=f"upload:{archive.filename or 'archive'}",
            labels=label_list,
            description=description,
            user_id=user.id,
            model_dir=model_dir,
            base_model=base,
        )
    finally:
        remove(work)
    return project_out(project, facts.summary(db_session=db, project=project))


def _parse_recipe(raw: str | None) -> TrainConfig:
    """The from-data form's ``recipe`` (a BaseRecipe's JSON) over the fine-tune defaults; DataError (422)."""
    given: dict = {}
    if raw is not None and raw.strip():
        try:
            given = BaseRecipe.model_validate_json(raw).model_dump(exclude_unset=True)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(x) for x in e['loc']) or 'recipe'}: {e['msg']}" for e in exc.errors(include_url=False)
            )
            raise DataError(f"recipe: {problems}") from None
    return build(TrainConfig, {**FINE_TUNE_DEFAULTS, **given})


@router.post("/projects/from-data/preview", response_model=Preview)
async def preview_training_data(
    request: Request,
    _: Admin,
    file: Annotated[UploadFile, File(description="CSV, TSV, JSONL, JSON or Parquet")],
    n_rows: Annotated[int, Form(ge=1, le=100)] = 10,
) -> Preview:
    """Columns, first rows and the guessed text and label columns of a file a project is to start from."""
    return Preview(**await preview_upload(file, settings_of(request), n_rows=n_rows))


@router.post("/projects/from-data", status_code=202, response_model=JobOut)
async def create_project_from_data(
    request: Request,
    db: DB,
    user: Admin,
    name: Annotated[str, Form(min_length=1, max_length=200)],
    file: Annotated[UploadFile, File(description="labelled data: CSV, TSV, JSONL, JSON or Parquet")],
    text_column: Annotated[str, Form(min_length=1, max_length=200)] = "text",
    label_column: Annotated[
        str, Form(min_length=1, max_length=200, description="its values become the model's classes")
    ] = "label",
    id_column: Annotated[str | None, Form(max_length=200)] = None,
    description: Annotated[str, Form(max_length=5000)] = "",
    base_model: Annotated[
        str | None,
        Form(
            max_length=20_000,
            description='the model to fine-tune, as JSON: {"hub_id": "org/encoder"} or {"model_path": "/models/x"} '
            "(where the server allows paths); left out: the bundled all-MiniLM-L6-v2",
        ),
    ] = None,
    recipe: Annotated[
        str | None,
        Form(max_length=20_000, description="fine-tune settings, a BaseRecipe's JSON (default: 3 epochs at 5e-5)"),
    ] = None,
) -> JobOut:
    """Start a project from labelled data: a ``from_data`` job fine-tunes the base model on it, then makes
    the project (version 1, the base model recorded, the data as its training set) and explains the data.
    Everything is checked first (422: columns, labels, settings, base model; 413: too large; 409: the
    name), so a refused request changes nothing."""
    settings = settings_of(request)
    config = _parse_recipe(recipe)
    given = _parse_base_model(base_model)
    if given is not None and given.recipe is not None:
        raise DataError("base_model: give the fine-tune settings as the form's recipe, not inside base_model")
    if service.get_by_name(db_session=db, name=name.strip()) is not None:
        raise ConflictError(f"project {name.strip()!r} already exists")
    base = await run_in_threadpool(
        from_data.base_choice,
        settings,
        model_path=given.model_path if given else None,
        hub_id=given.hub_id if given else None,
    )
    suffix = data_suffix(file)
    shown = file.filename or f"data{suffix}"
    work = temp_dir(settings)
    path = work / f"data{suffix}"
    try:
        await save_upload(file, path, settings)
        examples, labels = await run_in_threadpool(
            read_labelled,
            path,
            text_column=text_column,
            label_column=label_column,
            id_column=id_column or None,
            max_chars=settings.max_text_chars,
            max_rows=from_data.MAX_ROWS,
        )
    except DataError as exc:
        raise named(exc, path, shown) from None
    finally:
        remove(work)
    job = await run_in_threadpool(
        from_data.start_from_data,
        db,
        settings,
        enqueue_of(request),
        name=name,
        examples=examples,
        labels=labels,
        base=base,
        config=config,
        description=description,
        source_name=file.filename,
        text_column=text_column,
        label_column=label_column,
        user_id=user.id,
    )
    return job_out(job)


@router.get("/projects/{project_id}", response_model=ProjectOut)
def get_project(project_id: Id, db: DB, _: Viewer) -> ProjectOut:
    """One project with its counts and its base and latest model versions."""
    project = service.get_or_raise(db_session=db, project_id=project_id)
    return project_out(project, facts.summary(db_session=db, project=project))


@router.patch("/projects/{project_id}", response_model=ProjectOut)
def update_project(project_id: Id, body: ProjectUpdate, db: DB, _: Admin) -> ProjectOut:
    """Rename a project or change its description (409 if another project has the name)."""
    project = service.get_or_raise(db_session=db, project_id=project_id)
    service.update(db_session=db, project=project, name=body.name, description=body.description)
    return project_out(project, facts.summary(db_session=db, project=project))


@router.put("/projects/{project_id}/base-model", response_model=ProjectOut)
def set_base_model(project_id: Id, body: BaseModelIn, request: Request, db: DB, _: Admin) -> ProjectOut:
    """Record the model this project's model was fine-tuned from, and its recipe (replacing any recorded
    one): the retrain can then run the ``deletion_base`` control. A Hub id is checked for its syntax and
    fetched when the control runs; a server path follows the same rule as a project's model (422)."""
    project = service.get_or_raise(db_session=db, project_id=project_id)
    record = paths.base_model_record(
        settings_of(request), model_path=body.model_path, hub_id=body.hub_id, recipe=body.recipe_given()
    )
    service.set_base_model(db_session=db, project=project, base_model=record)
    return project_out(project, facts.summary(db_session=db, project=project))


@router.delete("/projects/{project_id}/base-model", response_model=ProjectOut)
def forget_base_model(project_id: Id, db: DB, _: Admin) -> ProjectOut:
    """Forget the recorded base model (the deletion_base control is then unavailable); idempotent."""
    project = service.get_or_raise(db_session=db, project_id=project_id)
    service.set_base_model(db_session=db, project=project, base_model=None)
    return project_out(project, facts.summary(db_session=db, project=project))


@router.delete("/projects/{project_id}", status_code=204)
def delete_project(project_id: Id, request: Request, db: DB, _: Admin) -> None:
    """Delete a project, everything it owns in the database, and its stored model versions.

    Refused with 409 while any of its jobs is queued or running (cancel them first, ``POST
    /api/jobs/{id}/cancel``): a worker must never go on training for a project that no longer exists."""
    project = service.get_or_raise(db_session=db, project_id=project_id)
    active = jobs_service.active_jobs(db_session=db, project_id=project_id)
    if active:
        listed = ", ".join(f"{j.kind} {j.id} ({j.status.value})" for j in active[:5])
        raise ConflictError(
            f"project {project.name!r} has {len(active)} unfinished job(s): {listed}; cancel them "
            "(POST /api/jobs/{id}/cancel) and wait until they stop, then delete the project"
        )
    service.delete(db_session=db, project=project)
    versions_service.delete_files(settings_of(request), project_id)
