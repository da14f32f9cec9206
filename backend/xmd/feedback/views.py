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
from xmd.feedback import flows, review, service, team, window
from xmd.feedback.models import Feedback, FeedbackEvent, FeedbackLevel
from xmd.feedback.schemas import (
    CLICK_FIELDS,
    MARK_FIELDS,
    ConflictOut,
    ConflictPage,
    ConsensusMarkOut,
    ConsensusOut,
    DecideIn,
    DecideOut,
    DoneOut,
    EventOut,
    ExampleMarksOut,
    FeedbackOut,
    FeedbackPage,
    ImportIn,
    ImportOut,
    InstanceIn,
    PersonMark,
    TaskIn,
    TeamSettingsIO,
    WriteOut,
)
from xmd.http.deps import DB, Admin, Annotator, Reviewer, Viewer, settings_of
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
    user: Viewer,
    level: FeedbackLevel | None = None,
    example_id: OptId = None,
    word: Annotated[str | None, Query(max_length=200)] = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=0, le=service.MAX_PAGE)] = 100,
) -> FeedbackPage:
    """Current feedback (everyone's: one row per person and key), in the order it was given, with who
    gave it and when. In blind mode an annotator sees their own, and the others' only on examples
    they marked done."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    args: dict[str, Any] = {"project_id": project_id, "level": level, "example_id": example_id, "word": word}
    args["where"] = team.visible_to(project, user)
    rows = service.list_feedback(db_session=db, offset=offset, limit=limit, **args)
    total = service.count_feedback(db_session=db, **args)
    names = _names(db, {fb.updated_by for fb in rows})
    ext = _ext(db, rows)
    return FeedbackPage(**page([_fb_out(fb, names, ext) for fb in rows], total, offset, limit))


@router.get("/projects/{project_id}/feedback/events", response_model=Page[EventOut])
def list_events(
    project_id: Id,
    db: DB,
    user: Viewer,
    key: Annotated[str | None, Query(max_length=300, description="one key's history")] = None,
    after_id: Cursor = None,
    before_id: Cursor = None,
    order: Literal["asc", "desc"] = "asc",
    limit: Annotated[int, Query(ge=1, le=service.MAX_PAGE)] = 100,
) -> Page[EventOut]:
    """Every click, resets included: the audit trail (and what undo steps back through). Oldest
    first with ``after_id`` paging, or ``order=desc`` with ``before_id`` for the latest clicks. In
    blind mode an annotator sees their own events, and the others' only on examples they marked done."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    args: dict[str, Any] = {"project_id": project_id, "key": key, "after_id": after_id, "before_id": before_id}
    args["where"] = team.events_visible_to(project, user)
    events = service.list_events(db_session=db, newest_first=order == "desc", limit=limit, **args)
    total = service.count_events(db_session=db, **args)
    names = _names(db, {e.user_id for e in events})
    ext = _ext(db, events)
    return Page[EventOut](**page([_ev_out(e, names, ext) for e in events], total, 0, limit))


@router.get("/projects/{project_id}/feedback/export")
def export_feedback(
    project_id: Id, db: DB, user: Viewer, dataset_id: OptId = None, mine: bool = False
) -> dict[str, Any]:
    """The current feedback as the core's JSON (instance entries by example file id, with their words):
    everyone's (a key's later mark wins), or the reader's own (``mine``; always, for an annotator in
    blind mode)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    if dataset_id is not None:
        datasets_service.in_project(db_session=db, project=project, dataset_id=dataset_id)
    owner = service.owner_of(user.id) if mine or not team.sees_everyone(project, user) else None
    fs = service.to_feedback_set(db_session=db, project=project, dataset_id=dataset_id, owner=owner)
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


# ----------------------------------------------------------------------------- several people (issue 32)


@router.get("/projects/{project_id}/team/settings", response_model=TeamSettingsIO)
def get_team_settings(project_id: Id, db: DB, _: Viewer) -> TeamSettingsIO:
    """How the project's consensus is drawn (policy, k) and whether annotators work blind."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return TeamSettingsIO(**team.team_settings(project).to_dict())


