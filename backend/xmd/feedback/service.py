"""Feedback: write the event and the current state in one transaction; convert to the core's FeedbackSet.

**Concurrency.** :func:`set_feedback` inserts the event, then upserts the current row with
``INSERT … ON CONFLICT (project_id, key) DO UPDATE`` (the database resolves the race between two
first writers; a read-then-insert would fail one of them on the unique constraint). So that the
current row is always the state of the key's *latest* event, writers of one key are serialised
before the event is numbered: on PostgreSQL with a transaction-scoped advisory lock on
(project, key) — other keys are not blocked — and on SQLite by the database write lock, which the
event INSERT takes first. Twenty concurrent writers on one key thus give twenty events and one
current row, and none of them fails.

**Bulk import** (:func:`import_feedback_set`) writes thousands of keys in one transaction. One
advisory lock per key would fill PostgreSQL's server-wide lock table (``max_locks_per_transaction``;
about 20,000 keys gave "out of shared memory", for every database on the server). So every single
writer also holds the *project's* advisory lock in shared mode, and an import holds it exclusively:
one lock for the whole import, which waits for the clicks in flight and holds back new ones until it
commits. The import inserts its events in one batched statement (numbered in file order) and upserts
each key's last state once.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, exists, func, select
from sqlalchemy.orm import Session

from xmd.core.feedback import FeedbackSet, parse_action, parse_scope, task_key
from xmd.core.types import Action, FeedbackError, InstanceFeedback, Scope, TaskFeedback
from xmd.core.words import split_words, word_key
from xmd.datasets import service as datasets_service
from xmd.datasets.models import Example
from xmd.db.base import utcnow
from xmd.db.engine import is_sqlite, write_scope
from xmd.db.errors import NotFoundError
from xmd.feedback import bulk, click
from xmd.feedback.events import count_events as count_events
from xmd.feedback.events import history as history
from xmd.feedback.events import list_events as list_events
from xmd.feedback.models import Feedback, FeedbackLevel
from xmd.projects.models import Project

CHUNK = 500
MAX_PAGE = 1000
LAST_EVENT = "xmd.last_feedback_event_id"


def instance_key(example_id: int, word_index: int) -> str:
    """Key of instance feedback on word ``word_index`` of example ``example_id`` (database id)."""
    return f"i:{example_id}:{word_index}"


def task_feedback_key(word: str, label: int | None, scope: Scope | str) -> str:
    """Key of task feedback on a word key, optionally one gold label, and a scope."""
    return f"t:{word}:{'' if label is None else label}:{parse_scope(scope).value}"


def owner_of(user_id: int | None) -> str:
    """The owner of a person's marks (``u:<user id>``; "" for a write of no user, e.g. a script)."""
    return "" if user_id is None else f"u:{user_id}"


def user_of(owner: str) -> int | None:
    """The user id of an owner written by :func:`owner_of`, None for a named import."""
    return int(owner[2:]) if owner.startswith("u:") and owner[2:].isdigit() else None


def get(*, db_session: Session, project_id: int, key: str, owner: str) -> Feedback | None:
    """``owner``'s current feedback on a key, or None (never given, or reset)."""
    stmt = select(Feedback).where(Feedback.project_id == project_id, Feedback.key == key, Feedback.owner == owner)
    return db_session.scalars(stmt.execution_options(populate_existing=True)).one_or_none()


def get_or_raise(*, db_session: Session, project_id: int, key: str, owner: str) -> Feedback:
    """``owner``'s current feedback on a key; NotFoundError if there is none."""
    fb = get(db_session=db_session, project_id=project_id, key=key, owner=owner)
    if fb is None:
        raise NotFoundError(f"no current feedback {key!r} in project {project_id}")
    return fb


PROJECT_LOCK_SPACE = 0x786D6400000000
"""Namespace of the one-bigint advisory locks of whole projects ("xmd" << 32 + project id); the two-int4
key locks are a separate space in PostgreSQL, so the two never collide."""


def _serialise_key(db_session: Session, project_id: int, key: str) -> None:
    """PostgreSQL: block other writers of this key, and imports into the project, until commit
    (SQLite: the event INSERT does it)."""
    if not is_sqlite(db_session):
        h = zlib.crc32(key.encode("utf-8")) - 2**31  # int4, as pg_advisory_xact_lock(int4, int4) wants
        # One round trip for both (a click waits for each one on a loaded server); the select list is
        # evaluated left to right, the project's shared lock first.
        db_session.execute(
            select(
                func.pg_advisory_xact_lock_shared(PROJECT_LOCK_SPACE + project_id),
                func.pg_advisory_xact_lock(project_id, h),
            )
        )


