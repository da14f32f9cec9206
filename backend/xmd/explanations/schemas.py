"""Explanations and word rankings as the API shows them.

Scores go out raw *and* as shares (:func:`xmd.core.normalize.normalize_scores`, the same scale the
ER loss targets: remove → 0, add → 1), so what the UI shades is what training pulls on. Every word
carries ``suspicious`` from the core's one rule (:func:`xmd.core.suspicion.is_suspicious`).
"""

from __future__ import annotations

import typing
from typing import Literal

from pydantic import BaseModel, Field, create_model

from xmd.core.normalize import normalize_scores
from xmd.core.suspicion import WordStats
from xmd.core.types import Explanation as CoreExplanation
from xmd.datasets.models import Example
from xmd.datasets.schemas import ExampleOut
from xmd.http.pagination import Page
from xmd.http.params import BodyId
from xmd.projects.models import Project
from xmd.versions.models import ModelVersion


class WordMark(BaseModel):
    word_index: int
    action: str
    level: Literal["instance", "task"]
    scope: str | None = None
    label: int | None = None
    by: str | None = Field(default=None, description="whose mark: a user's name, or an import's")
    mine: bool = Field(default=True, description="the reader's own mark (others' are shown, not toggled)")


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
    min_count_default: int = Field(
        default=2,
        description="the minimum count a screen starts from, chosen from the label shares: the smallest count "
        "at which a word could pass the skew test at all (xmd.core.suspicion.default_min_count)",
    )


class WordExample(ExampleOut):
    highlight: list[int] = Field(description="positions (word indices) of the word in this example")
    spans: list[tuple[int, int]]


class WordExamplePage(Page[WordExample]):
    coverage: Coverage


class ExplainIn(BaseModel):
    dataset_id: BodyId | None = Field(default=None, description="default: every training dataset")
    version_id: BodyId | None = None
    method: str | None = None
    chunk_size: int = Field(default=256, ge=8, le=10_000)


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
