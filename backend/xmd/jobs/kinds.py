"""The job kinds, as the domains register them: ``jobs/`` runs, queues and lists jobs but knows no kind.

A domain registers each of its kinds at import (its name, its body, whether it trains for minutes, an
optional helper body that joins a running job), and a cleanup to run when a job fails, is cancelled or
is abandoned (the model version a retrain was building). :mod:`xmd.job_kinds` imports every domain
that registers, for the API and the worker alike. A kind is a plain string in the jobs table, checked
here, so a new kind needs no migration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xmd.core.types import DataError
from xmd.jobs.models import KIND_LENGTH

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from xmd.jobs.context import Body


@dataclass(frozen=True)
class Kind:
    name: str
    body: Body
    long: bool = False
    """It trains a model for minutes: it goes to the retrain queue, so short jobs never wait behind it."""
    helper: Body | None = None
    """Extra hands for a running job of this kind (explain chunks shared through the job row)."""
    secrets: bool = False
    """Its message carries secret pads (:mod:`xmd.jobs.secrets`) that the body unseals."""


_KINDS: dict[str, Kind] = {}
Cleanup = Callable[["Session", "str | None"], list[Any]]
_CLEANUPS: dict[str, Cleanup] = {}


def register(name: str, body: Body, *, long: bool = False, helper: Body | None = None, secrets: bool = False) -> str:
    """Make ``name`` a job kind run by ``body``; returns the name (the domain's constant)."""
    if not name or len(name) > KIND_LENGTH or not name.replace("_", "").isalnum():
        raise ValueError(f"a job kind is a short snake_case name, not {name!r}")
    known = _KINDS.get(name)
    if known is not None and known.body is not body:
        raise ValueError(f"job kind {name!r} is registered twice")
    _KINDS[name] = Kind(name, body, long, helper, secrets)
    return name


def on_cleanup(name: str, cleanup: Cleanup) -> None:
    """Run ``cleanup(db, job_id)`` after a job failed or was cancelled (``job_id=None``: the stale-job
    sweep, for every job); its list of what it cleaned is reported under ``name``."""
    _CLEANUPS[name] = cleanup


def clean_up(db: Session, job_id: str | None = None) -> dict[str, list[Any]]:
    """Every registered cleanup, for one job or (None) for all; what each cleaned, by its name."""
    return {name: cleanup(db, job_id) for name, cleanup in _CLEANUPS.items()}


def names() -> list[str]:
    """The registered kinds, in registration order."""
    return list(_KINDS)


def get(name: str) -> Kind:
    """The registered kind ``name``; DataError (422) names the known ones otherwise."""
    kind = _KINDS.get(str(name))
    if kind is None:
        raise DataError(f"unknown job kind {name!r}; the kinds are {', '.join(_KINDS) or 'none (none registered)'}")
    return kind


def check(name: str) -> str:
    """``name`` if it is a registered kind, else DataError (422)."""
    return get(name).name


def task_name(name: str) -> str:
    """The Celery task that runs a kind's body (``workers.tasks`` names each so)."""
    return f"xmd.{name}"


def helper_task_name(name: str) -> str:
    """The Celery task that joins a running job of the kind (its ``helper`` body)."""
    return f"xmd.{name}_chunk"