@router.put("/projects/{project_id}/team/settings", response_model=TeamSettingsIO)
def put_team_settings(project_id: Id, body: TeamSettingsIO, db: DB, _: Admin) -> TeamSettingsIO:
    """Change the consensus policy or blind mode (admin): nobody's marks change, only how they combine."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    ts = team.set_team_settings(db_session=db, project=project, policy=body.policy, k=body.k, blind=body.blind)
    return TeamSettingsIO(**ts.to_dict())


@router.get("/projects/{project_id}/consensus", response_model=ConsensusOut)
def get_consensus(
    project_id: Id,
    db: DB,
    user: Viewer,
    dataset_id: OptId = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=0, le=service.MAX_PAGE)] = 100,
) -> ConsensusOut:
    """What a retrain would train on now, by the project's policy: the counts (contributors, ties left
    out, reviewed keys) and a page of the kept marks (``limit=0``: the counts only). Bounded: at most
    20,000 current rows are read (``window.SCAN_CAP``), whole examples by id; ``capped`` when there were
    more. In blind mode an annotator gets the counts only: the marks would show the others'."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    if dataset_id is not None:
        datasets_service.in_project(db_session=db, project=project, dataset_id=dataset_id)
    w = window.consensus_window(db_session=db, project=project, dataset_id=dataset_id)
    hidden = not team.sees_everyone(project, user)
    marks = [] if hidden else w.items()
    shown = marks[offset : offset + limit]
    refs = review.example_refs(db, [m["example_id"] for m in shown if m["example_id"] is not None])
    items = [ConsensusMarkOut(**m, **_ref(refs, m["example_id"])) for m in shown]
    n = review.count_decisions(db_session=db, project_id=project.id)
    summary = {**w.result.summary(), "reviewed": n, "examples": w.examples, "capped": w.capped, "hidden": hidden}
    return ConsensusOut(**page(items, len(marks), offset, limit), **summary)


def _ref(refs: dict[int, tuple[str, int]], example_id: int | None) -> dict[str, Any]:
    ext, ds = refs.get(example_id or 0, (None, None))
    return {"example_ext_id": ext, "dataset_id": ds}


@router.get("/examples/{example_id}/marks", response_model=ExampleMarksOut)
def example_marks(example_id: Id, db: DB, user: Viewer) -> ExampleMarksOut:
    """Everyone's instance marks on one example, with their names, as the reader may see them: in blind
    mode an annotator gets their own until they mark the example done (``hidden`` says so)."""
    example, project = datasets_service.get_example_and_project(db_session=db, example_id=example_id)
    ts = team.team_settings(project)
    done = bool(team.done_examples(db_session=db, project_id=project.id, user_id=user.id, example_ids=[example.id]))
    where = team.visible_to(project, user)
    rows = service.list_feedback(db_session=db, project_id=project.id, example_id=example.id, where=where)
    names = team.names_of(db, [fb.owner for fb in rows])
    mine = service.owner_of(user.id)
    items = [
        PersonMark(**{f: getattr(fb, f) for f in MARK_FIELDS}, by=names[fb.owner], mine=fb.owner == mine) for fb in rows
    ]
    hidden = where is not None and not done  # restricted to one's own until done
    return ExampleMarksOut(
        example_id=example.id, blind=ts.blind, done=done, hidden=hidden, items=items, total=len(items), limit=len(items)
    )


@router.post("/examples/{example_id}/done", response_model=DoneOut)
def mark_done(example_id: Id, db: DB, user: Annotator) -> DoneOut:
    """The reader is done with this example: in blind mode the others' marks show from now on."""
    example, project = datasets_service.get_example_and_project(db_session=db, example_id=example_id)
    team.mark_done(db_session=db, project=project, example=example, user_id=user.id)
    return DoneOut(example_id=example.id, done=True)


@router.get("/projects/{project_id}/conflicts", response_model=ConflictPage)
def list_conflicts(
    project_id: Id,
    db: DB,
    _: Reviewer,
    include_decided: bool = False,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=0, le=200)] = 50,
) -> ConflictPage:
    """Examples' words and task words where the annotators disagree, most disputed first (reviewer)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    found, capped = review.conflicts(db_session=db, project=project, include_decided=include_decided)
    shown = found[offset : offset + limit]
    refs = review.example_refs(db, [c.example_id for c in shown if c.example_id is not None])
    items = []
    for c in shown:
        ext, ds = refs.get(c.example_id or 0, (None, None))
        items.append(ConflictOut(**c.to_dict(), example_ext_id=ext, dataset_id=ds))
    return ConflictPage(**page(items, len(found), offset, limit), capped=capped)


@router.post("/projects/{project_id}/conflicts/decide", response_model=DecideOut)
def decide_conflict(project_id: Id, body: DecideIn, db: DB, user: Reviewer) -> DecideOut:
    """Accept (the most chosen action, or ``action`` on a tie), reject, or edit one disputed key; the
    decision is an event in the log with the reviewer's name, and the ``reviewed`` policy uses it."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    rv = review.decide(
        db_session=db, project=project, key=body.key, decision=body.decision, action=body.action, reviewer_id=user.id
    )
    return DecideOut(key=rv.key, decision=rv.decision.value, action=rv.action, event_id=rv.event_id, reviewer=user.name)