def _serialise_project(db_session: Session, project_id: int) -> None:
    """PostgreSQL: one exclusive lock that waits for and holds back every writer of the project."""
    if not is_sqlite(db_session):
        db_session.execute(select(func.pg_advisory_xact_lock(PROJECT_LOCK_SPACE + project_id)))


def _write(
    db_session: Session,
    *,
    project_id: int,
    level: FeedbackLevel,
    key: str,
    action: Action,
    example_id: int | None,
    word_index: int | None,
    word: str | None,
    label: int | None,
    scope: Scope | None,
    user_id: int | None,
    source: str | None = None,
) -> Feedback | None:
    _serialise_key(db_session, project_id, key)
    now = utcnow()
    params: dict[str, Any] = {
        "project_id": project_id,
        "key": key,
        "owner": owner_of(user_id),
        "level": level,
        "example_id": example_id,
        "word_index": word_index,
        "word": word,
        "label": label,
        "scope": scope,
        "action": action,
        "source": source,
        "user_id": user_id,
        "created_at": now,
        "updated_by": user_id,
        "updated_at": now,
    }
    # The event numbers the click (and, on SQLite, takes the write lock); the current row follows it:
    # prebuilt statements, one round trip on PostgreSQL (``click``).
    event_id, fb = click.write(db_session, params, reset=action is Action.RESET)
    db_session.info[LAST_EVENT] = event_id  # the caller's receipt: which event this click became
    return fb


def set_feedback(
    *,
    db_session: Session,
    project: Project,
    action: Action | str,
    example: Example | None = None,
    word_index: int | None = None,
    word: str | None = None,
    label: int | None = None,
    scope: Scope | str | None = None,
    user_id: int | None = None,
    commit: bool = True,
) -> Feedback | None:
    """Record one piece of feedback: instance (``example`` + ``word_index``) or task (``word``, optional
    ``label`` and ``scope``). Logs the event and updates the current state in one transaction; ``reset``
    deletes the current row. Returns the current row (None after a reset). FeedbackError for a word
    position, word or label that does not exist."""
    act = parse_action(action)
    with write_scope(db_session, commit):
        fb = _set(db_session, project, act, example, word_index, word, label, scope, user_id)
    return fb


def _set(
    db_session: Session,
    project: Project,
    act: Action,
    example: Example | None,
    word_index: int | None,
    word: str | None,
    label: int | None,
    scope: Scope | str | None,
    user_id: int | None,
) -> Feedback | None:
    level, key, fields = _entry(project, act, example, word_index, word, label, scope)
    return _write(db_session, project_id=project.id, level=level, key=key, user_id=user_id, **fields)


def _entry(
    project: Project,
    act: Action,
    example: Example | None,
    word_index: int | None,
    word: str | None,
    label: int | None,
    scope: Scope | str | None,
    words_of: dict[int, list[str]] | None = None,
    source: str | None = None,
) -> tuple[FeedbackLevel, str, dict[str, Any]]:
    """Check one piece of feedback (FeedbackError naming what is wrong); its level, key and fields.

    ``words_of`` caches the split text of examples when many entries name the same example;
    ``source`` says where it came from (None: a person's click).
    """
    if example is not None:
        if word is not None or label is not None or scope is not None:
            raise FeedbackError("instance feedback takes an example and a word index, not a word, label or scope")
        if example.project_id != project.id:
            raise FeedbackError(f"example {example.id} does not belong to project {project.name!r}")
        words = words_of.get(example.id) if words_of is not None else None
        if words is None:
            words = split_words(example.text)[0]
            if words_of is not None:
                words_of[example.id] = words
        if not isinstance(word_index, int) or isinstance(word_index, bool) or not 0 <= word_index < len(words):
            raise FeedbackError(
                f"word_index {word_index!r} is out of range for example {example.ext_id!r}, which has "
                f"{len(words)} words (valid: 0..{len(words) - 1})"
            )
        fields = {"example_id": example.id, "word_index": word_index, "word": words[word_index]}
        fields.update(label=None, scope=None, action=act, source=source)
        return FeedbackLevel.INSTANCE, instance_key(example.id, word_index), fields
    else:
        if word is None or word_index is not None:
            raise FeedbackError("feedback needs either an example and a word index, or a word")
        key_word = task_key(word)
        if label is not None and (isinstance(label, bool) or not 0 <= label < len(project.labels)):
            raise FeedbackError(f"label {label!r} is out of range (expected 0..{len(project.labels) - 1})")
        sc = parse_scope(scope if scope is not None else Scope.ALL)
        fields = {"example_id": None, "word_index": None, "word": key_word, "label": label, "scope": sc, "action": act}
        fields["source"] = source
        return FeedbackLevel.TASK, task_feedback_key(key_word, label, sc), fields


