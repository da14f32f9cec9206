"""Feedback over HTTP: one click = one committed event before the response; list, history, export, import.

Export/import use the core's feedback JSON (the file ``xmd debug --feedback`` reads), so feedback can
move between projects, or be simulated from rationale files and word lists.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from xmd.core.feedback import task_key
from xmd.core.types import Action, FeedbackError
from xmd.datasets import service as datasets_service
from xmd.datasets.models import Example
from xmd.feedback import flows, service
from xmd.feedback.models import Feedback, FeedbackEvent, FeedbackLevel
from xmd.feedback.schemas import (
    CLICK_FIELDS,
    EventOut,
    FeedbackOut,
    FeedbackPage,
    ImportIn,
    ImportOut,
    InstanceIn,
    TaskIn,
    WriteOut,
)
from xmd.http.deps import DB, Annotator, Viewer, settings_of
from xmd.http.pagination import Offset, Page, page
from xmd.http.params import Cursor, Id, OptId
from xmd.http.responses import json_of
from xmd.jobs import flows as job_flows
from xmd.projects import service as projects_service
from xmd.users.models import User

router = APIRouter(prefix="/api", tags=["feedback"])


def _names(db: Session, ids: set[int | None]) -> dict[int, str]:
    wanted = [i for i in ids if i is not None]
    if not wanted:
        return {}
    return {u.id: u.name for u in db.scalars(select(User).where(User.id.in_(wanted)))}


def _ext(db: Session, rows: list[Any]) -> dict[int, str]:
    return datasets_service.ext_ids(db_session=db, example_ids=[r.example_id for r in rows])


def _fb_out(fb: Feedback, names: dict[int, str], ext: dict[int, str]) -> FeedbackOut:
    by = names.get(fb.updated_by) if fb.updated_by is not None else None
    return FeedbackOut(
        **{f: getattr(fb, f) for f in CLICK_FIELDS},
        updated_by=by,
        updated_at=fb.updated_at,
        example_ext_id=ext.get(fb.example_id) if fb.example_id is not None else None,
    )


def _ev_out(ev: FeedbackEvent, names: dict[int, str], ext: dict[int, str]) -> EventOut:
    user = names.get(ev.user_id) if ev.user_id is not None else None
    return EventOut(
        **{f: getattr(ev, f) for f in CLICK_FIELDS},
        user=user,
        created_at=ev.created_at,
        example_ext_id=ext.get(ev.example_id) if ev.example_id is not None else None,
    )


def _written(
    db: Session, key: str, action: Action, fb: Feedback | None, user: User, example: Example | None = None
) -> WriteOut:
    """The receipt of one click: its own event id (not the key's latest, which a concurrent click
    may already have replaced) and the key's state as this transaction left it. ``example``: the
    clicked example, whose file id the receipt shows (already read: no query after the commit)."""
    ext = {example.id: example.ext_id} if example is not None else {}
    return WriteOut(
        key=key,
        action=action,
        event_id=db.info[service.LAST_EVENT],
        current=None if fb is None else _fb_out(fb, {user.id: user.name}, ext),
    )


@router.put("/examples/{example_id}/feedback", response_model=WriteOut)
def set_instance_feedback(example_id: Id, body: InstanceIn, db: DB, user: Annotator) -> Response:
    """Add / remove / reset one word of one example; committed before the response."""
    example, project = datasets_service.get_example_and_project(db_session=db, example_id=example_id)
    fb = service.set_feedback(
        db_session=db, project=project, action=body.action, example=example, word_index=body.word_index, user_id=user.id
    )
    return json_of(_written(db, service.instance_key(example.id, body.word_index), body.action, fb, user, example))


@router.put("/projects/{project_id}/task-feedback", response_model=WriteOut)
def set_task_feedback(project_id: Id, body: TaskIn, db: DB, user: Annotator) -> Response:
    """Add / remove / reset a word for the whole task (optionally one gold label, and a prediction scope)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    if not body.word.strip():
        raise FeedbackError("the word is empty")
    fb = service.set_feedback(
        db_session=db,
        project=project,
        action=body.action,
        word=body.word,
        label=body.label,
        scope=body.scope,
        user_id=user.id,
    )
    key = service.task_feedback_key(task_key(body.word), body.label, body.scope)
    return json_of(_written(db, key, body.action, fb, user))


