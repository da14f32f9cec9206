"""Datasets and examples as the API shows them, and the builders that fill them from what
:mod:`xmd.datasets.service` read (pure data: no query here)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from xmd.datasets.models import Dataset, DatasetRole, Example
from xmd.http.pagination import Page
from xmd.http.params import BodyId
from xmd.projects.models import Project

Correctness = Literal["correct", "incorrect", "all"]
SLICE_FILTERS = ("search", "regex", "label", "correctness", "has_feedback", "version_id", "method")
"""The examples route's query parameters a saved slice may hold."""


class ExplainedOut(BaseModel):
    """Examples of a dataset explained under one version and method (what the Data tab lists)."""

    version_id: int
    version: int
    method: str
    n_explained: int
    complete: bool


class DatasetOut(BaseModel):
    id: int
    project_id: int
    name: str
    role: DatasetRole
    source_name: str | None
    text_column: str
    label_column: str | None
    n_examples: int
    label_counts: dict[str, int]
    created_at: datetime
    explained: list[ExplainedOut] = Field(
        default_factory=list, description="per model version and method, how many of its examples are explained"
    )
    n_feedback: int = Field(
        default=0,
        description="current feedback entries on its examples: a delete takes them (the event log keeps them)",
    )


class DatasetRename(BaseModel):
    name: str = Field(min_length=1, max_length=200)


class Prediction(BaseModel):
    label: int
    label_name: str
    probs: list[float]
    correct: bool | None


class ExampleOut(BaseModel):
    id: int
    dataset_id: int
    ext_id: str
    text: str
    label: int | None
    label_name: str | None
    meta: dict[str, Any]
    prediction: Prediction | None = Field(default=None, description="from the stored explanation, when there is one")
    n_feedback: int = 0


class ExamplePage(Page[ExampleOut]):
    pass


LABELS_REQUIRED_FOR = (DatasetRole.EVAL,)
"""Uses whose datasets must be labelled (an eval set is measured against its labels); a train set may
come without labels (explained and given feedback on; retraining needs them)."""


class ColumnGuess(BaseModel):
    """The columns the form pre-selects (xmd.core.data.COLUMN_GUESSES, the one list)."""

    text: str | None
    label: str | None
    id: str | None


class Preview(BaseModel):
    format: str
    columns: list[str]
    n_rows: int
    rows: list[dict[str, Any]]
    guess: ColumnGuess
    label_required_for: list[DatasetRole] = Field(
        default=list(LABELS_REQUIRED_FOR), description="uses whose datasets need a label column"
    )


class Slice(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    dataset_id: BodyId | None = None
    filters: dict[str, Any] = Field(default_factory=dict, description="query parameters of the examples route")


def _columns(row: Any, schema: type[BaseModel]) -> dict[str, Any]:
    """The row's attributes that ``schema`` has fields for."""
    return {name: getattr(row, name) for name in schema.model_fields if hasattr(row, name)}


def dataset_out(ds: Dataset, project: Project, facts: dict[str, Any]) -> DatasetOut:
    """``facts``: :func:`xmd.datasets.service.dataset_facts` (label counts, explained rows, feedback entries)."""
    named = {("(none)" if k is None else project.labels[k]): v for k, v in facts["label_counts"].items()}
    explained = [
        ExplainedOut(version_id=v, version=n_v, method=m, n_explained=n, complete=n >= ds.n_examples)
        for _, v, n_v, m, n in facts.get("explained", [])
    ]
    extra = {"label_counts": named, "explained": explained, "n_feedback": facts.get("n_feedback", 0)}
    return DatasetOut.model_validate({**_columns(ds, DatasetOut), **extra})


def examples_out(
    project: Project, rows: list[Example], preds: dict[int, tuple[int, list[float]]], counts: dict[int, int]
) -> list[ExampleOut]:
    """Examples with their stored prediction under a version and their feedback counts
    (``preds``, ``counts``: :func:`xmd.datasets.service.example_facts`, one query each for the whole page)."""
    out = []
    for e in rows:
        pred = None
        if e.id in preds:
            t, probs = preds[e.id]
            pred = Prediction(
                label=t, label_name=project.labels[t], probs=probs, correct=None if e.label is None else t == e.label
            )
        out.append(
            ExampleOut(
                id=e.id,
                dataset_id=e.dataset_id,
                ext_id=e.ext_id,
                text=e.text,
                label=e.label,
                label_name=None if e.label is None else project.labels[e.label],
                meta=dict(e.meta),
                prediction=pred,
                n_feedback=counts.get(e.id, 0),
            )
        )
    return out