def _feedback_filter(
    project_id: int,
    level: FeedbackLevel | str | None,
    example_id: int | None,
    word: str | None,
    where: ColumnElement[bool] | None,
) -> list[ColumnElement[bool]]:
    """The conditions a feedback list and its count share."""
    cond: list[ColumnElement[bool]] = [Feedback.project_id == project_id]
    if where is not None:
        cond.append(where)
    if level is not None:
        cond.append(Feedback.level == FeedbackLevel(level))
    if example_id is not None:
        cond.append(Feedback.example_id == example_id)
    if word is not None:
        cond.append(Feedback.word == word_key(word.strip()))
    return cond


def list_feedback(
    *,
    db_session: Session,
    project_id: int,
    level: FeedbackLevel | str | None = None,
    example_id: int | None = None,
    word: str | None = None,
    offset: int = 0,
    limit: int | None = None,
    where: ColumnElement[bool] | None = None,
) -> list[Feedback]:
    """Current feedback of a project (everyone's rows) in the order it was (last) given; optional
    filters (``where``: e.g. what a reader may see, ``team.visible_to``)."""
    if offset < 0 or (limit is not None and not 0 <= limit <= MAX_PAGE):
        raise ValueError(f"offset must be >= 0 and limit in 0..{MAX_PAGE}")
    cond = _feedback_filter(project_id, level, example_id, word, where)
    stmt = select(Feedback).where(*cond).order_by(Feedback.last_event_id).offset(offset)
    if limit is not None:
        stmt = stmt.limit(limit)
    return list(db_session.scalars(stmt.execution_options(populate_existing=True)))


def count_feedback(
    *,
    db_session: Session,
    project_id: int,
    level: FeedbackLevel | str | None = None,
    example_id: int | None = None,
    word: str | None = None,
    where: ColumnElement[bool] | None = None,
) -> int:
    """How many rows :func:`list_feedback` would list: one COUNT, no row loaded (a page's total reads no rows)."""
    cond = _feedback_filter(project_id, level, example_id, word, where)
    return int(db_session.scalar(select(func.count()).select_from(Feedback).where(*cond)) or 0)


def count_examples_with_feedback(*, db_session: Session, project_id: int, dataset_ids: Sequence[int]) -> int:
    """Examples of ``dataset_ids`` that carry instance feedback (each counted once)."""
    stmt = (
        select(func.count(func.distinct(Feedback.example_id)))
        .join(Example, Example.id == Feedback.example_id)
        .where(
            Feedback.project_id == project_id,
            Feedback.level == FeedbackLevel.INSTANCE,
            Example.dataset_id.in_(list(dataset_ids)),
        )
    )
    return int(db_session.scalar(stmt) or 0)


def to_feedback_set(
    *, db_session: Session, project: Project, dataset_id: int | None = None, owner: str | None = None
) -> FeedbackSet:
    """The current feedback (everyone's, or ``owner``'s) as the core's :class:`FeedbackSet`, in the
    order it was given (with several people, a key's later mark wins in the core's reading).

    Instance feedback is keyed by the example's ``ext_id`` (the id the core and feedback files use);
    ``dataset_id`` keeps only instance feedback on that dataset's examples, since ext ids are only
    unique within a dataset. ``words`` records the clicked word of each instance entry.
    """
    out = FeedbackSet()
    inst = select(Feedback, Example.ext_id).join(Example, Example.id == Feedback.example_id)
    inst = inst.where(Feedback.project_id == project.id, Feedback.level == FeedbackLevel.INSTANCE)
    if dataset_id is not None:
        inst = inst.where(Example.dataset_id == dataset_id)
    if owner is not None:
        inst = inst.where(Feedback.owner == owner)
    for fb, ext_id in db_session.execute(inst.order_by(Feedback.last_event_id)):
        assert fb.word_index is not None
        out.instance.append(
            InstanceFeedback(example_id=ext_id, word_index=fb.word_index, action=fb.action, source=fb.source)
        )
        if fb.word is not None:
            out.words[(ext_id, fb.word_index)] = fb.word
    task = select(Feedback).where(Feedback.project_id == project.id, Feedback.level == FeedbackLevel.TASK)
    if owner is not None:
        task = task.where(Feedback.owner == owner)
    for fb in db_session.scalars(task.order_by(Feedback.last_event_id)):
        assert fb.word is not None
        out.task.append(TaskFeedback(fb.word, fb.action, fb.label, fb.scope or Scope.ALL, source=fb.source))
    return out