@router.get("/projects/{project_id}/feedback", response_model=FeedbackPage)
def list_feedback(
    project_id: Id,
    db: DB,
    _: Viewer,
    level: FeedbackLevel | None = None,
    example_id: OptId = None,
    word: Annotated[str | None, Query(max_length=200)] = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=0, le=service.MAX_PAGE)] = 100,
) -> FeedbackPage:
    """Current feedback, in the order it was given, with who gave it and when."""
    projects_service.get_or_raise(db_session=db, project_id=project_id)
    args: dict[str, Any] = {"project_id": project_id, "level": level, "example_id": example_id, "word": word}
    rows = service.list_feedback(db_session=db, offset=offset, limit=limit, **args)
    total = len(service.list_feedback(db_session=db, **args))
    names = _names(db, {fb.updated_by for fb in rows})
    ext = _ext(db, rows)
    return FeedbackPage(**page([_fb_out(fb, names, ext) for fb in rows], total, offset, limit))


@router.get("/projects/{project_id}/feedback/events", response_model=Page[EventOut])
def list_events(
    project_id: Id,
    db: DB,
    _: Viewer,
    key: Annotated[str | None, Query(max_length=300, description="one key's history")] = None,
    after_id: Cursor = None,
    before_id: Cursor = None,
    order: Literal["asc", "desc"] = "asc",
    limit: Annotated[int, Query(ge=1, le=service.MAX_PAGE)] = 100,
) -> Page[EventOut]:
    """Every click, resets included: the audit trail (and what undo steps back through). Oldest
    first with ``after_id`` paging, or ``order=desc`` with ``before_id`` for the latest clicks."""
    projects_service.get_or_raise(db_session=db, project_id=project_id)
    args: dict[str, Any] = {"project_id": project_id, "key": key, "after_id": after_id, "before_id": before_id}
    events = service.list_events(db_session=db, newest_first=order == "desc", limit=limit, **args)
    total = service.count_events(db_session=db, **args)
    names = _names(db, {e.user_id for e in events})
    ext = _ext(db, events)
    return Page[EventOut](**page([_ev_out(e, names, ext) for e in events], total, 0, limit))


@router.get("/projects/{project_id}/feedback/export")
def export_feedback(project_id: Id, db: DB, _: Viewer, dataset_id: OptId = None) -> dict[str, Any]:
    """The current feedback as the core's JSON (instance entries by example file id, with their words)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    if dataset_id is not None:
        datasets_service.in_project(db_session=db, project=project, dataset_id=dataset_id)
    fs = service.to_feedback_set(db_session=db, project=project, dataset_id=dataset_id)
    return fs.to_dict()


@router.post(
    "/projects/{project_id}/feedback/import",
    response_model=ImportOut,
    responses={202: {"model": ImportOut, "description": "a large rationale import started as a job (job_id)"}},
)
def import_feedback(
    project_id: Id, body: ImportIn, request: Request, response: Response, db: DB, user: Annotator
) -> ImportOut:
    """Record an exported feedback file, or feedback simulated from a rationale column or a word list,
    as new events, all or nothing (422 naming the first problem). ``preview`` writes nothing and says
    how many examples and words the import touches (a rationale preview: of the dataset's first rows,
    ``sample_rows``). Committing rationales of a dataset larger than ``XMD_IMPORT_SYNC_ROWS`` rows
    answers 202 with ``job_id``: the import runs as a job (progress, cancel) after a check of a sample."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    ds = flows.train_dataset(db, project, body.dataset_id)
    if flows.runs_as_job(ds, body, settings_of(request).import_sync_rows):
        params = flows.job_params(db, project, body, user.id)
        job = job_flows.start(db, request.app.state.enqueue, project, flows.IMPORT, params)
        response.status_code = 202
        return ImportOut(preview=False, imported=0, entries=0, source=None, dataset_rows=ds.n_examples, job_id=job.id)
    return flows.import_feedback(db, project, body, user.id)
