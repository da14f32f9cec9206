"""A project's feedback as a Hugging Face ``datasets`` dataset (issue 32 §6): export, import, push.

Split ``examples``, one row per example someone marked or finished: ``id`` (the file's id), ``dataset``,
``text``, ``label``, ``words`` (xmd's words), ``annotators`` (who saw or marked it), ``marks`` (per
annotator, one code per word: 0 none, 1 remove, 2 add) and ``consensus`` (the same codes, by the
policy). Split ``task_words``: one row per person's task-level word (``word``, ``label``, ``scope``,
``action``, ``annotator``) with the consensus's action on it. Split ``reviews``: one row per key a
reviewer settled (``decision``, ``action``, ``reviewer`` by name), whatever the policy. The policy is in
the ``examples`` split's description (JSON). :func:`import_dataset` reads it back into a project whose
training set holds the same ids and texts: each annotator's marks as theirs (accounts by name), who saw
what as a queue of finished items, each decision as its reviewer's, so the consensus comes out the same
under every policy, ``reviewed`` included. The push puts it, as ``save_to_disk`` wrote it, in a dataset
repository of its own named after the model's (:func:`dataset_repo_of`), and links the model's card to it.
"""

from __future__ import annotations

import json
import os
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from xmd.core.consensus import Policy, consensus, parse_policy
from xmd.core.feedback import FeedbackSet, task_key
from xmd.core.hub_errors import in_words
from xmd.core.modelcard import link_feedback_dataset, render_feedback_card
from xmd.core.types import Action, DataError, FeedbackError, InstanceFeedback, Scope, TaskFeedback
from xmd.core.words import split_words
from xmd.datasets import service as datasets
from xmd.datasets.models import Dataset, Example
from xmd.feedback import service as feedback
from xmd.feedback.models import FeedbackEvent, FeedbackLevel, FeedbackReview, ReviewDecision
from xmd.feedback.review import Decided, record_decisions
from xmd.jobs import kinds
from xmd.jobs.context import JobContext
from xmd.jobs.flows import start
from xmd.jobs.models import Job
from xmd.jobs.queue import Enqueue
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.teamwork import marks, queues
from xmd.users.models import User

EXPORT_CAP = 200_000
"""Examples one export holds at most (the request is bounded; a larger project is refused)."""
CODES = {Action.REMOVE: 1, Action.ADD: 2}
ACTIONS = {1: Action.REMOVE, 2: Action.ADD}
PUSH_FEEDBACK = "push_feedback"
DATASET_SUFFIX = "-feedback"
"""The feedback's dataset repository is the model's id with this suffix (:func:`dataset_repo_of`)."""
REVIEW_COLS = ("level", "id", "dataset", "word_index", "word", "label", "scope", "decision", "action", "reviewer")


def dataset_repo_of(model_repo: str) -> str:
    """The dataset repository the feedback goes to, named after the model's: ``<model repo>-feedback``."""
    return f"{model_repo}{DATASET_SUFFIX}"


def _features() -> tuple[Any, Any, Any]:
    from datasets import Features, Sequence, Value

    examples = Features(
        {
            "id": Value("string"),
            "dataset": Value("string"),
            "text": Value("string"),
            "label": Value("int64"),
            "words": Sequence(Value("string")),
            "annotators": Sequence(Value("string")),
            "marks": Sequence(Sequence(Value("int8"))),
            "consensus": Sequence(Value("int8")),
        }
    )
    task = Features({k: Value("string") for k in ("word", "scope", "action", "annotator", "consensus")})
    task["label"] = Value("int64")
    reviews = Features({k: Value("int64" if k in ("word_index", "label") else "string") for k in REVIEW_COLS})
    return examples, task, reviews


def policy_of(project: Project, policy: str | None, k: int | None) -> tuple[Policy, int | None]:
    """The request's policy, else the project's (``settings["team"]``), else ``union``."""
    team = project.settings.get("team") or {}
    chosen = parse_policy(policy or team.get("policy") or "union")
    return chosen, (k if k is not None else team.get("k")) if chosen is Policy.AT_LEAST_K else None


def _example_ids(db: Session, project_id: int) -> list[int]:
    marked = select(FeedbackEvent.example_id).where(
        FeedbackEvent.project_id == project_id,
        FeedbackEvent.level == FeedbackLevel.INSTANCE,
        FeedbackEvent.example_id.is_not(None),
    )
    ids = set(db.scalars(marked.distinct().limit(EXPORT_CAP + 1)))
    ids |= set(marks.done_examples(db, project_id, EXPORT_CAP + 1))
    if len(ids) > EXPORT_CAP:
        raise DataError(f"more than {EXPORT_CAP} examples have feedback: too many to export in one request")
    return sorted(ids)


