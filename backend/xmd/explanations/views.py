"""Explanations over HTTP: one example (computed on demand, then cached), the task-level word ranking,
the examples containing a word, and "what if" for an edited text (nothing stored).

Scores go out raw *and* as shares (:func:`xmd.core.normalize.normalize_scores`, the same scale the
ER loss targets: remove → 0, add → 1), so what the UI shades is what training pulls on.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from xmd.api.deps import DB, require
from xmd.api.resolve import method_for, version_for
from xmd.api.runtime import ModelCache, models_of, settings_of
from xmd.core.aggregate import SORTS, WordStats
from xmd.core.attribution import explain
from xmd.core.normalize import normalize_scores
from xmd.core.types import DataError
from xmd.core.types import Explanation as CoreExplanation
from xmd.core.words import split_words, word_key
from xmd.datasets import service as datasets_service
from xmd.datasets.models import Example
from xmd.datasets.views import ExampleOut, examples_out
from xmd.explanations import service
from xmd.feedback_store import service as feedback_service
from xmd.feedback_store.models import FeedbackLevel
from xmd.models.models import ModelVersion
from xmd.projects import service as projects_service
from xmd.projects.models import Project
from xmd.users.models import Role, User

router = APIRouter(prefix="/api", tags=["explanations"])
Viewer = Annotated[User, Depends(require(Role.VIEWER))]

SUSPICIOUS_SKEW = 0.5
SUSPICIOUS_MIN_COUNT = 3
SUSPICIOUS_MIN_IMPORTANCE = 0.05
"""A word is *suggested suspicious* when it carries >= 5% of the attribution on average, appears at
least 3 times and leans to one label at least half-way beyond the label prior (skew >= 0.5)."""


class WordMark(BaseModel):
    word_index: int
    action: str
    level: Literal["instance", "task"]
    scope: str | None = None
    label: int | None = None


class ExplanationOut(BaseModel):
    example_id: int | None
    version_id: int
    method: str
    text: str
    words: list[str]
    spans: list[tuple[int, int]]
    scores: list[float]
    shares: list[float] = Field(description="|score| / sum |score| per example: the scale feedback targets")
    target: int
    target_name: str
    prediction: int = Field(description="the predicted class (argmax of probs)")
    probs: list[float]
    label: int | None = None
    label_name: str | None = None
    n_seen: int
    truncated: bool
    marks: list[WordMark] = Field(default_factory=list, description="feedback on this example's words")


class WordFeedback(BaseModel):
    action: str
    label: int | None
    scope: str | None


class WordOut(BaseModel):
    word: str
    count: int
    mean_importance: float
    mean_signed: float
    label_counts: list[int]
    skew: float
    skew_label: int | None
    skew_label_name: str | None
    suspicion: float
    suspicious: bool
    feedback: list[WordFeedback]


class WordPage(BaseModel):
    items: list[WordOut]
    total: int
    offset: int
    limit: int
    version_id: int
    method: str
    n_examples: int = Field(description="examples aggregated into this ranking")


class WordExample(ExampleOut):
    highlight: list[int] = Field(description="positions (word indices) of the word in this example")
    spans: list[tuple[int, int]]


class WordExamplePage(BaseModel):
    items: list[WordExample]
    total: int
    offset: int
    limit: int


class WhatIf(BaseModel):
    text: str = Field(min_length=1)
    version_id: int | None = None
    method: str | None = None


def _out(
    exp: CoreExplanation,
    text: str,
    project: Project,
    mv: ModelVersion,
    example: Example | None,
    marks: list[WordMark],
) -> ExplanationOut:
    return ExplanationOut(
        example_id=None if example is None else example.id,
        version_id=mv.id,
        method=exp.method,
        text=text,
        words=exp.words,
        spans=[tuple(s) for s in exp.spans],
        scores=exp.scores,
        shares=normalize_scores(exp.scores),
        target=exp.target,
        target_name=project.labels[exp.target],
        prediction=exp.prediction,
        probs=exp.probs,
        label=None if example is None else example.label,
        label_name=None if example is None or example.label is None else project.labels[example.label],
        n_seen=exp.n_seen,
        truncated=exp.n_seen < len(exp.words),
        marks=marks,
    )


def max_length(project: Project) -> int:
    return int(project.settings.get("max_length", 256))


def explanation_for(
    db: Session, models: ModelCache, project: Project, mv: ModelVersion, example: Example, method: str
) -> CoreExplanation:
    """The stored explanation, or compute, store (updating the aggregates) and return it."""
    found = service.get_explanation(db_session=db, example_id=example.id, model_version_id=mv.id, method=method)
    if found is not None:
        return found
    with models.use(mv.path, list(project.labels)) as loaded:
        exp = explain(
            loaded, [example.text], method=method, max_length=max_length(project), example_ids=[example.ext_id]
        )
    service.upsert_explanations(db_session=db, model_version=mv, method=method, items=[(example, exp[0])])
    stored = service.get_explanation(db_session=db, example_id=example.id, model_version_id=mv.id, method=method)
    assert stored is not None
    return stored


def marks_for(
    db: Session, project: Project, example: Example, words: list[str], predicted: int | None = None
) -> list[WordMark]:
    """Instance feedback on the example, plus the task-level feedback that applies to it: on one of its
    words, for its gold label (or any), and whose scope (correct / incorrect predictions) matches
    ``predicted`` under the version shown (scoped feedback is left out when the prediction is unknown)."""
    marks = [
        WordMark(word_index=fb.word_index, action=fb.action.value, level="instance")
        for fb in feedback_service.list_feedback(db_session=db, project_id=project.id, example_id=example.id)
        if fb.word_index is not None
    ]
    task = feedback_service.list_feedback(db_session=db, project_id=project.id, level=FeedbackLevel.TASK)
    if task:
        keys = [word_key(w) for w in words]
        for fb in task:
            scope = fb.scope.value if fb.scope else "all"
            if scope != "all":
                if predicted is None or example.label is None:
                    continue
                if (predicted == example.label) != (scope == "correct"):
                    continue
            for i, k in enumerate(keys):
                if k == fb.word and (fb.label is None or fb.label == example.label):
                    marks.append(
                        WordMark(
                            word_index=i,
                            action=fb.action.value,
                            level="task",
                            scope=fb.scope.value if fb.scope else None,
                            label=fb.label,
                        )
                    )
    return marks


@router.get("/examples/{example_id}/explanation", response_model=ExplanationOut)
def get_explanation(
    example_id: int,
    request: Request,
    db: DB,
    _: Viewer,
    version_id: int | None = None,
    method: str | None = None,
) -> ExplanationOut:
    """Word attributions of one example under a model version (default: latest ready) and method;
    computed on first request and cached (the task ranking is updated in the same transaction)."""
    example = datasets_service.get_example_or_raise(db_session=db, example_id=example_id)
    project = projects_service.get_or_raise(db_session=db, project_id=example.project_id)
    mv = version_for(db, project, version_id)
    m = method_for(project, method)
    exp = explanation_for(db, models_of(request), project, mv, example, m)
    return _out(exp, example.text, project, mv, example, marks_for(db, project, example, exp.words, exp.prediction))


class _CountCache:
    """Totals for the ranking's pager, kept until the aggregate changes (its state row's
    ``updated_at``): counting 100k word rows per page request cost more than the page itself."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._data: dict[tuple[Any, ...], int] = {}
        self._lock = threading.Lock()

    def get(self, db: Session, args: dict[str, Any], state: Any) -> int:
        if state is None:
            return service.count_words(db_session=db, **args)
        key = (db.get_bind().url.render_as_string(), state.updated_at, state.n_examples, *sorted(args.items()))
        with self._lock:
            hit = self._data.get(key)
        if hit is not None:
            return hit
        total = service.count_words(db_session=db, **args)
        with self._lock:
            if len(self._data) >= self.size:
                self._data.clear()
            self._data[key] = total
        return total


