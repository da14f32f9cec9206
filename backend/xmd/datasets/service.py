"""Datasets and examples: bulk import, paged listing with filters, conversion to core examples."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from sqlalchemy import ColumnElement, delete, func, or_, select
from sqlalchemy.orm import Session

from xmd.core.types import DataError
from xmd.core.types import Example as CoreExample
from xmd.datasets.models import Dataset, DatasetRole, Example
from xmd.db import bulk
from xmd.db.engine import analyze, compile_regex, is_sqlite, write_scope
from xmd.db.errors import ConflictError, NotFoundError, found
from xmd.projects.models import Project

PREDICTIONS = ("correct", "incorrect")

INSERT_CHUNK = 5000
"""Rows per executemany: big enough to amortise round trips, small enough to bound memory."""
MAX_PAGE = 1000
ANALYZE_MIN_ROWS = 1000
"""Refresh PostgreSQL's statistics after an import this big (see :func:`xmd.db.engine.analyze`)."""
_EXAMPLES = Example.__table__
_EXAMPLE_ROW = ("dataset_id", "project_id", "ext_id", "position", "text", "label", "meta")


def get(*, db_session: Session, dataset_id: int) -> Dataset | None:
    """Dataset by id, or None."""
    return db_session.get(Dataset, dataset_id)


def get_or_raise(*, db_session: Session, dataset_id: int) -> Dataset:
    """Dataset by id; NotFoundError if there is none."""
    return found(get(db_session=db_session, dataset_id=dataset_id), f"dataset {dataset_id}")


def get_by_name(*, db_session: Session, project_id: int, name: str) -> Dataset | None:
    """Dataset of a project by name, or None."""
    stmt = select(Dataset).where(Dataset.project_id == project_id, Dataset.name == name)
    return db_session.scalars(stmt).one_or_none()


def list_datasets(*, db_session: Session, project_id: int, role: DatasetRole | str | None = None) -> list[Dataset]:
    """Datasets of a project in creation order, optionally only one role."""
    stmt = select(Dataset).where(Dataset.project_id == project_id).order_by(Dataset.id)
    if role is not None:
        stmt = stmt.where(Dataset.role == DatasetRole(role))
    return list(db_session.scalars(stmt))


def resolve_ids(
    *, db_session: Session, project: Project, ids: Sequence[int] | None, role: DatasetRole
) -> list[Dataset]:
    """The datasets a job names (every one of ``role`` when ``ids`` is None), each checked to belong to
    the project (404) and to have that role (422); the API and the job body both call this."""
    if ids is None:
        return list_datasets(db_session=db_session, project_id=project.id, role=role)
    out = []
    for did in dict.fromkeys(int(i) for i in ids):
        ds = get_or_raise(db_session=db_session, dataset_id=did)
        if ds.project_id != project.id:
            raise NotFoundError(f"dataset {did} not found in project {project.name!r}")
        if ds.role is not role:
            raise DataError(f"dataset {ds.name!r} is a {ds.role.value} set, not a {role.value} set")
        out.append(ds)
    return out


def in_project(*, db_session: Session, project: Project, dataset_id: int) -> Dataset:
    """A dataset of ``project``; NotFoundError when it does not exist or belongs to another project."""
    ds = get_or_raise(db_session=db_session, dataset_id=dataset_id)
    if ds.project_id != project.id:
        raise NotFoundError(f"dataset {dataset_id} not found in project {project.name!r}")
    return ds


def stored_predictions(
    *, db_session: Session, example_ids: Sequence[int], version_id: int | None, method: str | None
) -> dict[int, tuple[int, list[float]]]:
    """Predicted class and probabilities per example id, from the stored explanations of a version (the
    reader :mod:`xmd.explanations.predictions` registers)."""
    return _predicted("read")(db_session=db_session, example_ids=example_ids, version_id=version_id, method=method)


def id_pairs(*, db_session: Session, dataset: Dataset, limit: int | None = None) -> list[tuple[int, str]]:
    """(database id, file id) of every example of a dataset (or its first ``limit``), in file order."""
    stmt = select(Example.id, Example.ext_id).where(Example.dataset_id == dataset.id).order_by(Example.id).limit(limit)
    return [(i, e) for i, e in db_session.execute(stmt)]


def ext_ids(*, db_session: Session, example_ids: Sequence[int | None]) -> dict[int, str]:
    """The id each example has in its file (``ext_id``: the one id every screen shows), by database id."""
    wanted = sorted({int(i) for i in example_ids if i is not None})
    out: dict[int, str] = {}
    for chunk in _chunks(wanted, INSERT_CHUNK):
        rows = db_session.execute(select(Example.id, Example.ext_id).where(Example.id.in_(chunk)))
        out.update({int(i): str(e) for i, e in rows})
    return out


