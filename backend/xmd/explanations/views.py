"""Explanations over HTTP: one example (computed on demand, then cached), the task-level word ranking,
the examples containing a word, and "what if" for an edited text (nothing stored)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from sqlalchemy.orm import Session

from xmd.core.aggregate import SORTS
from xmd.core.attribution import explain
from xmd.core.suspicion import default_min_count
from xmd.core.types import DataError
from xmd.core.words import split_words, word_key
from xmd.datasets import service as datasets_service
from xmd.datasets.schemas import Correctness, ExampleOut, ExamplePage, examples_out
from xmd.explanations import flows, ranking, service
from xmd.explanations.flows import explanation_for, marks_for
from xmd.explanations.schemas import (
    Coverage,
    ExplainIn,
    ExplanationOut,
    WhatIf,
    WordExample,
    WordExamplePage,
    WordPage,
    explanation_out,
    word_marks,
    word_out,
)
from xmd.feedback import service as feedback_service
from xmd.feedback import team
from xmd.feedback import words as feedback_words
from xmd.http.deps import DB, Annotator, Viewer, enqueue_of, models_of, settings_of
from xmd.http.limits import RegexSearchSlot
from xmd.http.pagination import Offset, page
from xmd.http.params import MAX_INT, Id, Label, OptId
from xmd.http.responses import json_of
from xmd.jobs.schemas import JobOut, job_out
from xmd.projects import service as projects_service
from xmd.projects.models import Project
from xmd.users.models import User
from xmd.versions import service as versions_service

router = APIRouter(prefix="/api", tags=["explanations"])
job_router = APIRouter(prefix="/api", tags=["jobs"])
"""Starting an explain job (listed with the other job routes, before ``xmd.jobs.views``)."""


@router.get("/examples/{example_id}/explanation", response_model=ExplanationOut)
def get_explanation(
    example_id: Id,
    request: Request,
    db: DB,
    user: Viewer,
    version_id: OptId = None,
    method: str | None = None,
) -> Response:
    """Word attributions of one example under a model version (default: latest ready) and method;
    computed on first request and cached (the task ranking is updated in the same transaction)."""
    example, project = datasets_service.get_example_and_project(db_session=db, example_id=example_id)
    mv = versions_service.resolve(db_session=db, project=project, version_id=version_id)
    m = projects_service.method_for(project, method)
    exp = explanation_for(db, models_of(request), project, mv, example, m)
    marks = marks_for(db, project, example, exp.words, exp.prediction, user)
    return json_of(explanation_out(exp, example.text, project, mv, example, marks))


@router.get("/projects/{project_id}/words", response_model=WordPage)
def list_words(
    project_id: Id,
    db: DB,
    user: Viewer,
    version_id: OptId = None,
    method: str | None = None,
    sort: Annotated[Literal["importance", "count", "suspicion"], Query()] = "importance",
    label: Label = None,
    search: Annotated[str | None, Query(max_length=200)] = None,
    min_count: Annotated[int, Query(ge=1, le=MAX_INT)] = 1,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=0, le=service.MAX_PAGE)] = 100,
) -> Response:
    """Task explanation: words ranked by mean importance, count or suspicion (importance x label skew),
    each with its task feedback as the reader may see it (``marks``: the consensus, or blind their own)."""
    assert sort in SORTS
    project, candidate = versions_service.project_and_version(
        db_session=db, project_id=project_id, version_id=version_id
    )
    if label is not None and label >= len(project.labels):
        raise DataError(f"label {label} is outside the project's labels 0..{len(project.labels) - 1}")
    mv = versions_service.resolve(db_session=db, project=project, version_id=version_id, candidate=candidate)
    m = projects_service.method_for(project, method)
    page = ranking.word_page(
        db_session=db,
        project=project,
        model_version=mv,
        method=m,
        sort=sort,
        label=label,
        search=search,
        min_count=min_count,
        offset=offset,
        limit=limit,
    )
    # the consensus by the project's policy and the reader's own apart; blind: an annotator's own only
    tw = feedback_words.task_words(db_session=db, project=project, user=user, words=[ws.word for ws in page.rows])
    return json_of(
        WordPage(
            items=[word_out(ws, tw) for ws in page.rows],
            marks=word_marks(tw),
            total=page.total,
            offset=offset,
            limit=limit,
            version_id=mv.id,
            method=m,
            n_examples=page.n_examples,
            coverage=Coverage(**service.coverage(db_session=db, project=project, mv=mv, method=m, state=page.state)),
            min_count_default=default_min_count(ranking.label_prior(page.state, len(project.labels))),
        )
    )


@router.get("/projects/{project_id}/words/{word}/examples", response_model=WordExamplePage)
def word_examples(
    project_id: Id,
    word: str,
    db: DB,
    user: Viewer,
    version_id: OptId = None,
    method: str | None = None,
    label: Label = None,
    correctness: Literal["correct", "incorrect", "all"] = "all",
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=0, le=service.MAX_PAGE)] = 20,
) -> WordExamplePage:
    """Examples whose explanation contains ``word``, with the word's positions to highlight."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    mv = versions_service.resolve(db_session=db, project=project, version_id=version_id)
    m = projects_service.method_for(project, method)
    pred = None if correctness == "all" else correctness
    args: dict[str, Any] = {"model_version_id": mv.id, "method": m, "word": word, "label": label, "prediction": pred}
    rows = ranking.examples_with_word(db_session=db, offset=offset, limit=limit, **args)
    stats = ranking.word_stats(db_session=db, model_version_id=mv.id, method=m, word=word)
    key = word_key(word.strip())
    items = []
    ids = [e.id for e in rows]
    preds = datasets_service.stored_predictions(db_session=db, example_ids=ids, version_id=mv.id, method=m)
    counts = feedback_service.counts_by_example(db_session=db, example_ids=ids, where=team.visible_to(project, user))
    for ex in examples_out(project, rows, preds, counts):
        words, spans = split_words(ex.text)
        hl = [i for i, w in enumerate(words) if word_key(w) == key]
        items.append(WordExample(**ex.model_dump(), highlight=hl, spans=[tuple(s) for s in spans]))
    if stats is None:
        total = 0
    elif pred is not None:
        total = ranking.count_examples_with_word(db_session=db, **args)
    else:
        total = stats.count if label is None else stats.label_counts[label] if label < len(stats.label_counts) else 0
    return WordExamplePage(
        items=items,
        total=total,
        offset=offset,
        limit=limit,
        coverage=Coverage(**service.coverage(db_session=db, project=project, mv=mv, method=m)),
    )