_count_cache = _CountCache()


def word_out(db: Session, project: Project, ws: WordStats, feedback: dict[str, list[WordFeedback]]) -> WordOut:
    return WordOut(
        **ws.to_dict(),
        suspicious=ws.skew >= SUSPICIOUS_SKEW
        and ws.count >= SUSPICIOUS_MIN_COUNT
        and ws.mean_importance >= SUSPICIOUS_MIN_IMPORTANCE,
        feedback=feedback.get(ws.word, []),
    )


@router.get("/projects/{project_id}/words", response_model=WordPage)
def list_words(
    project_id: int,
    db: DB,
    _: Viewer,
    version_id: int | None = None,
    method: str | None = None,
    sort: Annotated[Literal["importance", "count", "suspicion"], Query()] = "importance",
    label: Annotated[int | None, Query(ge=0)] = None,
    search: Annotated[str | None, Query(max_length=200)] = None,
    min_count: Annotated[int, Query(ge=1)] = 1,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=0, le=service.MAX_PAGE)] = 100,
) -> WordPage:
    """Task explanation: words ranked by mean importance, count or suspicion (importance x label skew)."""
    assert sort in SORTS
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    if label is not None and label >= len(project.labels):
        raise DataError(f"label {label} is outside the project's labels 0..{len(project.labels) - 1}")
    mv = version_for(db, project, version_id)
    m = method_for(project, method)
    args: dict[str, Any] = {
        "model_version_id": mv.id,
        "method": m,
        "label": label,
        "search": search,
        "min_count": min_count,
    }
    rows = service.ranking(db_session=db, sort=sort, offset=offset, limit=limit, **args)
    state = service.get_state(db_session=db, model_version_id=mv.id, method=m)
    total = _count_cache.get(db, args, state)
    feedback: dict[str, list[WordFeedback]] = {}
    for fb in feedback_service.list_feedback(db_session=db, project_id=project.id, level=FeedbackLevel.TASK):
        assert fb.word is not None
        feedback.setdefault(fb.word, []).append(
            WordFeedback(action=fb.action.value, label=fb.label, scope=fb.scope.value if fb.scope else None)
        )
    return WordPage(
        items=[word_out(db, project, ws, feedback) for ws in rows],
        total=total,
        offset=offset,
        limit=limit,
        version_id=mv.id,
        method=m,
        n_examples=state.n_examples if state is not None else 0,
    )


