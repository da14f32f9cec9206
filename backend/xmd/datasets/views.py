"""Datasets and examples over HTTP: upload (streamed, size-limited, columns chosen), preview, list, filter.

An upload is validated whole before anything is written (the core's loader lists every problem at
once), so a file with one bad row leaves the project unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.orm import Session

from xmd.core.data import load_examples
from xmd.core.types import DataError
from xmd.datasets import service
from xmd.datasets.models import Dataset, DatasetRole
from xmd.datasets.schemas import (
    LABELS_REQUIRED_FOR,
    SLICE_FILTERS,
    DatasetOut,
    DatasetRename,
    Preview,
    Slice,
    dataset_out,
)
from xmd.db.errors import NotFoundError
from xmd.http.deps import DB, Admin, Annotator, Viewer, settings_of
from xmd.http.pagination import Limit, Offset, Page, page_of
from xmd.http.params import Id
from xmd.http.uploads import data_suffix, named, preview_upload, remove, save_upload, temp_dir
from xmd.projects import service as projects_service
from xmd.projects.models import Project

router = APIRouter(prefix="/api", tags=["datasets"])
slice_router = APIRouter(prefix="/api", tags=["datasets"])
"""Saved slices: listed after the examples routes (:mod:`xmd.explanations.examples`)."""


def _dataset(db: Session, dataset_id: int) -> tuple[Dataset, Project]:
    ds = service.get_or_raise(db_session=db, dataset_id=dataset_id)
    return ds, projects_service.get_or_raise(db_session=db, project_id=ds.project_id)


@router.post("/projects/{project_id}/datasets/preview", response_model=Preview)
async def preview_dataset(
    project_id: Id,
    request: Request,
    db: DB,
    _: Annotator,
    file: Annotated[UploadFile, File(description="CSV, TSV, JSONL, JSON or Parquet")],
    n_rows: Annotated[int, Form(ge=1, le=100)] = 10,
) -> Preview:
    """Columns and first rows of a file, so the text and label columns can be chosen before uploading."""
    projects_service.get_or_raise(db_session=db, project_id=project_id)
    return Preview(**await preview_upload(file, settings_of(request), n_rows=n_rows))


@router.post("/projects/{project_id}/datasets", status_code=201, response_model=DatasetOut)
async def upload_dataset(
    project_id: Id,
    request: Request,
    db: DB,
    _: Annotator,
    file: Annotated[UploadFile, File(description="CSV, TSV, JSONL, JSON or Parquet")],
    name: Annotated[str | None, Form(max_length=200)] = None,
    role: Annotated[DatasetRole, Form()] = DatasetRole.TRAIN,
    text_column: Annotated[str, Form(min_length=1, max_length=200)] = "text",
    label_column: Annotated[str | None, Form(max_length=200)] = "label",
    id_column: Annotated[str | None, Form(max_length=200)] = None,
    unlabelled: Annotated[
        bool, Form(description="the file has no labels (label_column is ignored); train sets only")
    ] = False,
) -> DatasetOut:
    """Upload a labelled dataset (train: explained and retrained on; eval: measured before/after).
    Labels may be class names or indices; every problem in the file is reported at once (422)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    settings = settings_of(request)
    suffix = data_suffix(file)
    ds_name = (name or Path(file.filename or "data").stem).strip()
    shown = file.filename or f"data{suffix}"
    if unlabelled:
        label_column = None  # an empty form field reads as "not sent", so "no labels" is said explicitly
    if not label_column and role in LABELS_REQUIRED_FOR:
        raise DataError(f"{shown}: an {role.value} set needs labels: choose its label column (form field label_column)")
    work = temp_dir(settings)
    path = work / f"data{suffix}"
    try:
        await save_upload(file, path, settings)
        examples = await run_in_threadpool(
            load_examples,
            path,
            text_column=text_column,
            label_column=label_column or None,
            id_column=id_column or None,
            labels=list(project.labels),
            split=role.value,
            max_chars=settings.max_text_chars,
        )
    except DataError as exc:
        raise named(exc, path, shown) from None
    finally:
        remove(work)
    ds = await run_in_threadpool(
        service.add_dataset,
        db_session=db,
        project=project,
        name=ds_name,
        role=role,
        examples=examples,
        source_name=file.filename,
        text_column=text_column,
        label_column=label_column or None,
    )
    return dataset_out(ds, project, service.dataset_facts(db_session=db, dataset=ds))


@router.get("/projects/{project_id}/datasets", response_model=Page[DatasetOut])
def list_datasets(project_id: Id, db: DB, _: Viewer, offset: Offset = 0, limit: Limit = 100) -> Page[DatasetOut]:
    """The project's datasets with their label counts, in creation order."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    rows = page_of(service.list_datasets(db_session=db, project_id=project_id), offset, limit)
    rows["items"] = [dataset_out(ds, project, service.dataset_facts(db_session=db, dataset=ds)) for ds in rows["items"]]
    return Page[DatasetOut](**rows)


@router.patch("/datasets/{dataset_id}", response_model=DatasetOut)
def rename_dataset(dataset_id: Id, body: DatasetRename, db: DB, _: Admin) -> DatasetOut:
    """Rename a dataset (409 if the project has another dataset of that name)."""
    ds, project = _dataset(db, dataset_id)
    ds = service.rename_dataset(db_session=db, dataset=ds, name=body.name)
    return dataset_out(ds, project, service.dataset_facts(db_session=db, dataset=ds))


@router.delete("/datasets/{dataset_id}", status_code=204)
def delete_dataset(dataset_id: Id, db: DB, _: Admin) -> None:
    """Delete a dataset, its examples, their explanations (out of the rankings) and their feedback (the
    event log keeps the feedback's history). 409 while a job of the project is queued or running."""
    ds, project = _dataset(db, dataset_id)
    projects_service.lock_when_idle(db_session=db, project=project, what=f"dataset {ds.name!r}")
    service.delete_dataset(db_session=db, dataset=ds)


@slice_router.get("/projects/{project_id}/slices", response_model=Page[Slice])
def list_slices(project_id: Id, db: DB, _: Viewer, offset: Offset = 0, limit: Limit = 100) -> Page[Slice]:
    """Saved example filters of the project."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return Page[Slice](**page_of([Slice(**s) for s in project.settings.get("slices", [])], offset, limit))


@slice_router.post("/projects/{project_id}/slices", status_code=201, response_model=Slice)
def save_slice(project_id: Id, body: Slice, db: DB, _: Annotator) -> Slice:
    """Save (or replace) a named filter of the examples route."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    unknown = sorted(set(body.filters) - set(SLICE_FILTERS))
    if unknown:
        raise DataError(f"unknown slice filter(s) {unknown}; allowed: {sorted(SLICE_FILTERS)}")
    if body.dataset_id is not None:
        service.in_project(db_session=db, project=project, dataset_id=body.dataset_id)
    slices = [s for s in project.settings.get("slices", []) if s["name"] != body.name]
    slices.append(body.model_dump())
    projects_service.update_settings(db_session=db, project=project, settings={"slices": slices})
    return body


@slice_router.delete("/projects/{project_id}/slices/{name}", status_code=204)
def delete_slice(project_id: Id, name: str, db: DB, _: Annotator) -> None:
    """Forget a saved filter (404 if there is none of that name)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    slices = project.settings.get("slices", [])
    if not any(s["name"] == name for s in slices):
        raise NotFoundError(f"no slice named {name!r}")
    projects_service.update_settings(
        db_session=db, project=project, settings={"slices": [s for s in slices if s["name"] != name]}
    )
