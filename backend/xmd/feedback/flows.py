"""Imports of feedback: an export file, or feedback simulated from a rationale column or a word list
(evaluation mode, issue 14), previewed or committed.

Both modes build the whole :class:`FeedbackSet` and check every entry first (the core raises
DataError / FeedbackError for a bad column, a length mismatch, an unknown example); a preview stops
there and says what the import touches, a commit writes it in one transaction through the bulk path.
Every simulated entry keeps its ``source`` tag in the store, the history, the export and the model
card, so simulated and human feedback are never confused.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from sqlalchemy.orm import Session

from xmd.core import simulate
from xmd.core.feedback import FeedbackSet
from xmd.core.types import Example, FeedbackError, Scope
from xmd.datasets import service as datasets
from xmd.datasets.models import Dataset, DatasetRole
from xmd.feedback import service
from xmd.feedback.schemas import ImportIn, ImportOut, RationalesIn, WordsIn
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.versions import service as versions

CHUNK = 500


def _predictions(db: Session, project: Project, ds: Dataset) -> dict[str, int]:
    """The current version's predicted class per example (file id), from its stored explanations:
    the API never runs a model over a whole dataset inside a request. Examples the version has not
    explained are missing, and the core then names them (explain the dataset first)."""
    mv = versions.resolve(db_session=db, project=project, version_id=None)
    method = projects.method_for(project, None)
    rows = datasets.id_pairs(db_session=db, dataset=ds)
    out: dict[str, int] = {}
    for i in range(0, len(rows), CHUNK):
        chunk = dict(rows[i : i + CHUNK])
        stored = datasets.stored_predictions(db_session=db, example_ids=list(chunk), version_id=mv.id, method=method)
        for db_id, (_target, probs) in stored.items():
            out[chunk[db_id]] = max(range(len(probs)), key=probs.__getitem__)
    return out


def _rationales(
    db: Session, project: Project, ds: Dataset, examples: list[Example], body: RationalesIn
) -> tuple[FeedbackSet, simulate.ImportSummary]:
    predictions = _predictions(db, project, ds) if body.only is not Scope.ALL else None
    return simulate.feedback_from_rationales(
        examples,
        body.column,
        tokens_column=body.tokens_column,
        format=body.format,
        min_agreement=body.min_agreement,
        only=body.only,
        predictions=predictions,
        budget=body.budget,
        seed=body.seed,
        remove_others=body.remove_others,
    )


def _words(
    db: Session, project: Project, ds: Dataset, examples: list[Example], body: WordsIn
) -> tuple[FeedbackSet, simulate.ImportSummary]:
    if body.label is not None and body.label >= len(project.labels):
        raise FeedbackError(f"label {body.label} is out of range (expected 0..{len(project.labels) - 1})")
    name = PurePath(body.name.replace("\\", "/")).name or "list"
    predictions = _predictions(db, project, ds) if body.scope is not Scope.ALL else None
    return simulate.feedback_from_words(
        body.text.splitlines(),
        action=body.action,
        scope=body.scope,
        label=body.label,
        examples=examples,
        predictions=predictions or None,
        source=f"simulated:words:{name}",
    )


def import_feedback(db: Session, project: Project, body: ImportIn, user_id: int | None) -> ImportOut:
    """Build and check the import; write it unless ``body.preview`` (all or nothing)."""
    ds = datasets.in_project(db_session=db, project=project, dataset_id=body.dataset_id)
    if ds.role is not DatasetRole.TRAIN:
        raise FeedbackError(f"feedback goes on training data; dataset {ds.name!r} is an eval set")
    summary: dict[str, Any] | None = None
    if body.feedback is not None:
        try:
            fs = FeedbackSet.from_json(body.feedback)
        except (KeyError, TypeError, ValueError) as exc:
            raise FeedbackError(f"not a feedback file: {exc}") from None
        source = None
    else:
        examples = datasets.core_examples(db_session=db, dataset=ds)
        db.commit()  # end the read transaction before aligning thousands of rows
        if body.rationales is not None:
            fs, s = _rationales(db, project, ds, examples, body.rationales)
        else:
            assert body.words is not None
            fs, s = _words(db, project, ds, examples, body.words)
        summary, source = s.to_dict(), s.source
        if not fs.instance and not fs.task:
            raise FeedbackError(f"{source} gives no feedback to import (skipped: {s.skipped})")
    n = len(fs.instance) + len(fs.task)
    if body.preview:
        service.check_feedback_set(db_session=db, project=project, feedback=fs, dataset_id=ds.id)
        return ImportOut(preview=True, imported=0, entries=n, source=source, summary=summary)
    written = service.import_feedback_set(
        db_session=db, project=project, feedback=fs, dataset_id=ds.id, user_id=user_id
    )
    return ImportOut(preview=False, imported=written, entries=n, source=source, summary=summary)