@router.get("/projects/{project_id}/words/{word}/examples", response_model=WordExamplePage)
def word_examples(
    project_id: int,
    word: str,
    db: DB,
    _: Viewer,
    version_id: int | None = None,
    method: str | None = None,
    label: Annotated[int | None, Query(ge=0)] = None,
    correctness: Literal["correct", "incorrect", "all"] = "all",
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=0, le=service.MAX_PAGE)] = 20,
) -> WordExamplePage:
    """Examples whose explanation contains ``word``, with the word's positions to highlight."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    mv = version_for(db, project, version_id)
    m = method_for(project, method)
    pred = None if correctness == "all" else correctness
    args: dict[str, Any] = {"model_version_id": mv.id, "method": m, "word": word, "label": label, "prediction": pred}
    rows = service.examples_with_word(db_session=db, offset=offset, limit=limit, **args)
    stats = service.word_stats(db_session=db, model_version_id=mv.id, method=m, word=word)
    key = word_key(word.strip())
    items = []
    for ex in examples_out(db, project, rows, mv.id, m):
        words, spans = split_words(ex.text)
        hl = [i for i, w in enumerate(words) if word_key(w) == key]
        items.append(WordExample(**ex.model_dump(), highlight=hl, spans=[tuple(s) for s in spans]))
    if stats is None:
        total = 0
    elif pred is not None:
        total = service.count_examples_with_word(db_session=db, **args)
    else:
        total = stats.count if label is None else stats.label_counts[label] if label < len(stats.label_counts) else 0
    return WordExamplePage(items=items, total=total, offset=offset, limit=limit)


@router.post("/projects/{project_id}/predict", response_model=ExplanationOut)
def what_if(project_id: int, body: WhatIf, request: Request, db: DB, _: Viewer) -> ExplanationOut:
    """Predict and explain an edited text under any version, without storing anything."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    limit = settings_of(request).max_text_chars
    if len(body.text) > limit:
        raise DataError(f"the text has {len(body.text)} characters; the limit is {limit} (XMD_MAX_TEXT_CHARS)")
    if not body.text.strip():
        raise DataError("the text is empty")
    mv = version_for(db, project, body.version_id)
    m = method_for(project, body.method)
    with models_of(request).use(mv.path, list(project.labels)) as loaded:
        exp = explain(loaded, [body.text], method=m, max_length=max_length(project))[0]
    return _out(exp, body.text, project, mv, None, [])
