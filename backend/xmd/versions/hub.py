"""Push a model version to the Hugging Face Hub (or any Hub-compatible endpoint) in one commit.

The pushed folder is the version's directory as it is on disk, except ``README.md``, which is
rendered again at push time: the model card then carries what the store knows by now (metrics of
later evaluations, the feedback snapshot with its words) and the repo id in its loading snippet.
All files go in a single ``create_commit``: the repo never shows a half-uploaded model. A cancel
during the upload ends the job at once and the commit is never made (:func:`_upload`); only a cancel
that arrives while the commit request itself is on its way can no longer recall it.

The token comes with the job (``ctx.secrets["hf_token"]``, unsealed once from the message's pad and the
database's half, :mod:`xmd.jobs.secrets`, so stored nowhere whole) or the worker's ``HF_TOKEN``;
it is passed to ``HfApi`` explicitly and scrubbed from any error text.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from xmd.core import followup
from xmd.core.hub_errors import HubError, in_words
from xmd.core.modelcard import CARD_PLACEHOLDER, link_feedback_dataset, render_base_card, render_model_card
from xmd.jobs import kinds
from xmd.jobs import service as jobs_store
from xmd.jobs.context import JobCancelled, JobContext
from xmd.jobs.flows import start
from xmd.jobs.models import Job
from xmd.jobs.queue import Enqueue
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.storage import StorageError
from xmd.versions import service as models
from xmd.versions.models import ModelKind, ModelStatus, ModelVersion
from xmd.versions.schemas import PushIn

T = TypeVar("T")
PUSH = "push"
"""The job kind that pushes a version to the Hub (registered below)."""
HF_URL = "https://huggingface.co"


def _metrics_before(db: Session, version: ModelVersion) -> dict | None:
    before = (version.config or {}).get("metrics_before")
    if before:
        return before
    if version.parent_id is not None:
        parent = models.get(db_session=db, model_version_id=version.parent_id)
        return dict(parent.metrics) if parent is not None and parent.metrics else None
    return None


def model_card(
    db: Session, project: Project, version: ModelVersion, repo_id: str, folder: Path, endpoint: str = HF_URL
) -> str:
    """README.md for the pushed folder (``folder``: the version's files on this machine): base model,
    feedback used (counts by kind, top removed/added words), ER loss and λ, metrics before/after per
    eval set, how to load it from ``repo_id``, and the feedback dataset pushed beside it, if any (a new
    card would otherwise drop the link the feedback push wrote)."""
    meta_file = folder / "xmd.json"
    meta: dict[str, Any] = json.loads(meta_file.read_text()) if meta_file.is_file() else {}
    meta["name"] = f"{project.name} — v{version.version}"
    meta.setdefault("labels", list(project.labels))
    meta.setdefault("base_model", project.model_source)
    control = (version.config or {}).get("control")
    if version.kind is ModelKind.DEBUGGED and control:  # a control arm of a comparison, never "debugged"
        meta.update(kind="control", arm=control, seed=version.config.get("seed"))
        card = render_model_card(meta)
    elif version.kind is ModelKind.DEBUGGED:
        meta["kind"] = "debug"
        snapshot = version.feedback_snapshot or {}
        counts = dict(snapshot.get("counts") or meta.get("feedback_counts") or {})
        meta["feedback_counts"] = counts
        meta["team"] = snapshot.get("team")  # the consensus policy, contributors and agreement (issue 32)
        meta.setdefault("er", (version.config or {}).get("er") or {})
        meta["metrics_before"] = _metrics_before(db, version)
        meta["metrics_after"] = dict(version.metrics or {}) or meta.get("metrics_after")
        cmp = (version.config or {}).get("comparison")  # controls that ran after it (issue 30 §5)
        if cmp and not meta.get("comparison"):
            meta["comparison"] = followup.summary(cmp)
        card = render_model_card(meta)
    else:
        card = render_base_card(meta, dict(version.metrics or {}))
    lineage = " → ".join(f"v{v.version}" for v in models.lineage(db_session=db, model_version=version))
    card = card.replace(CARD_PLACEHOLDER, repo_id) + (
        f"\n## Provenance\n\n- xmd project: `{project.name}`, model version v{version.version} "
        f"(lineage {lineage})\n- Base model: `{meta.get('base_model')}`\n"
    )
    feedback = projects.feedback_repo(project, repo_id)
    return card if feedback is None else link_feedback_dataset(card, feedback, f"{endpoint}/datasets/{feedback}")


NO_TOKEN = (
    "no Hugging Face token, so nothing was pushed: enter a write token in the push form (create one at "
    "https://huggingface.co/settings/tokens with the 'write' role; it is used once and never stored), or "
    "set HF_TOKEN for the worker and restart it"
)


def _while_not_cancelled(ctx: JobContext, call: Callable[[threading.Event], T], poll_s: float = 0.5) -> T:
    """Run ``call(stop)`` (the upload) in a thread and stop waiting for it as soon as the job is cancelled.

    On a cancel, ``stop`` is set and the job ends at once; the upload, abandoned in its daemon thread,
    reads ``stop`` before it commits, so files still going up are never committed (:func:`_upload`)."""
    box: dict[str, Any] = {}
    stop = threading.Event()

    def run() -> None:
        try:
            box["value"] = call(stop)
        except BaseException as exc:  # handed to the job's thread below
            box["error"] = exc

    thread = threading.Thread(target=run, name=f"push-{ctx.job.id[:8]}", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(poll_s)
        if thread.is_alive() and jobs_store.is_cancel_requested(db_session=ctx.db, job_id=ctx.job.id):
            stop.set()
            raise JobCancelled("cancelled on request during the upload (nothing was committed)")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _upload(api: Any, repo_id: str, operations: list[Any], message: str, description: str) -> Callable[..., Any]:
    """The upload in two steps: the files first (``preupload_lfs_files``: the weights, the long part),
    then, unless ``stop`` was set meanwhile, the one commit that makes them visible. A push cancelled
    during the upload therefore publishes nothing: uploaded objects no commit names are not shown."""

    def upload(stop: threading.Event) -> Any:
        api.preupload_lfs_files(repo_id, additions=operations, free_memory=False)
        if stop.is_set():
            return None
        return api.create_commit(repo_id, operations, commit_message=message, commit_description=description)

    return upload


def start_push(db: Session, enqueue: Enqueue, project: Project, body: PushIn) -> Job:
    """Push a ready version to the Hub; the token is split between the message and a row the worker
    deletes on reading it (:mod:`xmd.jobs.secrets`): neither the job row nor the broker holds it."""
    mv = models.resolve(db_session=db, project=project, version_id=body.version_id)
    secrets = {"hf_token": body.token.get_secret_value()} if body.token is not None else None
    params = {"version_id": mv.id, "repo_id": body.repo_id, "private": body.private}
    return start(db, enqueue, project, PUSH, params, secrets)


def push_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.push``: create the repo if needed, upload the version's folder in one commit."""
    from huggingface_hub import CommitOperationAdd, HfApi

    db, params = ctx.db, ctx.params
    version = models.get_or_raise(db_session=db, model_version_id=int(params["version_id"]))
    if version.status is not ModelStatus.READY:
        raise HubError(f"model version v{version.version} is {version.status.value}; only a ready version is pushed")
    project = projects.get_or_raise(db_session=db, project_id=version.project_id)
    try:
        folder = models.files_of(ctx.settings, version)
    except StorageError as exc:
        raise HubError(f"model version v{version.version} has no files to push: {exc}") from None
    repo_id = str(params["repo_id"]).strip()
    token = ctx.secrets.get("hf_token") or os.environ.get("HF_TOKEN")
    if not token:
        raise HubError(NO_TOKEN)
    endpoint = ctx.settings.hf_endpoint or os.environ.get("HF_ENDPOINT") or HF_URL
    card = model_card(db, project, version, repo_id, folder, endpoint.rstrip("/"))
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.relative_to(folder).as_posix() != "README.md")
    operations = [CommitOperationAdd(path_in_repo=p.relative_to(folder).as_posix(), path_or_fileobj=p) for p in files]
    operations.append(CommitOperationAdd(path_in_repo="README.md", path_or_fileobj=card.encode()))
    db.commit()  # no transaction stays open during the upload
    api = HfApi(endpoint=endpoint, token=token)
    with in_words(endpoint, repo_id):
        ctx.check_cancel()
        repo_url = api.create_repo(repo_id, private=bool(params.get("private", False)), exist_ok=True)
        if ctx.progress(10.0):
            raise JobCancelled("cancelled on request before the upload")
        message = f"xmd: {project.name} model version v{version.version}"
        description = f"Pushed by xmd from project {project.name!r}, version v{version.version} ({version.kind.value})."
        info = _while_not_cancelled(ctx, _upload(api, repo_id, operations, message, description))
        if info is None:
            raise JobCancelled("cancelled on request during the upload (nothing was committed)")
    return {"repo_id": repo_url.repo_id, "url": str(repo_url), "commit": info.oid}


kinds.register(PUSH, push_job, secrets=True)
