"""Team work over HTTP: queues (an admin assigns, each annotator's Next walks theirs), progress, agreement.

Every list is paged; Next is one index range scan; the agreement summary reads the incrementally kept
statistics (:mod:`xmd.teamwork.agreement`). Nothing here returns anyone's marks: a queue item says which
example and its status, the agreement only counts (blind mode cannot leak through these routes).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from xmd.core.types import DataError
from xmd.datasets.models import Example
from xmd.http.deps import DB, Admin, Annotator, Viewer
from xmd.http.pagination import Limit, Offset, Page, page
from xmd.http.params import Id, OptId
from xmd.http.responses import json_of
from xmd.projects import service as projects_service
from xmd.teamwork import flows, queues
from xmd.teamwork.models import ItemStatus, QueueItem, WorkQueue
from xmd.teamwork.schemas import AgreementOut, ItemOut, NextOut, Progress, QueueIn, QueueOut, StatusIn
from xmd.users.models import Role, User

router = APIRouter(prefix="/api", tags=["team"])
WORDS_PAGE = 100


def _queue_out(db: Session, q: WorkQueue, progress: dict[int, dict[str, int]]) -> QueueOut:
    names = dict(db.execute(select(User.id, User.name).where(User.id.in_(sorted(progress)))).all())
    rows = [Progress(user_id=u, user=names.get(u, str(u)), **c) for u, c in sorted(progress.items())]
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


def _item_out(item: QueueItem, example: Example | None) -> ItemOut:
    return ItemOut(
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
def list_queues(project_id: Id, db: DB, _: Viewer, offset: Offset = 0, limit: Limit = 20) -> Page[QueueOut]:
    """The project's queues with progress per annotator (done / skipped / left)."""
    projects_service.get_or_raise(db_session=db, project_id=project_id)
    rows, total = queues.list_queues(db, project_id, offset, min(limit, 100))
    prog = queues.progress(db, [q.id for q in rows])
    return Page[QueueOut](**page([_queue_out(db, q, prog.get(q.id, {})) for q in rows], total, offset, limit))


@router.get("/queues/{queue_id}", response_model=QueueOut)
def get_queue(queue_id: Id, db: DB, _: Viewer) -> QueueOut:
    q = queues.get_or_raise(db, queue_id)
    return _queue_out(db, q, queues.progress(db, [q.id]).get(q.id, {}))


@router.delete("/queues/{queue_id}", status_code=204)
def delete_queue(queue_id: Id, db: DB, _: Admin) -> Response:
    """Drop a queue and its assignments (the marks people gave stay theirs)."""
    db.delete(queues.get_or_raise(db, queue_id))
    db.commit()
    return Response(status_code=204)


@router.get("/queues/{queue_id}/next", response_model=NextOut)
def next_example(queue_id: Id, db: DB, user: Annotator) -> Response:
    """The caller's next example in this queue (resumes where they left off), with their counts."""
    q = queues.get_or_raise(db, queue_id)
    item = queues.next_item(db, q, user.id)
    example = db.get(Example, item.example_id) if item is not None else None
    counts = queues.progress_of(db, q.id, user.id)
    out = NextOut(item=_item_out(item, example) if item else None, rule=queues.RULES[q.ordering], **counts)
    db.commit()
    return json_of(out)


@router.get("/queues/{queue_id}/items", response_model=Page[ItemOut])
def list_items(
    queue_id: Id,
    db: DB,
    user: Annotator,
    user_id: OptId = None,
    status: ItemStatus | None = None,
    offset: Offset = 0,
    limit: Limit = 50,
) -> Page[ItemOut]:
    """A page of the caller's items by rank (an admin: anyone's with ``user_id``, or everyone's)."""
    q = queues.get_or_raise(db, queue_id)
    if user.role is not Role.ADMIN:
        if user_id not in (None, user.id):
            raise DataError("only an admin lists another person's items")
        user_id = user.id
    rows, total = queues.items(db, q, user_id, status, offset, limit)
    ext = dict(db.execute(select(Example.id, Example.ext_id).where(Example.id.in_([r.example_id for r in rows]))).all())
    items = [_item_out(r, None).model_copy(update={"example_ext_id": ext.get(r.example_id)}) for r in rows]
    return Page[ItemOut](**page(items, total, offset, limit))


@router.put("/queues/{queue_id}/items/{example_id}", response_model=ItemOut)
def set_item_status(queue_id: Id, example_id: Id, body: StatusIn, db: DB, user: Annotator) -> ItemOut:
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
    _: Viewer,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=0, le=WORDS_PAGE)] = 20,
) -> AgreementOut:
    """Token-level agreement (Cohen's κ per pair, Fleiss' κ, Krippendorff's α), per word (a page, most
    disputed first) and on the task-level words; kept up to date per change, not recomputed."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return AgreementOut(**flows.summary(db, project, offset=offset, limit=limit))
