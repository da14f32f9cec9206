"""Imports of feedback: an export file, or feedback simulated from a rationale column or a word list
(evaluation mode, issue 14), previewed or committed.

Both modes build the whole :class:`FeedbackSet` and check every entry first (the core raises
DataError / FeedbackError for a bad column, a length mismatch, an unknown example); a preview stops
there and says what the import touches, a commit writes it in one transaction through the bulk path.

Aligning rationales reads every row, so the request stays bounded: a preview aligns the first
:data:`PREVIEW_ROWS` rows and says it is a sample, and a commit over a dataset of more than
``XMD_IMPORT_SYNC_ROWS`` rows runs as a job of kind ``import`` (:func:`import_job`: progress, cancel)
after the request checked a sample.
Every simulated entry keeps its ``source`` tag in the store, the history, the export and the model
card, so simulated and human feedback are never confused.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from sqlalchemy.orm import Session

from xmd.core import simulate
from xmd.core.feedback import FeedbackSet
from xmd.core.types import Example, FeedbackError, Progress, Scope
from xmd.datasets import service as datasets
from xmd.datasets.models import Dataset, DatasetRole
from xmd.feedback import service
from xmd.feedback.schemas import ImportIn, ImportOut, RationalesIn, WordsIn
from xmd.jobs import kinds
from xmd.jobs.context import JobCancelled, JobContext
from xmd.jobs.phases import Phase
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.versions import service as versions

IMPORT = "import"
"""The job kind that imports feedback simulated from a large dataset (registered below)."""
CHUNK = 500
PREVIEW_ROWS = 1_000
"""Rows a rationale preview (and the check before an import job) aligns: the dataset's first rows."""


def _predictions(db: Session, project: Project, ds: Dataset, limit: int | None = None) -> dict[str, int]:
    """The current version's predicted class per example (file id), from its stored explanations:
    the API never runs a model over a whole dataset inside a request. Examples the version has not
    explained are missing, and the core then names them (explain the dataset first)."""
    mv = versions.resolve(db_session=db, project=project, version_id=None)
    method = projects.method_for(project, None)
    rows = datasets.id_pairs(db_session=db, dataset=ds, limit=limit)
    out: dict[str, int] = {}
    for i in range(0, len(rows), CHUNK):
        chunk = dict(rows[i : i + CHUNK])
        stored = datasets.stored_predictions(db_session=db, example_ids=list(chunk), version_id=mv.id, method=method)
        for db_id, (_target, probs) in stored.items():
            out[chunk[db_id]] = max(range(len(probs)), key=probs.__getitem__)
    return out


def _rationales(
    db: Session,
    project: Project,
    ds: Dataset,
    examples: list[Example],
    body: RationalesIn,
    on_batch: Progress | None = None,
) -> tuple[FeedbackSet, simulate.ImportSummary]:
    sample = len(examples) if len(examples) < ds.n_examples else None
    predictions = _predictions(db, project, ds, sample) if body.only is not Scope.ALL else None
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
        on_batch=on_batch,
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


def runs_as_job(ds: Dataset, body: ImportIn, sync_rows: int) -> bool:
    """Whether committing ``body`` aligns more rows than a request may (``XMD_IMPORT_SYNC_ROWS``)."""
    return body.rationales is not None and not body.preview and ds.n_examples > sync_rows


def import_feedback(db: Session, project: Project, body: ImportIn, user_id: int | None) -> ImportOut:
    """Build and check the import; write it unless ``body.preview`` (all or nothing). A rationale
    preview aligns the first :data:`PREVIEW_ROWS` rows only (``sample_rows`` says so)."""
    ds = train_dataset(db, project, body.dataset_id)
    summary: dict[str, Any] | None = None
    sample: int | None = None
    if body.feedback is not None:
        try:
            fs = FeedbackSet.from_json(body.feedback)
        except (KeyError, TypeError, ValueError) as exc:
            raise FeedbackError(f"not a feedback file: {exc}") from None
        source = None
    else:
        limit = PREVIEW_ROWS if body.rationales is not None and body.preview else None
        examples = datasets.core_examples(db_session=db, dataset=ds, limit=limit)
        db.commit()  # end the read transaction before aligning thousands of rows
        if body.rationales is not None:
            sample = len(examples) if len(examples) < ds.n_examples else None
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
        out = ImportOut(preview=True, imported=0, entries=n, source=source, summary=summary)
        return out.model_copy(update={"sample_rows": sample, "dataset_rows": ds.n_examples})
    written = service.import_feedback_set(
        db_session=db, project=project, feedback=fs, dataset_id=ds.id, user_id=user_id
    )
    out = ImportOut(preview=False, imported=written, entries=n, source=source, summary=summary)
    return out.model_copy(update={"dataset_rows": ds.n_examples})


def train_dataset(db: Session, project: Project, dataset_id: int) -> Dataset:
    """The import's dataset: one of the project's training sets (FeedbackError for an eval set)."""
    ds = datasets.in_project(db_session=db, project=project, dataset_id=dataset_id)
    if ds.role is not DatasetRole.TRAIN:
        raise FeedbackError(f"feedback goes on training data; dataset {ds.name!r} is an eval set")
    return ds


def job_params(db: Session, project: Project, body: ImportIn, user_id: int | None) -> dict[str, Any]:
    """What an import job needs, after a check of the first rows (a wrong column or format is a 422
    now, not a failed job later)."""
    assert body.rationales is not None
    ds = train_dataset(db, project, body.dataset_id)
    examples = datasets.core_examples(db_session=db, dataset=ds, limit=PREVIEW_ROWS)
    db.commit()
    _rationales(db, project, ds, examples, body.rationales)
    return {"dataset_id": ds.id, "rationales": body.rationales.model_dump(mode="json"), "user_id": user_id}


def import_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.import``: align the rationales of a whole dataset (progress per 256 rows, a cancel
    stops it), then write every entry in one transaction (all or nothing)."""
    db, params = ctx.db, ctx.params
    assert ctx.job.project_id is not None
    project = projects.get_or_raise(db_session=db, project_id=ctx.job.project_id)
    ds = train_dataset(db, project, int(params["dataset_id"]))
    body = RationalesIn(**params["rationales"])
    ctx.plan(
        [
            Phase("align", "aligning the rationales", total=2 * ds.n_examples, unit="rows", kind="import"),
            Phase("write", "writing the feedback", total=1, unit="imports", kind="import_write", minor=True),
        ]
    )
    examples = datasets.core_examples(db_session=db, dataset=ds)
    db.commit()
    fs, s = _rationales(db, project, ds, examples, body, on_batch=ctx.phase("align"))
    if ctx.end_phase("align"):
        raise JobCancelled("cancelled on request before writing (nothing was imported)")
    if not fs.instance:
        raise FeedbackError(f"{s.source} gives no feedback to import (skipped: {s.skipped})")
    user_id = params.get("user_id")
    written = service.import_feedback_set(
        db_session=db, project=project, feedback=fs, dataset_id=ds.id, user_id=int(user_id) if user_id else None
    )
    ctx.end_phase("write")
    entries = len(fs.instance) + len(fs.task)
    return {"imported": written, "entries": entries, "source": s.source, "summary": s.to_dict(), "rows": len(examples)}


kinds.register(IMPORT, import_job)