def feedback_dataset(db: Session, project: Project, *, policy: str | None = None, k: int | None = None) -> Any:
    """The project's feedback as a ``datasets.DatasetDict`` (splits ``examples`` and ``task_words``)."""
    from datasets import Dataset as HFDataset
    from datasets import DatasetDict

    pol, k = policy_of(project, policy, k)
    ids = _example_ids(db, project.id)
    inst = marks.instance_marks(db, project.id, ids)
    seen = marks.seen_by(db, project.id, ids)
    tasks = marks.task_marks(db, project.id)
    people = set(tasks) | {u for e in inst.values() for u in e} | {u for s in seen.values() for u in s}
    names = {u: n for u, n in db.execute(select(User.id, User.name).where(User.id.in_(sorted(people))))}
    sets = {names[u]: FeedbackSet() for u in people}
    seen_named: dict[str, list[str]] = {names[u]: [] for u in people}
    for eid in ids:
        for u, m in inst.get(eid, {}).items():
            sets[names[u]].instance.extend(InstanceFeedback(str(eid), i, a) for i, a in sorted(m.items()))
        for u in seen.get(eid, ()):
            seen_named[names[u]].append(str(eid))
    for u, words in tasks.items():
        sets[names[u]].task.extend(TaskFeedback(w, a, label, scope) for (_, label, scope), (w, a) in words.items())
    review = _reviews(db, project.id) if pol is Policy.REVIEWED else None
    result = consensus(sets, pol, k=k, seen=seen_named, review=review) if sets else None
    kept = {(f.example_id, f.word_index): Action(f.action) for f in (result.feedback.instance if result else [])}
    task_kept = {(t.word, t.label, Scope(t.scope)): Action(t.action) for t in (result.feedback.task if result else [])}
    rows: dict[str, list[Any]] = {
        k_: [] for k_ in ("id", "dataset", "text", "label", "words", "annotators", "marks", "consensus")
    }
    ds_names = dict(db.execute(select(Dataset.id, Dataset.name).where(Dataset.project_id == project.id)).all())
    for i in range(0, len(ids), marks.CHUNK):
        for ex in db.scalars(select(Example).where(Example.id.in_(ids[i : i + marks.CHUNK])).order_by(Example.id)):
            words = split_words(ex.text)[0]
            who = sorted(set(inst.get(ex.id, {})) | seen.get(ex.id, set()), key=lambda u: names[u])
            rows["id"].append(ex.ext_id)
            rows["dataset"].append(ds_names.get(ex.dataset_id, ""))
            rows["text"].append(ex.text)
            rows["label"].append(ex.label)
            rows["words"].append(words)
            rows["annotators"].append([names[u] for u in who])
            rows["marks"].append([_codes(inst.get(ex.id, {}).get(u, {}), len(words)) for u in who])
            rows["consensus"].append([CODES.get(kept.get((str(ex.id), j)), 0) for j in range(len(words))])  # type: ignore[arg-type]
    task_rows: dict[str, list[Any]] = {k_: [] for k_ in ("word", "label", "scope", "action", "annotator", "consensus")}
    for u, words in sorted(tasks.items(), key=lambda kv: names[kv[0]]):
        for (wkey, label, scope), (w, a) in sorted(words.items(), key=repr):
            for col, v in (
                ("word", w),
                ("label", label),
                ("scope", scope.value),
                ("action", a.value),
                ("annotator", names[u]),
            ):
                task_rows[col].append(v)
            task_rows["consensus"].append(getattr(task_kept.get((wkey, label, scope)), "value", "none"))
    ex_features, task_features, review_features = _features()
    about = {"xmd": "feedback", "project": project.name, "policy": pol.value, "k": k, "labels": list(project.labels)}
    out = DatasetDict(
        examples=HFDataset.from_dict(rows, features=ex_features),
        task_words=HFDataset.from_dict(task_rows, features=task_features),
        reviews=HFDataset.from_dict(_review_rows(db, project.id, set(ids), ds_names), features=review_features),
    )
    out["examples"].info.description = json.dumps(about)
    db.commit()
    return out