@job_router.post("/projects/{project_id}/jobs/explain", status_code=202, response_model=JobOut)
def start_explain(project_id: Id, body: ExplainIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Explain every example of a training dataset (default: the first) with a version and method."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_explain(db, enqueue_of(request), project, body))


@router.get("/projects/{project_id}/coverage", response_model=Coverage)
def coverage(project_id: Id, db: DB, _: Viewer, version_id: OptId = None, method: str | None = None) -> Coverage:
    """How many training examples are explained under a version (default: latest ready) and method, per
    training set, and the explain job filling them if one is queued or running."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    mv = versions_service.resolve(db_session=db, project=project, version_id=version_id)
    m = projects_service.method_for(project, method)
    return Coverage(**service.coverage(db_session=db, project=project, mv=mv, method=m))


@router.post("/projects/{project_id}/predict", response_model=ExplanationOut)
def what_if(project_id: Id, body: WhatIf, request: Request, db: DB, _: Viewer) -> ExplanationOut:
    """Predict and explain an edited text under any version, without storing anything."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    limit = settings_of(request).max_text_chars
    if len(body.text) > limit:
        raise DataError(f"the text has {len(body.text)} characters; the limit is {limit} (XMD_MAX_TEXT_CHARS)")
    if not body.text.strip():
        raise DataError("the text is empty")
    mv = versions_service.resolve(db_session=db, project=project, version_id=body.version_id)
    m = projects_service.method_for(project, body.method)
    with models_of(request).use(mv.path, list(project.labels)) as loaded:
        exp = explain(loaded, [body.text], method=m, max_length=projects_service.max_length(project))[0]
    return explanation_out(exp, body.text, project, mv, None, [])


examples_router = APIRouter(prefix="/api", tags=["datasets"])
"""Examples as the screens browse them, each with its stored prediction and feedback count (listed after
the dataset routes, before the slices): a dataset's examples filtered by label, text, the stored
prediction of a version and feedback; one example; an example found by the id every screen shows."""


def _examples(
    db: Session, project: Project, rows: list, mv_id: int | None, method: str | None, user: User
) -> list[ExampleOut]:
    """The rows with their stored predictions and the feedback counts ``user`` may see (blind mode)."""
    ids = [e.id for e in rows]
    preds = datasets_service.stored_predictions(db_session=db, example_ids=ids, version_id=mv_id, method=method)
    counts = feedback_service.counts_by_example(db_session=db, example_ids=ids, where=team.visible_to(project, user))
    return examples_out(project, rows, preds, counts)


@examples_router.get("/datasets/{dataset_id}/examples", response_model=ExamplePage)
def list_examples(
    dataset_id: Id,
    db: DB,
    user: Viewer,
    _slot: RegexSearchSlot,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=0, le=datasets_service.MAX_PAGE)] = 50,
    search: Annotated[str | None, Query(max_length=500, description="case-insensitive substring")] = None,
    regex: Annotated[str | None, Query(max_length=500, description="case-insensitive regular expression")] = None,
    label: Label = None,
    correctness: Correctness = "all",
    has_feedback: bool | None = None,
    version_id: OptId = None,
    method: str | None = None,
) -> ExamplePage:
    """A page of examples in file order, filtered; ``correctness`` uses the stored predictions of the
    version (default: the latest ready one) — examples not explained yet match neither correct nor incorrect."""
    ds = datasets_service.get_or_raise(db_session=db, dataset_id=dataset_id)
    project = projects_service.get_or_raise(db_session=db, project_id=ds.project_id)
    if label is not None and label >= len(project.labels):
        raise DataError(f"label {label} is outside the project's labels 0..{len(project.labels) - 1}")
    m = projects_service.method_for(project, method)
    mv_id = versions_service.resolve_id(
        db_session=db, project=project, version_id=version_id, required=version_id is not None or correctness != "all"
    )
    filters: dict[str, Any] = {
        "dataset_id": ds.id,
        "label": label,
        "search": search or None,
        "regex": regex or None,
        "prediction": None if correctness == "all" else correctness,
        "version_id": mv_id,
        "method": m,
        "where": [] if has_feedback is None else [feedback_service.given(has_feedback, team.visible_to(project, user))],
    }
    rows = datasets_service.list_examples(db_session=db, offset=offset, limit=limit, **filters)
    total = datasets_service.count_examples(db_session=db, **filters)
    return ExamplePage(**page(_examples(db, project, rows, mv_id, m, user), total, offset, limit))


