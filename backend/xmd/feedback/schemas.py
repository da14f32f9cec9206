"""Feedback as the API takes and shows it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from xmd.core.types import Action, Scope
from xmd.feedback.models import FeedbackLevel
from xmd.http.pagination import Page


class InstanceIn(BaseModel):
    word_index: int = Field(ge=0, description="position of the word in the example (as in the explanation)")
    action: Action


class TaskIn(BaseModel):
    word: str = Field(min_length=1, max_length=200)
    action: Action
    label: int | None = Field(default=None, ge=0, description="only examples of this gold label (default: all)")
    scope: Scope = Field(default=Scope.ALL, description="all, or only correctly / incorrectly predicted examples")


class _Click(BaseModel):
    """What was clicked and how: the fields a current-feedback row and an event row share."""

    id: int
    key: str
    level: FeedbackLevel
    example_id: int | None
    word_index: int | None
    word: str | None
    label: int | None
    scope: Scope | None
    action: Action


CLICK_FIELDS = tuple(_Click.model_fields)


class FeedbackOut(_Click):
    updated_by: str | None
    updated_at: datetime


class WriteOut(BaseModel):
    key: str
    action: Action
    event_id: int
    current: FeedbackOut | None = Field(description="the key's feedback now (null after a reset)")


class EventOut(_Click):
    user: str | None
    created_at: datetime


class FeedbackPage(Page[FeedbackOut]):
    pass


class ImportIn(BaseModel):
    dataset_id: int = Field(description="instance entries name examples of this dataset by their file id")
    feedback: dict[str, Any] = Field(description="the export format: {instance: [...], task: [...]}")
