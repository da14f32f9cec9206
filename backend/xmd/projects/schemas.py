"""Projects as the API takes and shows them."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field, model_validator
from sqlalchemy.orm import Session

from xmd.projects import service
from xmd.projects.models import Project
from xmd.versions import service as versions_service


class ProjectCreate(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    labels: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        default=None, description="class names in the model's order; default: the model's own id2label"
    )
    model_path: str | None = Field(default=None, max_length=1000, description="a save_pretrained directory")
    hub_id: str | None = Field(default=None, max_length=200, description="a Hugging Face Hub model id")
    description: str = Field(default="", max_length=5000)

    @model_validator(mode="after")
    def one_source(self) -> ProjectCreate:
        if (self.model_path is None) == (self.hub_id is None):
            raise ValueError("give exactly one of model_path and hub_id")
        if self.labels is not None and not self.labels:
            raise ValueError("labels, when given, must not be empty")
        return self


class ProjectOut(BaseModel):
    id: int
    name: str
    description: str
    labels: list[str]
    model_source: str
    created_at: datetime
    base_version_id: int | None
    latest_version_id: int | None
    n_datasets: int
    n_examples: int
    n_feedback: int


def project_out(db: Session, project: Project) -> ProjectOut:
    versions = versions_service.list_versions(db_session=db, project_id=project.id)
    n_ds, n_ex, n_fb = service.counts(db_session=db, project_id=project.id)
    ready = [v for v in versions if v.status.value == "ready"]
    return ProjectOut(
        id=project.id,
        name=project.name,
        description=project.description,
        labels=list(project.labels),
        model_source=project.model_source,
        created_at=project.created_at,
        base_version_id=versions[0].id if versions else None,
        latest_version_id=ready[-1].id if ready else None,
        n_datasets=int(n_ds),
        n_examples=int(n_ex),
        n_feedback=int(n_fb or 0),
    )