PREDICTED: dict[str, Callable[..., Any]] = {}
"""How a version predicted examples, from the explanations table of a domain above, registered at its import
by :mod:`xmd.explanations.predictions` (so this domain imports none of it): ``read`` (see
:func:`stored_predictions`) and ``agree`` (``correct``, ``version_id``, ``method`` → a condition on ``Example``)."""
BEFORE_DELETE: dict[str, Callable[..., Any]] = {}
"""What a domain above takes out before a dataset is deleted, by name, registered at its import:
``explanations`` (their counts in the word aggregates, :mod:`xmd.explanations.service`). Called with
``db_session``, ``dataset_id`` and ``commit=False`` inside the delete's transaction."""


def _predicted(name: str) -> Callable[..., Any]:
    hook = PREDICTED.get(name)
    if hook is None:
        raise RuntimeError("no predictions reader registered: import xmd.explanations.predictions first")
    return hook


FACTS: dict[str, Callable[[Session, Dataset], Any]] = {}
"""What the domains above add to what a dataset shows, by name, registered at their import (so this domain
imports none of them): ``explained`` (:mod:`xmd.explanations.service`), ``n_feedback``
(:mod:`xmd.feedback.service`)."""


def dataset_facts(*, db_session: Session, dataset: Dataset) -> dict[str, Any]:
    """What a dataset shows beside its columns: its label counts, and every registered fact (its examples
    explained per version and method, its feedback entries)."""
    out: dict[str, Any] = {"label_counts": label_counts(db_session=db_session, dataset_id=dataset.id)}
    out.update({name: fact(db_session, dataset) for name, fact in FACTS.items()})
    return out