@examples_router.get("/examples/{example_id}", response_model=ExampleOut)
def get_example(
    example_id: Id, db: DB, user: Viewer, version_id: OptId = None, method: str | None = None
) -> ExampleOut:
    """One example with its stored prediction under a version (default: the latest ready one)."""
    ex = datasets_service.get_example_or_raise(db_session=db, example_id=example_id)
    project = projects_service.get_or_raise(db_session=db, project_id=ex.project_id)
    m = projects_service.method_for(project, method)
    mv_id = versions_service.resolve_id(
        db_session=db, project=project, version_id=version_id, required=version_id is not None
    )
    return _examples(db, project, [ex], mv_id, m, user)[0]


@examples_router.get("/projects/{project_id}/examples/find", response_model=ExampleOut)
def find_example(
    project_id: Id,
    db: DB,
    user: Viewer,
    ext_id: Annotated[
        str, Query(min_length=1, max_length=datasets_service.MAX_EXT_ID + 1, description="the id shown (train-7)")
    ],
    dataset_id: OptId = None,
    version_id: OptId = None,
    method: str | None = None,
) -> ExampleOut:
    """The example with the id every screen shows (its id in its file, e.g. ``train-7``), for wherever
    a person types an example id; ``dataset_id`` picks one when several datasets use the id."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    if dataset_id is not None:
        datasets_service.in_project(db_session=db, project=project, dataset_id=dataset_id)
    ex = datasets_service.find_by_ext_id(db_session=db, project=project, ext_id=ext_id, dataset_id=dataset_id)
    m = projects_service.method_for(project, method)
    mv_id = versions_service.resolve_id(
        db_session=db, project=project, version_id=version_id, required=version_id is not None
    )
    return _examples(db, project, [ex], mv_id, m, user)[0]