def import_feedback_set(
    *,
    db_session: Session,
    project: Project,
    feedback: FeedbackSet,
    dataset_id: int,
    user_id: int | None = None,
    owner: str | None = None,
) -> int:
    """Record a core FeedbackSet (e.g. a feedback JSON file) as events, in order, in one transaction.

    The marks belong to ``owner`` (default: the importing user's, as if they had clicked them; a named
    owner such as ``import:alice`` keeps another annotator's marks apart from everyone's).
    Instance entries name examples of ``dataset_id`` by ``ext_id``; an unknown id, a word position
    out of range, or a recorded word that no longer matches the text raises FeedbackError and
    records nothing. Each entry keeps its ``source``. Returns the number of events written.
    """
    entries = _import_entries(db_session, project, feedback, dataset_id)
    with write_scope(db_session):
        who = owner_of(user_id) if owner is None else owner
        _bulk_write(db_session, project_id=project.id, entries=entries, user_id=user_id, owner=who)
    return len(entries)


def check_feedback_set(*, db_session: Session, project: Project, feedback: FeedbackSet, dataset_id: int) -> int:
    """What :func:`import_feedback_set` checks, writing nothing (an import's preview); the entry count."""
    return len(_import_entries(db_session, project, feedback, dataset_id))


def _import_entries(
    db_session: Session, project: Project, feedback: FeedbackSet, dataset_id: int
) -> list[tuple[FeedbackLevel, str, dict[str, Any]]]:
    ext_ids = sorted({fb.example_id for fb in feedback.instance})
    by_ext: dict[str, Example] = {}
    for i in range(0, len(ext_ids), CHUNK):
        chunk: Sequence[str] = ext_ids[i : i + CHUNK]
        stmt = select(Example).where(Example.dataset_id == dataset_id, Example.ext_id.in_(chunk))
        by_ext.update({ex.ext_id: ex for ex in db_session.scalars(stmt)})
    missing = [e for e in ext_ids if e not in by_ext]
    if missing:
        raise FeedbackError(
            f"feedback refers to {len(missing)} unknown example id(s) in dataset {dataset_id}: {missing[:5]}"
        )
    for (eid, i), word in feedback.words.items():
        ex = by_ext.get(eid)
        if ex is None:
            continue
        words = split_words(ex.text)[0]
        if 0 <= i < len(words) and word_key(words[i]) != word_key(word):
            raise FeedbackError(
                f"feedback on word {i} of example {eid!r} was given on {word!r}, but that word is now {words[i]!r}"
            )
    cache: dict[int, list[str]] = {}
    entries = [
        _entry(project, parse_action(f.action), by_ext[f.example_id], f.word_index, None, None, None, cache, f.source)
        for f in feedback.instance
    ]
    entries += [
        _entry(project, parse_action(tf.action), None, None, tf.word, tf.label, tf.scope, None, tf.source)
        for tf in feedback.task
    ]
    return entries


def _bulk_write(
    db_session: Session,
    *,
    project_id: int,
    entries: Sequence[tuple[FeedbackLevel, str, dict[str, Any]]],
    user_id: int | None,
    owner: str,
) -> None:
    """Events of ``entries`` in order, then each key's current row from its last entry (see module docs)."""
    if not entries:
        return
    _serialise_project(db_session, project_id)
    now = utcnow()
    who = {"user_id": user_id, "owner": owner, "now": now}
    event_ids = bulk.write_events(db_session, project_id=project_id, entries=entries, **who)
    db_session.info[LAST_EVENT] = event_ids[-1]
    bulk.write_current(db_session, project_id=project_id, entries=entries, event_ids=event_ids, **who)
    db_session.expire_all()  # rows loaded before the import are stale now


def counts_by_example(
    *, db_session: Session, example_ids: Sequence[int], where: ColumnElement[bool] | None = None
) -> dict[int, int]:
    """How many current feedback entries each example has (``where``: those a reader may see)."""
    if not example_ids:
        return {}
    stmt = select(Feedback.example_id, func.count()).where(Feedback.example_id.in_(example_ids))
    if where is not None:
        stmt = stmt.where(where)
    return {eid: int(n) for eid, n in db_session.execute(stmt.group_by(Feedback.example_id))}


def given(has_feedback: bool, where: ColumnElement[bool] | None = None) -> ColumnElement[bool]:
    """An example filter (``datasets.service.list_examples``' ``where``): it has feedback (``where``: that
    the reader may see), or (False) none."""
    clause = exists().where(Feedback.example_id == Example.id)
    if where is not None:
        clause = clause.where(where)
    return clause if has_feedback else ~clause


def count_on_dataset(*, db_session: Session, dataset_id: int) -> int:
    """Current feedback entries on the dataset's examples (what a delete takes with it; the event log
    keeps their history)."""
    stmt = select(func.count()).select_from(Feedback).join(Example, Example.id == Feedback.example_id)
    return int(db_session.scalar(stmt.where(Example.dataset_id == dataset_id)) or 0)


datasets_service.FACTS["n_feedback"] = lambda db, ds: count_on_dataset(db_session=db, dataset_id=ds.id)
