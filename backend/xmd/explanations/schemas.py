"""Explanations and word rankings as the API shows them.

Scores go out raw *and* as shares (:func:`xmd.core.normalize.normalize_scores`, the same scale the
ER loss targets: remove → 0, add → 1), so what the UI shades is what training pulls on. Every word
carries ``suspicious`` from the core's one rule (:func:`xmd.core.suspicion.is_suspicious`).
"""

from __future__ import annotations

import typing
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model
from sqlalchemy.orm import Session

from xmd.core.suspicion import WordStats
from xmd.core.normalize import normalize_scores
from xmd.core.types import Explanation as CoreExplanation
from xmd.datasets import service as datasets_service
from xmd.datasets.models import DatasetRole, Example
from xmd.datasets.schemas import ExampleOut
from xmd.explanations import ranking
from xmd.explanations import service as explanations_service
from xmd.explanations.models import AggregateState
from xmd.http.pagination import Page
from xmd.http.params import BodyId
from xmd.jobs import service as jobs_service
from xmd.jobs.models import JobKind
from xmd.projects.models import Project
from xmd.versions.models import ModelVersion


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


WordOut = create_model(
    "WordOut",
    __doc__="A ranked word: the core's WordStats field for field, its suspicious flag, and the task feedback on it.",
    **{name: (kind, ...) for name, kind in typing.get_type_hints(WordStats).items()},
    suspicious=(bool, Field(description="the core's rule (xmd.core.suspicion.is_suspicious), not the client's")),
    feedback=(list[WordFeedback], ...),
)


class DatasetCoverage(BaseModel):
    dataset_id: int
    name: str
    explained: int = Field(description="examples of this training set explained under the version and method")
    total: int


class Coverage(BaseModel):
    """How much of the training data a ranking or list under one version and method is built from, so a
    screen never shows a ranking of 2 explained examples as if it were the whole training set's."""

    version_id: int
    version: int
    method: str
    explained: int = Field(description="training examples explained under this version and method")
    total: int = Field(description="training examples of the project")
    complete: bool = Field(description="every training example is explained")
    job_id: str | None = Field(description="a queued or running job explaining this version and method")
    datasets: list[DatasetCoverage]


class WordPage(Page[WordOut]):
    version_id: int
    method: str
    n_examples: int = Field(description="examples aggregated into this ranking")
    coverage: Coverage


class WordExample(ExampleOut):
    highlight: list[int] = Field(description="positions (word indices) of the word in this example")
    spans: list[tuple[int, int]]


class WordExamplePage(Page[WordExample]):
    coverage: Coverage


class WhatIf(BaseModel):
    text: str = Field(min_length=1)
    version_id: BodyId | None = None
    method: str | None = None


def explanation_out(
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


def word_out(ws: WordStats, feedback: dict[str, list[WordFeedback]]) -> WordOut:
    """A ranked word with the task feedback given on it (``suspicious`` comes with ``ws.to_dict()``)."""
    return WordOut(**ws.to_dict(), feedback=feedback.get(ws.word, []))


UNREAD: Any = object()
"""``state`` not given: :func:`coverage_of` reads it."""


def explained_by_dataset(
    db: Session, project: Project, mv: ModelVersion, method: str, state: AggregateState | None
) -> dict[int, int]:
    """Examples explained under (``mv``, ``method``) per dataset, kept until the aggregate ``state`` changes:
    counting them joins every explanation of the version, which at a million examples cost more than the
    task view's own query, on every page."""

    def count() -> dict[int, int]:
        rows = explanations_service.explained_counts(
            db_session=db, project_id=project.id, model_version_id=mv.id, method=method
        )
        return {d: n for d, _, _, _, n in rows}

    return ranking.state_cache.get(db, state, ("explained_by_dataset", project.id), count)


def coverage_of(
    db: Session, project: Project, mv: ModelVersion, method: str, state: AggregateState | None = UNREAD
) -> Coverage:
    """What the training sets hold explained under (``mv``, ``method``), and the explain job filling them.
    ``state``: the (version, method)'s state row when the caller has read it already (None: nothing
    explained yet)."""
    if state is UNREAD:
        state = explanations_service.get_state(db_session=db, model_version_id=mv.id, method=method)
    train = datasets_service.list_datasets(db_session=db, project_id=project.id, role=DatasetRole.TRAIN)
    counts = explained_by_dataset(db, project, mv, method, state)
    sets = [
        DatasetCoverage(dataset_id=ds.id, name=ds.name, explained=counts.get(ds.id, 0), total=ds.n_examples)
        for ds in train
    ]
    job = next(
        (
            j
            for j in jobs_service.active_jobs(db_session=db, project_id=project.id)
            if j.kind is JobKind.EXPLAIN and j.params.get("version_id") == mv.id and j.params.get("method") == method
        ),
        None,
    )
    explained, total = sum(s.explained for s in sets), sum(s.total for s in sets)
    return Coverage(
        version_id=mv.id,
        version=mv.version,
        method=method,
        explained=explained,
        total=total,
        complete=explained >= total,
        job_id=None if job is None else job.id,
        datasets=sets,
    )
