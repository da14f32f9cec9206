"""What the controls of a retrain (issue 14) are called and where they come from: each arm's name in the
version tree ("v3 λ=0 seed 1") and the project's recorded base model (the ``deletion_base`` arm's source).

Since issue 30 §5 the controls no longer train inside the retrain job: the new version is ready first
and every control arm × seed follows it as a job of its own (:mod:`xmd.retrain.followup`).
"""

from __future__ import annotations

from typing import Any

from xmd.projects.models import Project

ARM_NAMES = {"debug": "", "lambda0": "λ=0", "deletion": "deletion", "deletion_base": "deletion from base"}


def base_model_of(project: Project) -> dict[str, Any] | None:
    """The base model the project was fine-tuned from and its recipe, when it records one
    (``projects.base_model``, set at creation or by ``PUT /api/projects/{id}/base-model``)."""
    return dict(project.base_model) if project.base_model else None


def _name(first: int, arm: str, seed: int, n_seeds: int) -> str:
    label = ARM_NAMES.get(arm, arm)
    parts = [f"v{first}", label] + ([f"seed {seed}"] if n_seeds > 1 or arm != "debug" else [])
    return " ".join(p for p in parts if p)
