"""Team work over HTTP: queues (an admin assigns, each annotator's Next walks theirs), progress, agreement.

Every list is paged; Next is one index range scan; the agreement summary reads the incrementally kept
statistics (:mod:`xmd.teamwork.agreement`). Nothing here returns anyone's marks: a queue item says which
example and its status, the agreement only counts (blind mode cannot leak through these routes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, Query, Request, Response, UploadFile
from fastapi.responses import FileResponse
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from xmd.core.types import DataError
from xmd.datasets.models import Example
from xmd.db.base import utcnow
from xmd.feedback import team
from xmd.http.deps import DB, Admin, Annotator, Viewer, end_session, enqueue_of, settings_of
from xmd.http.pagination import Limit, Offset, Page, page
from xmd.http.params import MAX_ID, Id, OptId
from xmd.http.responses import json_of
from xmd.http.uploads import remove, save_upload, temp_dir
from xmd.jobs.schemas import JobOut, job_out
from xmd.projects import service as projects_service
from xmd.teamwork import flows, hub, queues
from xmd.teamwork.models import ItemStatus, QueueItem, WorkQueue
from xmd.teamwork.schemas import (
    AgreementOut,
    FeedbackDatasetImportOut,
    FeedbackPushIn,
    QueueIn,
    QueueItemOut,
    QueueNextOut,
    QueueOut,
    QueueProgress,
    QueueStatusIn,
)
from xmd.users.models import Role, User

router = APIRouter(prefix="/api", tags=["team"])
WORDS_PAGE = 100
QUEUES_PAGE = 20


def _queue_out(db: Session, q: WorkQueue, progress: dict[int, dict[str, int]]) -> QueueOut:
    names = dict(db.execute(select(User.id, User.name).where(User.id.in_(sorted(progress)))).all())
    rows = [QueueProgress(user_id=u, user=names.get(u, str(u)), **c) for u, c in sorted(progress.items())]
    return QueueOut(
        id=q.id,
        project_id=q.project_id,
        name=q.name,
        order=q.ordering,
        rule=queues.RULES[q.ordering],
        seed=q.seed,
        overlap=q.overlap,
        source=q.source,
        n_examples=q.n_examples,
        created_at=q.created_at,
        progress=rows,
        done=sum(r.done for r in rows),
        skipped=sum(r.skipped for r in rows),
        left=sum(r.left for r in rows),
    )


def _item_out(item: QueueItem, example: Example | None) -> QueueItemOut:
    return QueueItemOut(
        queue_id=item.queue_id,
        example_id=item.example_id,
        user_id=item.user_id,
        rank=item.rank,
        status=item.status,
        example_ext_id=example.ext_id if example else None,
        text=example.text if example else None,
        label=example.label if example else None,
    )


@router.post("/projects/{project_id}/queues", status_code=201, response_model=QueueOut)
def create_queue(project_id: Id, body: QueueIn, db: DB, user: Admin) -> QueueOut:
    """Assign a dataset, a saved slice or the examples of some words to annotators, each example to
    ``overlap`` of them, in the order ``order`` (its rule is in the answer)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    q = flows.create_queue(db, project, body, user)
    return _queue_out(db, q, queues.progress(db, [q.id]).get(q.id, {}))


@router.get("/projects/{project_id}/queues", response_model=Page[QueueOut])
def list_queues(
    project_id: Id, db: DB, _: Viewer, offset: Offset = 0, limit: Annotated[int, Query(ge=0, le=QUEUES_PAGE)] = 20
) -> Page[QueueOut]:
    """The project's queues with progress per annotator (done / skipped / left): a grouped count over
    each queue's items, so at most :data:`QUEUES_PAGE` queues a page."""
    projects_service.get_or_raise(db_session=db, project_id=project_id)
    rows, total = queues.list_queues(db, project_id, offset, limit)
    prog = queues.progress(db, [q.id for q in rows])
    return Page[QueueOut](**page([_queue_out(db, q, prog.get(q.id, {})) for q in rows], total, offset, limit))


@router.get("/queues/{queue_id}", response_model=QueueOut)
def get_queue(queue_id: Id, db: DB, _: Viewer) -> QueueOut:
    q = queues.get_or_raise(db, queue_id)
    return _queue_out(db, q, queues.progress(db, [q.id]).get(q.id, {}))


@router.delete("/queues/{queue_id}", status_code=204)
def delete_queue(queue_id: Id, db: DB, _: Admin) -> Response:
    """Drop a queue and its assignments (the marks people gave stay theirs, and so does who finished
    which example: ``feedback_done``, which the agreement reads)."""
    db.delete(queues.get_or_raise(db, queue_id))
    db.commit()
    return Response(status_code=204)


@router.get("/queues/{queue_id}/next", response_model=QueueNextOut)
def next_example(queue_id: Id, db: DB, user: Annotator, counts: bool = False) -> Response:
    """The caller's next example in this queue (resumes where they left off); with ``counts``, also
    their done / skipped / left (a count over their part: ask for it when showing it, not on every step)."""
    q = queues.get_or_raise(db, queue_id)
    found = queues.next_item(db, q, user.id)
    mine = queues.progress_of(db, q.id, user.id) if counts else {}
    item = _item_out(*found) if found is not None else None
    out = QueueNextOut(item=item, rule=queues.RULES[q.ordering], **mine)
    db.commit()
    return json_of(out)


