"""What a retrain records about the people behind its feedback: the consensus policy, the contributors
(mark counts per person, nothing else) and their agreement at the time, on every version it makes.

The model card (``core/modelcard.py``) reads it from the version's ``feedback_snapshot["team"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from xmd.core.types import DataError
from xmd.datasets.models import Dataset
from xmd.feedback import team
from xmd.projects.models import Project
from xmd.versions.models import ModelVersion

AGREEMENT_KEYS = ("n_examples", "n_tokens", "alpha", "fleiss_kappa", "note", "capped")


def team_record(db: Session, project: Project, train_sets: Sequence[Dataset]) -> dict[str, Any]:
    """Policy, k, blind; contributors (summed over the train sets); agreement per train set."""
    ts = team.team_settings(project)
    contributors: dict[str, int] = {}
    conflicts = 0
    agreement: list[dict[str, Any]] = []
    for ds in train_sets:
        c = team.consensus_of(db_session=db, project=project, dataset_id=ds.id)
        conflicts += len(c.conflicts)
        for name, n in c.contributors.items():
            contributors[name] = contributors.get(name, 0) + n
        try:
            a = team.agreement_summary(db_session=db, project=project, dataset_id=ds.id)
        except DataError as exc:  # too large to compute here: the record says why
            agreement.append({"dataset": ds.name, "note": str(exc)})
            continue
        pairs = [{"a": p.get("a"), "b": p.get("b"), "kappa": p.get("kappa")} for p in a.get("pairs") or []]
        agreement.append({"dataset": ds.name, **{k: a.get(k) for k in AGREEMENT_KEYS}, "pairs": pairs})
    return {**ts.to_dict(), "contributors": contributors, "conflicts": conflicts, "agreement": agreement}


def record_on_versions(db: Session, project: Project, job_id: str, record: dict[str, Any]) -> None:
    """Add ``record`` to the feedback snapshot of every version the job ``job_id`` made."""
    stmt = select(ModelVersion).where(ModelVersion.project_id == project.id)
    for mv in db.scalars(stmt):
        if (mv.config or {}).get("job_id") == job_id:
            mv.feedback_snapshot = {**(mv.feedback_snapshot or {}), "team": record}
    db.commit()
