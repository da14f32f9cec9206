"""Explanations and word rankings as the API shows them.

Scores go out raw *and* as shares (:func:`xmd.core.normalize.normalize_scores`, the same scale the
ER loss targets: remove → 0, add → 1), so what the UI shades is what training pulls on. Every word
carries ``suspicious`` from the core's one rule (:func:`xmd.core.suspicion.is_suspicious`).
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, create_model

from xmd.core.normalize import normalize_scores
from xmd.core.suspicion import WordStats
from xmd.core.types import Action
from xmd.core.types import Explanation as CoreExplanation
from xmd.datasets.models import Example
from xmd.datasets.schemas import ExampleOut
from xmd.http.pagination import Page
from xmd.http.params import BodyId
from xmd.projects.models import Project
from xmd.versions.models import ModelVersion

if TYPE_CHECKING:  # what the words route hands in (feedback.words reads the rows; this module only shapes)
    from xmd.feedback.words import TaskWords, WordEntry


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
    votes: int = Field(default=1, description="people whose current mark this is (a reviewer's edit may have none)")


class WordVotes(BaseModel):
    """People per action on a word (any label or scope), among the marks the reader may see."""

    add: int = 0
    remove: int = 0


class WordMarks(BaseModel):
    """Whose task feedback the words' ``feedback`` is: a team's consensus, or in blind mode one's own."""

    shown: Literal["consensus", "own"] = Field(
        description="consensus: the project's by its policy (what a retrain trains on); own: blind mode, the "
        "reader's marks only (the others' and their counts are hidden)"
    )
    policy: str
    k: int | None = None
    people: int | None = Field(default=None, description="people with feedback: the majority's denominator")


WordOut = create_model(
    "WordOut",
    __doc__="A ranked word: the core's WordStats field for field, its suspicious flag, and the task feedback on it.",
    **{name: (kind, ...) for name, kind in typing.get_type_hints(WordStats).items()},
    suspicious=(bool, Field(description="the core's rule (xmd.core.suspicion.is_suspicious), not the client's")),
    feedback=(
        list[WordFeedback],
        Field(description="the task feedback on the word as the page's `marks.shown` says: consensus or own"),
    ),
    mine=(
        list[WordFeedback],
        Field(default_factory=list, description="the reader's own task feedback on the word (what a reset clears)"),
    ),
    votes=(WordVotes, Field(default_factory=WordVotes, description=WordVotes.__doc__)),
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
    marks: WordMarks | None = Field(default=None, description=WordMarks.__doc__)
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


def word_marks(tw: TaskWords) -> WordMarks:
    """The page's note on whose feedback its words carry."""
    return WordMarks(shown=tw.shown, policy=tw.policy.value, k=tw.k, people=tw.people)


def _entries(entries: list[WordEntry]) -> list[WordFeedback]:
    return [WordFeedback(action=e.action.value, label=e.label, scope=e.scope.value, votes=e.votes) for e in entries]


def word_out(ws: WordStats, tw: TaskWords) -> WordOut:
    """A ranked word with its task feedback as the reader may see it (``suspicious`` comes with
    ``ws.to_dict()``): the consensus or, blind, their own; their own apart; the head count per action."""
    votes = tw.votes.get(ws.word, {})
    return WordOut(
        **ws.to_dict(),
        feedback=_entries(tw.feedback.get(ws.word, [])),
        mine=_entries(tw.mine.get(ws.word, [])),
        votes=WordVotes(add=votes.get(Action.ADD, 0), remove=votes.get(Action.REMOVE, 0)),
    )
