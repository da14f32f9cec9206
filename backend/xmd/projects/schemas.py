"""Projects as the API takes and shows them."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from xmd.core.retrain import TrainConfig
from xmd.http.fields import settings_fields
from xmd.projects.models import Project

BaseRecipe = create_model(
    "BaseRecipe",
    __config__=ConfigDict(extra="forbid"),
    __doc__=(
        "How the base model was fine-tuned into the project's model (the core's TrainConfig fields); fields "
        "left out follow the parent's recorded fine-tune settings when xmd made it, else the retrain's."
    ),
    **settings_fields(TrainConfig),
)


class BaseModelIn(BaseModel):
    """The model the project's model was fine-tuned from (a Hub id, or a server path where the operator
    allows them), and its recipe: what the ``deletion_base`` control retrains on the cleaned texts."""

    model_config = ConfigDict(extra="forbid")

    hub_id: str | None = Field(default=None, max_length=200, description="a Hugging Face Hub model id")
    model_path: str | None = Field(default=None, max_length=1000, description="a save_pretrained directory")
    recipe: BaseRecipe | None = Field(default=None, description="the fine-tune settings (default: see BaseRecipe)")  # type: ignore[valid-type]

    @model_validator(mode="after")
    def one_source(self) -> BaseModelIn:
        if (self.model_path is None) == (self.hub_id is None):
            raise ValueError("give exactly one of model_path and hub_id for the base model")
        return self

    def recipe_given(self) -> dict:
        """Only the recipe fields the request gave (the others keep following the defaults)."""
        return self.recipe.model_dump(exclude_unset=True) if self.recipe is not None else {}


class BaseModelOut(BaseModel):
    source: str = Field(description="the Hub id, server path or bundled model's name")
    kind: Literal["hub", "path", "bundled"]
    recipe: dict[str, Any] = Field(description="the recipe fields set; the others follow the defaults")


class ProjectCreate(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    labels: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        default=None, description="class names in the model's order; default: the model's own id2label"
    )
    model_path: str | None = Field(default=None, max_length=1000, description="a save_pretrained directory")
    hub_id: str | None = Field(default=None, max_length=200, description="a Hugging Face Hub model id")
    description: str = Field(default="", max_length=5000)
    base_model: BaseModelIn | None = Field(
        default=None, description="the model this one was fine-tuned from (enables the deletion_base control)"
    )

    @model_validator(mode="after")
    def one_source(self) -> ProjectCreate:
        if (self.model_path is None) == (self.hub_id is None):
            raise ValueError("give exactly one of model_path and hub_id")
        if self.labels is not None and not self.labels:
            raise ValueError("labels, when given, must not be empty")
        return self


class ProjectUpdate(BaseModel):
    """A rename and/or a new description; fields left out stay as they are."""

    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=5000)


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
    base_model: BaseModelOut | None = Field(
        default=None, description="the recorded base model; None: the deletion_base control cannot run"
    )


def base_model_out(record: dict[str, Any] | None) -> BaseModelOut | None:
    if not record:
        return None
    kind = "bundled" if record.get("bundled") else "hub" if record.get("hub_id") else "path"
    source = str(record.get("bundled") or record.get("hub_id") or record.get("model_path") or "")
    return BaseModelOut(source=source, kind=kind, recipe=dict(record.get("recipe") or {}))


def project_out(project: Project, summary: dict[str, Any]) -> ProjectOut:
    """``summary``: :func:`xmd.projects.service.summary` (its versions and counts)."""
    return ProjectOut(
        id=project.id,
        name=project.name,
        description=project.description,
        labels=list(project.labels),
        model_source=project.model_source,
        created_at=project.created_at,
        **summary,
        base_model=base_model_out(project.base_model),
    )
