"""Team work over HTTP: queues, their items and progress, the agreement summary (pure data)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, SecretStr, model_validator

from xmd.http.params import BodyId, Count
from xmd.teamwork.models import ItemStatus, QueueOrder
from xmd.versions.schemas import REPO_ID

MAX_WORDS = 100


class QueueIn(BaseModel):
    """Assign examples to annotators: one of ``dataset_id``, ``slice`` (a saved slice's name) or ``words``."""

    name: str = Field(min_length=1, max_length=200)
    annotators: list[BodyId] = Field(min_length=1, max_length=100, description="user ids, in assignment order")
    overlap: int = Field(default=1, ge=1, le=100, description="how many people see each example")
    order: QueueOrder = QueueOrder.RANDOM
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    dataset_id: BodyId | None = None
    slice: str | None = Field(default=None, min_length=1, max_length=100)
    words: list[str] | None = Field(
        default=None, min_length=1, max_length=MAX_WORDS, description="the examples containing any of these words"
    )

    @model_validator(mode="after")
    def _one_source(self) -> QueueIn:
        if self.words is not None and (self.dataset_id is not None or self.slice is not None):
            raise ValueError("give words, or a dataset_id / slice, not both")
        if self.words is None and self.dataset_id is None and self.slice is None:
            raise ValueError("give a dataset_id, a slice or words")
        if self.words is not None and any(not w.strip() or len(w) > 200 for w in self.words):
            raise ValueError("words must be non-empty and at most 200 characters")
        return self


class QueueProgress(BaseModel):
    user_id: int
    user: str
    done: int
    skipped: int
    left: int


class QueueOut(BaseModel):
    id: int
    project_id: int
    name: str
    order: QueueOrder
    rule: str = Field(description="the order's rule, in words")
    seed: int
    overlap: int
    source: dict[str, Any]
    n_examples: int
    created_at: datetime
    progress: list[QueueProgress] = Field(description="per annotator: done / skipped / left")
    done: int
    skipped: int
    left: int


class QueueItemOut(BaseModel):
    queue_id: int
    example_id: int
    example_ext_id: str | None
    user_id: int
    rank: int
    status: ItemStatus
    text: str | None = None
    label: int | None = None


class QueueNextOut(BaseModel):
    """The person's next example (None when their part of the queue is through) and how far they are."""

    item: QueueItemOut | None
    rule: str
    done: int | None = Field(default=None, description="with counts=true")
    skipped: int | None = None
    left: int | None = None


class QueueStatusIn(BaseModel):
    status: ItemStatus


class PairAgreementOut(BaseModel):
    a: str
    b: str
    n_tokens: Count
    observed: float | None
    kappa: float | None


class WordAgreementOut(BaseModel):
    word: str
    n_tokens: int
    marked: int
    unanimous: int
    disputed: int
    alpha: float | None


class AgreementOut(BaseModel):
    """Token-level agreement on the examples seen by ≥ 2 people, and on the task-level words."""

    annotators: list[str]
    n_examples: int
    n_tokens: int
    alpha: float | None = Field(description="Krippendorff's α (nominal: none / remove / add)")
    fleiss_kappa: float | None = Field(description="only when every shared token was seen by all (≥ 3) raters")
    pairs: list[PairAgreementOut] = Field(description="Cohen's κ per pair, on the tokens both saw")
    per_word: list[WordAgreementOut] = Field(description="a page of words, most disputed first")
    n_words: int = Field(description="words anyone marked on a shared example (per_word pages through them)")
    task: dict[str, Any] = Field(description="agreement on task-level words: pairs, α, the words (first 200)")
    pending: bool = Field(description="a backlog of changes is still being read in: ask again")
    offset: int
    limit: int


class FeedbackPushIn(BaseModel):
    """Push the feedback dataset beside the model ``repo_id``: into the dataset repository
    ``<repo_id>-feedback`` (created if missing), which the model's card then links."""

    repo_id: str = Field(
        min_length=1,
        max_length=96 - len("-feedback"),  # the Hub's ids are at most 96 characters, the dataset's included
        pattern=REPO_ID,
        description="the model's repository; the feedback goes to the dataset repository <repo_id>-feedback",
    )
    private: bool = True
    policy: str | None = Field(default=None, max_length=20, description="the consensus policy (default: the project's)")
    k: int | None = Field(default=None, ge=1, le=100)
    token: SecretStr | None = Field(default=None, description="a Hugging Face write token; never stored")


class FeedbackDatasetImportOut(BaseModel):
    examples: int
    annotators: list[str]
    events: int
    queue: str
    reviews: int = Field(default=0, description="reviewers' decisions recorded again, as their reviewers'")