def _chunks(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


MAX_NAME = 200
"""``datasets.name`` (a dataset's name; an upload's file stem by default)."""
MAX_SOURCE_NAME = 1000
"""``datasets.source_name`` (the uploaded file's name)."""
MAX_EXT_ID = 200
"""``examples.ext_id`` (an example's id in its file)."""


def add_dataset(
    *,
    db_session: Session,
    project: Project,
    name: str,
    role: DatasetRole | str,
    examples: Sequence[CoreExample],
    source_name: str | None = None,
    text_column: str = "text",
    label_column: str | None = "label",
) -> Dataset:
    """Create a dataset and bulk-insert its examples in one transaction.

    Examples are validated first (unique ids, non-empty texts, labels inside the project's label
    space), so a bad file leaves nothing behind. Rows go in with executemany in chunks of
    :data:`INSERT_CHUNK`, without ORM objects: 100k examples take seconds, not minutes.
    """
    name = name.strip()
    if not name:
        raise ValueError("a dataset needs a non-empty name")
    if len(name) > MAX_NAME:
        raise DataError(f"a dataset name has at most {MAX_NAME} characters; this one has {len(name)}")
    if source_name is not None and len(source_name) > MAX_SOURCE_NAME:
        raise DataError(f"a file name has at most {MAX_SOURCE_NAME} characters; this one has {len(source_name)}")
    if "\x00" in name + (source_name or ""):
        raise DataError("a dataset or file name must not contain NUL bytes (\\x00)")
    if get_by_name(db_session=db_session, project_id=project.id, name=name) is not None:
        raise ConflictError(f"project {project.name!r} already has a dataset named {name!r}")
    num_labels = len(project.labels)
    seen: set[str] = set()
    for i, ex in enumerate(examples):
        if ex.id in seen:
            raise DataError(f"example id {ex.id!r} appears twice in dataset {name!r}")
        seen.add(ex.id)
        if len(ex.id) > MAX_EXT_ID:
            raise DataError(f"example id {ex.id[:40]!r}... (row {i}) is longer than {MAX_EXT_ID} characters")
        if not isinstance(ex.text, str) or not ex.text.strip():
            raise DataError(f"example {ex.id!r} (row {i}) has an empty text")
        if "\x00" in ex.text or "\x00" in ex.id:
            raise DataError(f"example {ex.id!r} (row {i}) contains a NUL byte (\\x00); remove it and upload again")
        if ex.label is not None and not 0 <= ex.label < num_labels:
            raise DataError(f"example {ex.id!r} has label {ex.label}, outside the project's labels 0..{num_labels - 1}")
    dataset = Dataset(
        project_id=project.id,
        name=name,
        role=DatasetRole(role),
        source_name=source_name,
        text_column=text_column,
        label_column=label_column,
        n_examples=len(examples),
    )
    with write_scope(db_session):
        db_session.add(dataset)
        db_session.flush()
        _insert_examples(db_session, dataset, project, examples)
        if len(examples) >= ANALYZE_MIN_ROWS:
            analyze(db_session, "examples")
    return dataset


def _insert_examples(db_session: Session, dataset: Dataset, project: Project, examples: Sequence[CoreExample]) -> None:
    rows = [(dataset.id, project.id, str(ex.id), i, ex.text, ex.label, dict(ex.meta)) for i, ex in enumerate(examples)]
    # One statement per chunk on PostgreSQL (xmd.db.bulk); ids in file order, which listings rely on.
    for chunk in _chunks(rows, INSERT_CHUNK):
        bulk.insert_rows(db_session, _EXAMPLES, _EXAMPLE_ROW, chunk, ordered=True)


def rename_dataset(*, db_session: Session, dataset: Dataset, name: str) -> Dataset:
    """Rename a dataset; ConflictError when the project has another dataset of that name."""
    if name != dataset.name:
        if get_by_name(db_session=db_session, project_id=dataset.project_id, name=name) is not None:
            raise ConflictError(f"this project already has a dataset named {name!r}")
        dataset.name = name
    db_session.commit()
    return dataset


def delete_dataset(*, db_session: Session, dataset: Dataset) -> None:
    """Delete a dataset and its examples, first running :data:`BEFORE_DELETE`: it takes their explanations out
    of the word aggregates (a plain cascade would delete the explanations but leave their counts in the rankings)."""
    with write_scope(db_session):
        for before in BEFORE_DELETE.values():
            before(db_session=db_session, dataset_id=dataset.id, commit=False)
        db_session.execute(delete(Dataset).where(Dataset.id == dataset.id))
    if dataset in db_session:
        db_session.expunge(dataset)


def get_example(*, db_session: Session, example_id: int) -> Example | None:
    """Example by id, or None."""
    return db_session.get(Example, example_id)


def get_example_or_raise(*, db_session: Session, example_id: int) -> Example:
    """Example by id; NotFoundError if there is none."""
    return found(get_example(db_session=db_session, example_id=example_id), f"example {example_id}")


def get_example_and_project(*, db_session: Session, example_id: int) -> tuple[Example, Project]:
    """Example by id and its project, in one query (a click on a word needs both, and on a loaded
    server each round trip waits for a core); NotFoundError if there is no such example."""
    row = db_session.execute(
        select(Example, Project).join(Project, Project.id == Example.project_id).where(Example.id == example_id)
    ).one_or_none()
    example, project = found(row, f"example {example_id}")
    return example, project


def find_by_ext_id(*, db_session: Session, project: Project, ext_id: str, dataset_id: int | None = None) -> Example:
    """The example a person means by the id they see on screen (``train-7``: the id in its file), in
    one project (or one of its datasets). A leading ``#`` (as lists print it) is ignored when no id
    has it. 404 when none has the id; 422 naming the datasets when several do."""
    wanted = ext_id.strip()
    if not wanted:
        raise DataError("give an example id (the id shown with the example, e.g. train-7)")
    stmt = select(Example, Dataset.name).join(Dataset, Dataset.id == Example.dataset_id)
    stmt = stmt.where(Example.project_id == project.id)
    if dataset_id is not None:
        stmt = stmt.where(Example.dataset_id == dataset_id)
    candidates = [wanted] + ([wanted[1:].strip()] if wanted.startswith("#") and len(wanted) > 1 else [])
    for cand in candidates:
        rows = db_session.execute(stmt.where(Example.ext_id == cand).order_by(Example.id).limit(10)).all()
        if len(rows) == 1:
            return rows[0][0]
        if rows:
            names = ", ".join(sorted({name for _, name in rows}))
            raise DataError(f"example id {cand!r} is in several datasets ({names}): choose the dataset")
    raise NotFoundError(f"no example with id {wanted!r} in project {project.name!r}")


def pg_regex(pattern: str) -> str:
    """Python regex → PostgreSQL ARE for the syntax that differs and people type: word boundaries
    (Python ``\\b``/``\\B`` are ``\\y``/``\\Y`` there; ``\\b`` is a backspace in PostgreSQL)."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if not in_class and nxt in "bB":
                out.append("\\y" if nxt == "b" else "\\Y")
            else:
                out.append(c + nxt)
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        out.append(c)
        i += 1
    return "".join(out)


def _filters(
    db_session: Session,
    *,
    project_id: int | None = None,
    dataset_id: int | None = None,
    label: int | None = None,
    search: str | None = None,
    regex: str | None = None,
    ids: Sequence[int] | None = None,
    prediction: str | None = None,
    version_id: int | None = None,
    method: str | None = None,
    where: Sequence[ColumnElement[bool]] = (),
) -> list[ColumnElement[bool]]:
    if project_id is None and dataset_id is None and ids is None:
        raise ValueError("list examples of a project, a dataset or a list of ids")
    extra, where = where, []
    if project_id is not None:
        where.append(Example.project_id == project_id)
    if dataset_id is not None:
        where.append(Example.dataset_id == dataset_id)
    if label is not None:
        where.append(Example.label == label)
    if ids is not None:
        where.append(Example.id.in_(list(ids)))
    if search:
        # Case-insensitive substring; SQLite folds ASCII letters only, PostgreSQL folds all. An example's
        # id as every screen shows it (``train-7``) finds that example too.
        where.append(or_(Example.text.icontains(search, autoescape=True), Example.ext_id == search.strip()))
    if regex:
        compile_regex(regex)  # RE2 syntax on both databases: refuses what it cannot match in linear time
        if is_sqlite(db_session):
            where.append(Example.text.op("REGEXP")("(?i)" + regex))  # RE2, see xmd.db.engine
        else:
            where.append(Example.text.op("~*")(pg_regex(regex)))  # PostgreSQL ARE, case-insensitive
    if prediction is not None:
        if prediction not in PREDICTIONS:
            raise ValueError(f"prediction must be one of {PREDICTIONS}, got {prediction!r}")
        if version_id is None or not method:
            raise ValueError("filtering by correct/incorrect predictions needs a model version and a method")
        where.append(Example.label.is_not(None))
        where.append(_predicted("agree")(correct=prediction == "correct", version_id=version_id, method=method))
    return [*where, *extra]


def list_examples(
    *,
    db_session: Session,
    after_id: int | None = None,
    offset: int = 0,
    limit: int = 50,
    **filters: Any,
) -> list[Example]:
    """One page of examples in id order (= file order within a dataset), selected by the filters of
    :func:`_filters` (``project_id``, ``dataset_id``, ``label``, ``search``, ``regex``, ``ids``,
    ``prediction`` with ``version_id`` and ``method``, and ``where``: conditions a domain above adds, e.g.
    :func:`xmd.feedback.service.given` for "has feedback").

    ``after_id`` is keyset pagination (pass the last id of the previous page; cost independent of the
    page number); ``offset`` is there for "jump to page n". ``search`` is a case-insensitive
    substring; ``regex`` a case-insensitive regular expression in RE2 syntax (RE2 on SQLite; on PostgreSQL
    its own ARE syntax, which shares the common subset, with ``\\b`` translated by :func:`pg_regex`).
    """
    if offset < 0 or not 0 <= limit <= MAX_PAGE:
        raise ValueError(f"offset must be >= 0 and limit in 0..{MAX_PAGE}")
    stmt = select(Example).where(*_filters(db_session, **filters))
    if after_id is not None:
        stmt = stmt.where(Example.id > after_id)
    stmt = stmt.order_by(Example.id).offset(offset).limit(limit)
    return list(db_session.scalars(stmt))


def count_examples(*, db_session: Session, **filters: Any) -> int:
    """Number of examples matching the same filters as :func:`list_examples` (for pagers)."""
    where = _filters(db_session, **filters)
    return int(db_session.scalar(select(func.count()).select_from(Example).where(*where)) or 0)


def label_counts(*, db_session: Session, dataset_id: int) -> dict[int | None, int]:
    """Examples per gold label (None = unlabelled) in a dataset."""
    stmt = select(Example.label, func.count()).where(Example.dataset_id == dataset_id).group_by(Example.label)
    return {label: int(n) for label, n in db_session.execute(stmt)}


def to_core(example: Example, split: str = "train") -> CoreExample:
    """The core's view of an example (its id is ``ext_id``, the id in the user's file)."""
    return CoreExample(id=example.ext_id, text=example.text, label=example.label, split=split, meta=dict(example.meta))


def core_examples(*, db_session: Session, dataset: Dataset, limit: int | None = None) -> list[CoreExample]:
    """All examples of a dataset (or its first ``limit``) as core examples, in file order (what training
    and explaining take)."""
    stmt = select(Example).where(Example.dataset_id == dataset.id).order_by(Example.id).limit(limit)
    split = dataset.role.value
    return [to_core(ex, split) for ex in db_session.scalars(stmt)]


def sample_core_examples(*, db_session: Session, dataset: Dataset, n: int, seed: int = 0) -> list[CoreExample]:
    """``n`` examples of a dataset drawn with ``seed`` (all of them when it has fewer), as core examples
    in id order: reads the ids and then only the chosen rows, never the whole dataset's texts."""
    ids = list(db_session.scalars(select(Example.id).where(Example.dataset_id == dataset.id).order_by(Example.id)))
    chosen = sorted(random.Random(seed).sample(ids, min(n, len(ids))))
    split = dataset.role.value
    out: list[CoreExample] = []
    for part in _chunks(chosen, 500):
        stmt = select(Example).where(Example.id.in_(list(part))).order_by(Example.id)
        out.extend(to_core(ex, split) for ex in db_session.scalars(stmt))
    return out