def _review_rows(db: Session, project_id: int, ids: set[int], ds_names: dict[int, str]) -> dict[str, list[Any]]:
    """Every decision on the exported examples and on task words, with its reviewer's name (None when the
    account is gone): the ``reviews`` split, which an import records again as those reviewers'."""
    rows: dict[str, list[Any]] = {c: [] for c in REVIEW_COLS}
    stmt = (
        select(FeedbackReview, Example.ext_id, Example.dataset_id, User.name)
        .outerjoin(Example, Example.id == FeedbackReview.example_id)
        .outerjoin(User, User.id == FeedbackReview.reviewer_id)
        .where(FeedbackReview.project_id == project_id)
        .order_by(FeedbackReview.event_id)
        .limit(EXPORT_CAP + 1)
    )
    found = db.execute(stmt).all()
    if len(found) > EXPORT_CAP:
        raise DataError(f"more than {EXPORT_CAP} reviewed keys: too many to export in one request")
    for rv, ext, ds, reviewer in found:
        if rv.level is FeedbackLevel.INSTANCE and rv.example_id not in ids:
            continue  # its example has no feedback left in the export (a deleted example's review)
        values = {
            "level": rv.level.value,
            "id": ext,
            "dataset": ds_names.get(ds) if ds is not None else None,
            "word_index": rv.word_index,
            "word": rv.word,
            "label": rv.label,
            "scope": rv.scope.value if rv.scope is not None else None,
            "decision": rv.decision.value,
            "action": rv.action.value if rv.action is not None else None,
            "reviewer": reviewer,
        }
        for col, v in values.items():
            rows[col].append(v)
    return rows


def _reviews(db: Session, project_id: int) -> FeedbackSet:
    """The reviewers' accepts and edits keyed as the export keys examples (database ids), for the
    consensus column under ``reviewed``; rejections keep nothing. The ``reviews`` split has them all."""
    out = FeedbackSet()
    stmt = select(FeedbackReview).where(
        FeedbackReview.project_id == project_id, FeedbackReview.decision != ReviewDecision.REJECT
    )
    for rv in db.scalars(stmt.order_by(FeedbackReview.event_id)):
        if rv.action is None:
            continue
        if rv.level is FeedbackLevel.INSTANCE and rv.example_id is not None and rv.word_index is not None:
            out.instance.append(InstanceFeedback(str(rv.example_id), rv.word_index, rv.action, "review"))
        elif rv.level is FeedbackLevel.TASK and rv.word is not None:
            out.task.append(TaskFeedback(rv.word, rv.action, rv.label, rv.scope or Scope.ALL, source="review"))
    return out


def _codes(m: dict[int, Action], n: int) -> list[int]:
    return [CODES.get(m.get(j), 0) for j in range(n)]  # type: ignore[arg-type]


def save(dd: Any, folder: Path) -> None:
    """``dd.save_to_disk(folder)``, an empty split as one empty shard: ``datasets`` saves it with none,
    which ``load_from_disk`` then cannot read (a project without task words, or without reviews)."""
    dd.save_to_disk(str(folder), num_shards={name: 1 for name, split in dd.items() if len(split) == 0})