@router.get("/queues/{queue_id}/items", response_model=Page[QueueItemOut])
def list_items(
    queue_id: Id,
    db: DB,
    user: Annotator,
    user_id: OptId = None,
    status: ItemStatus | None = None,
    offset: Offset = 0,
    limit: Limit = 50,
) -> Page[QueueItemOut]:
    """A page of the caller's items by rank (an admin: anyone's with ``user_id``, or everyone's)."""
    q = queues.get_or_raise(db, queue_id)
    if user.role is not Role.ADMIN:
        if user_id not in (None, user.id):
            raise DataError("only an admin lists another person's items")
        user_id = user.id
    rows, total = queues.items(db, q, user_id, status, offset, limit)
    ext = dict(db.execute(select(Example.id, Example.ext_id).where(Example.id.in_([r.example_id for r in rows]))).all())
    items = [_item_out(r, None).model_copy(update={"example_ext_id": ext.get(r.example_id)}) for r in rows]
    return Page[QueueItemOut](**page(items, total, offset, limit))


@router.put("/queues/{queue_id}/items/{example_id}", response_model=QueueItemOut)
def set_item_status(queue_id: Id, example_id: Id, body: QueueStatusIn, db: DB, user: Annotator) -> QueueItemOut:
    """Mark the caller's item done, skipped, or left again (recorded in the queue's log)."""
    q = queues.get_or_raise(db, queue_id)
    item = queues.set_status(db, q, queues.item_of(db, q, example_id, user.id), body.status)
    out = _item_out(item, None)
    db.commit()
    return out


@router.get("/projects/{project_id}/agreement", response_model=AgreementOut)
def get_agreement(
    project_id: Id,
    db: DB,
    user: Viewer,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=0, le=WORDS_PAGE)] = 20,
) -> AgreementOut:
    """Token-level agreement (Cohen's κ per pair, Fleiss' κ, Krippendorff's α), per word (a page, most
    disputed first) and on the task-level words; kept up to date per change, not recomputed. In blind
    mode an annotator gets the numbers only: the task words' list says who set what, so it is left out."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    out = flows.summary(db, project, offset=offset, limit=limit)
    if not team.sees_everyone(project, user):
        out["task"] = {**out["task"], "words": []}
    return AgreementOut(**out)


@router.get(
    "/projects/{project_id}/feedback/dataset",
    response_class=FileResponse,
    responses={200: {"content": {"application/gzip": {}}, "description": "the saved dataset, as a .tar.gz"}},
)
def export_dataset(
    project_id: Id,
    request: Request,
    db: DB,
    _: Admin,
    policy: Annotated[str | None, Query(max_length=20)] = None,
    k: Annotated[int | None, Query(ge=1, le=100)] = None,
) -> FileResponse:
    """Everyone's feedback as a Hugging Face dataset (each annotator's token marks, the consensus, the
    task-level words with who, the reviewers' decisions), ``save_to_disk``'s folder ``feedback/`` packed
    as a .tar.gz."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    dd = hub.feedback_dataset(db, project, policy=policy, k=k)
    work = temp_dir(settings_of(request))
    name = f"{project.name}-feedback.tar.gz"
    end_session(request, db)  # packing and sending take as long as the client is slow: hold no connection
    path = hub.save_archive(dd, work / "feedback.tar.gz")
    return FileResponse(path, media_type="application/gzip", filename=name, background=BackgroundTask(remove, work))


@router.post("/projects/{project_id}/feedback/dataset", response_model=FeedbackDatasetImportOut)
async def import_dataset(
    project_id: Id,
    request: Request,
    db: DB,
    user: Admin,
    file: Annotated[UploadFile, File(description="a .tar.gz made by the export")],
    dataset_id: Annotated[int, Form(ge=1, le=MAX_ID)],
) -> FeedbackDatasetImportOut:
    """Read an exported feedback dataset into this project's training set: each annotator's marks as
    theirs (accounts by name), who saw what as a queue of finished items, each review as its reviewer's."""
    settings = settings_of(request)
    work = temp_dir(settings)
    try:
        path = await save_upload(file, work / "upload.tar.gz", settings)
        return await run_in_threadpool(_import, db, project_id, dataset_id, path, work, file.filename or "upload")
    finally:
        remove(work)


def _import(
    db: Session, project_id: int, dataset_id: int, path: Path, work: Path, name: str
) -> FeedbackDatasetImportOut:
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    dd = hub.load_archive(path, work / "x")
    stamp = utcnow().strftime("%Y-%m-%d %H:%M:%S")
    return FeedbackDatasetImportOut(**hub.import_dataset(db, project, dataset_id, dd, f"imported {name[:100]} {stamp}"))


@router.post("/projects/{project_id}/jobs/push-feedback", status_code=202, response_model=JobOut)
def push_feedback(project_id: Id, body: FeedbackPushIn, request: Request, db: DB, _: Admin) -> JobOut:
    """Push the feedback dataset beside the model ``repo_id``: into the dataset repository
    ``<repo_id>-feedback`` (created if missing), one commit; the model's card then links it."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    params = body.model_dump(include={"repo_id", "private", "policy", "k"})
    token = body.token.get_secret_value() if body.token is not None else None
    return job_out(hub.start_push_feedback(db, enqueue_of(request), project, params, token))
