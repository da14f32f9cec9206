"""Every domain's tables, imported so that ``Base.metadata`` is complete (Alembic, tests, create_all).

A composition root like :mod:`xmd.app`: the one module that knows every domain's tables."""

from __future__ import annotations

from xmd.datasets.models import Dataset, DatasetRole, Example
from xmd.db.base import Base
from xmd.explanations.models import AggregateState, Explanation, WordAggregate, WordOccurrence
from xmd.feedback.models import ExampleDone, Feedback, FeedbackEvent, FeedbackLevel, FeedbackReview
from xmd.jobs.models import Job, JobMetric, JobSecret, JobStatus
from xmd.projects.models import Project
from xmd.teamwork.models import AgreementState, ExampleAgreement, QueueEvent, QueueItem, WordAgreement, WorkQueue
from xmd.users.models import ApiToken, Role, User
from xmd.versions.models import ModelKind, ModelStatus, ModelVersion

metadata = Base.metadata

__all__ = [
    "AggregateState",
    "AgreementState",
    "ApiToken",
    "Base",
    "Dataset",
    "DatasetRole",
    "Example",
    "ExampleAgreement",
    "ExampleDone",
    "Explanation",
    "Feedback",
    "FeedbackEvent",
    "FeedbackLevel",
    "FeedbackReview",
    "Job",
    "JobMetric",
    "JobSecret",
    "JobStatus",
    "ModelKind",
    "ModelStatus",
    "ModelVersion",
    "Project",
    "QueueEvent",
    "QueueItem",
    "Role",
    "User",
    "WordAggregate",
    "WordAgreement",
    "WordOccurrence",
    "WorkQueue",
    "metadata",
]