def save_archive(dd: Any, dest: Path) -> Path:
    """:func:`save` into a temporary folder, packed as ``dest`` (a .tar.gz of folder ``feedback/``)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "feedback"
        save(dd, folder)
        with tarfile.open(dest, "w:gz") as tar:
            tar.add(folder, arcname="feedback")
    return dest


def load_archive(path: Path, into: Path) -> Any:
    """The DatasetDict inside an archive made by :func:`save_archive` (plain files only, no path escapes)."""
    from datasets import load_from_disk

    try:
        with tarfile.open(path, "r:gz") as tar:
            tar.extractall(into, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise DataError(f"not a feedback archive (.tar.gz of a saved dataset): {exc}") from None
    folder = into / "feedback"
    if not (folder / "dataset_dict.json").is_file():
        raise DataError("the archive holds no folder feedback/ written by datasets' save_to_disk")
    try:
        dd = load_from_disk(str(folder))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(f"the archive's dataset cannot be read: {exc}") from None
    ex_cols, task_cols, review_cols = (set(f) for f in _features())
    splits = getattr(dd, "keys", lambda: [])()
    if "examples" not in splits or "task_words" not in splits:
        raise DataError("the dataset needs the splits 'examples' and 'task_words' (an xmd feedback export)")
    if not ex_cols <= set(dd["examples"].column_names) or not task_cols <= set(dd["task_words"].column_names):
        raise DataError("the dataset's columns are not those of an xmd feedback export")
    if "reviews" in splits and not review_cols <= set(dd["reviews"].column_names):  # older exports have none
        raise DataError("the dataset's split 'reviews' lacks columns of an xmd feedback export")
    return dd


def import_dataset(db: Session, project: Project, dataset_id: int, dd: Any, queue_name: str) -> dict[str, Any]:
    """Each annotator's marks and task words as theirs, who saw what as a finished queue, each review as
    its reviewer's; 422 first (nothing written) for unknown accounts, ids missing from the dataset, texts
    that differ, or a review this project cannot hold."""
    ds = datasets.in_project(db_session=db, project=project, dataset_id=dataset_id)
    ex, task = dd["examples"], dd["task_words"]
    reviewed = dd.get("reviews", [])
    people = sorted({n for a in ex["annotators"] for n in a} | set(task["annotator"]))
    reviewers = sorted({r["reviewer"] for r in reviewed if r["reviewer"]})
    wanted = sorted(set(people) | set(reviewers))
    users = {n: i for n, i in db.execute(select(User.name, User.id).where(User.name.in_(wanted)))}
    missing = [n for n in wanted if n not in users]
    if missing:
        raise DataError(f"no account named {missing[:5]}: create the annotators' and reviewers' accounts first")
    by_ext = {
        e.ext_id: e
        for e in db.scalars(select(Example).where(Example.dataset_id == ds.id, Example.ext_id.in_(list(ex["id"]))))
    }
    sets = {n: FeedbackSet() for n in people}
    done: list[tuple[int, int]] = []
    try:
        for row in ex:
            e = by_ext.get(row["id"])
            if e is None or split_words(e.text)[0] != list(row["words"]):
                raise DataError(f"example {row['id']!r} is not in dataset {ds.name!r} with the same text")
            for name, codes in zip(row["annotators"], row["marks"], strict=True):
                marks_ = [InstanceFeedback(e.ext_id, j, ACTIONS[c]) for j, c in enumerate(codes) if c]
                sets[name].instance.extend(marks_)
                done.append((users[name], e.id))
        for row in task:
            sets[row["annotator"]].task.append(
                TaskFeedback(row["word"], Action(row["action"]), row["label"], Scope(row["scope"]))
            )
        decided = [_decided(project, by_ext, row, users) for row in reviewed]
    except (KeyError, ValueError, TypeError) as exc:
        raise DataError(f"not an xmd feedback dataset (a mark, action or scope it cannot read): {exc}") from None
    for fs in sets.values():
        feedback.check_feedback_set(db_session=db, project=project, feedback=fs, dataset_id=ds.id)
    queues.add_done(db, project_id=project.id, name=queue_name, pairs=done)
    db.commit()
    written = 0
    for name, fs in sets.items():
        if fs.instance or fs.task:
            written += feedback.import_feedback_set(
                db_session=db, project=project, feedback=fs, dataset_id=ds.id, user_id=users[name]
            )
    n_reviews = record_decisions(db_session=db, project=project, decided=decided) if decided else 0
    return {"examples": len(ex), "annotators": people, "events": written, "queue": queue_name, "reviews": n_reviews}


def _decided(project: Project, by_ext: dict[str, Example], row: dict[str, Any], users: dict[str, int]) -> Decided:
    """One row of the ``reviews`` split as a decision on this project's key, by the reviewer it names
    (DataError for an example not imported, a word outside its text, a label the project lacks)."""
    decision, level = ReviewDecision(row["decision"]), FeedbackLevel(row["level"])
    action = Action(row["action"]) if row["action"] else None
    if action is Action.RESET or (action is None) != (decision is ReviewDecision.REJECT):
        raise DataError(
            f"a review {decision.value!r} with action {row['action']!r}: accept and edit keep add or remove"
        )
    reviewer = users[row["reviewer"]] if row["reviewer"] else None
    if level is FeedbackLevel.INSTANCE:
        e = by_ext.get(row["id"])
        words = split_words(e.text)[0] if e is not None else []
        j = row["word_index"]
        if e is None or not isinstance(j, int) or not 0 <= j < len(words):
            raise DataError(f"a review of word {j!r} of example {row['id']!r}, which the import does not hold")
        fields = {"example_id": e.id, "word_index": j, "word": words[j], "label": None, "scope": None}
        return Decided(feedback.instance_key(e.id, j), {"level": level, **fields}, decision, action, reviewer)
    word, label, scope = str(row["word"] or "").strip(), row["label"], Scope(row["scope"] or Scope.ALL.value)
    if not word or (label is not None and not 0 <= label < len(project.labels)):
        raise DataError(f"a review of task word {row['word']!r} (label {label!r}) that this project cannot hold")
    key_word = task_key(word)  # as the project keys and records task words
    fields = {"level": level, "example_id": None, "word_index": None, "word": key_word, "label": label, "scope": scope}
    return Decided(feedback.task_feedback_key(key_word, label, scope), fields, decision, action, reviewer)


def start_push_feedback(
    db: Session, enqueue: Enqueue, project: Project, params: dict[str, Any], token: str | None
) -> Job:
    """A job that pushes the feedback dataset beside the model ``repo_id``: into the dataset repository
    :func:`dataset_repo_of` names (the token as a secret)."""
    policy_of(project, params.get("policy"), params.get("k"))  # a bad policy is a 422 now, not a failed job
    return start(db, enqueue, project, PUSH_FEEDBACK, params, {"hf_token": token} if token else None)


def push_feedback_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``push_feedback``: the saved dataset and its card into a dataset repository of its own
    (created if missing) in one commit, then a link from the model's card. The model repository gets
    its README only: a data file there is what the Hub warns about (and a model repo is no dataset)."""
    from huggingface_hub import HfApi

    db, params = ctx.db, ctx.params
    assert ctx.job.project_id is not None
    project = projects.get_or_raise(db_session=db, project_id=ctx.job.project_id)
    dd = feedback_dataset(db, project, policy=params.get("policy"), k=params.get("k"))
    token = ctx.secrets.get("hf_token") or os.environ.get("HF_TOKEN")
    if not token:
        raise FeedbackError("no Hugging Face token: send one with the push request or set HF_TOKEN on the worker")
    endpoint = (ctx.settings.hf_endpoint or os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")
    api = HfApi(endpoint=endpoint, token=token)
    with in_words(endpoint, str(params["repo_id"])):
        return _push(api, dd, db, project, params, endpoint)


def _push(api: Any, dd: Any, db: Session, project: Project, params: dict[str, Any], endpoint: str) -> dict[str, Any]:
    """The dataset repo's commit and the model card's link (the caller puts the Hub's errors in words)."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    model_repo = str(params["repo_id"])
    repo_id = dataset_repo_of(model_repo)
    url = f"{endpoint}/datasets/{repo_id}"
    about = json.loads(dd["examples"].info.description or "{}")
    links = {"model_repo": model_repo, "model_url": f"{endpoint}/{model_repo}", "repo_id": repo_id}
    card = render_feedback_card({**about, **links, "examples": len(dd["examples"])})
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "feedback"
        save(dd, folder)
        files = {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}
        ops: list[Any] = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=p) for path, p in files.items()]
        ops.append(CommitOperationAdd(path_in_repo="README.md", path_or_fileobj=card.encode()))
        api.create_repo(repo_id, repo_type="dataset", private=bool(params.get("private", True)), exist_ok=True)
        stale = [  # an earlier push's shards that this one no longer has (files of other names are left)
            path
            for path in api.list_repo_files(repo_id, repo_type="dataset")
            if path.split("/")[0] in dd and path not in files
        ]
        ops += [CommitOperationDelete(path_in_repo=path) for path in stale]
        message = f"xmd: feedback of project {project.name} on {model_repo}"
        info = api.create_commit(repo_id, ops, repo_type="dataset", commit_message=message)
    linked = _link_model_card(api, model_repo, repo_id, url)
    projects.set_feedback_repo(db_session=db, project=project, model_repo=model_repo, dataset_repo=repo_id)
    return {
        "repo_id": repo_id,
        "repo_type": "dataset",
        "url": url,
        "commit": info.oid,
        "examples": len(dd["examples"]),
        "files": len(files) + 1,
        "model_repo": model_repo,
        "model_card": linked,
    }


def _link_model_card(api: Any, model_repo: str, dataset_repo: str, url: str) -> str:
    """Link the model's card to the dataset, in a commit of README.md alone: ``linked``, ``already
    linked``, or ``no model repository`` (the dataset is pushed anyway; pushing the model links it)."""
    from huggingface_hub import CommitOperationAdd
    from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError

    with tempfile.TemporaryDirectory() as tmp:
        try:
            card = Path(api.hf_hub_download(model_repo, "README.md", cache_dir=tmp)).read_text(encoding="utf-8")
        except RepositoryNotFoundError:
            return "no model repository"
        except EntryNotFoundError:
            card = ""
    linked = link_feedback_dataset(card, dataset_repo, url)
    if linked == card:
        return "already linked"
    op = CommitOperationAdd(path_in_repo="README.md", path_or_fileobj=linked.encode())
    api.create_commit(model_repo, [op], commit_message=f"xmd: link the feedback dataset {dataset_repo}")
    return "linked"


kinds.register(PUSH_FEEDBACK, push_feedback_job, secrets=True)
