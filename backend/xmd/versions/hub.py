"""Push a model version to the Hugging Face Hub (or any Hub-compatible endpoint) in one commit.

The pushed folder is the version's directory as it is on disk, except ``README.md``, which is
rendered again at push time: the model card then carries what the store knows by now (metrics of
later evaluations, the feedback snapshot with its words) and the repo id in its loading snippet.
All files go in a single ``create_commit``: the repo never shows a half-uploaded model.

The token comes from the message (``secrets["hf_token"]``, never stored) or the worker's ``HF_TOKEN``;
it is passed to ``HfApi`` explicitly and scrubbed from any error text.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from xmd.core.modelcard import CARD_PLACEHOLDER, render_base_card, render_model_card
from xmd.core.types import XMDError
from xmd.jobs.context import JobContext
from xmd.projects import service as projects
from xmd.projects.models import Project
from xmd.versions import service as models
from xmd.versions.models import ModelKind, ModelStatus, ModelVersion


class HubError(XMDError):
    """A push failed for a reason the user can fix (token, permissions, repo name, endpoint)."""


def _metrics_before(db: Session, version: ModelVersion) -> dict | None:
    before = (version.config or {}).get("metrics_before")
    if before:
        return before
    if version.parent_id is not None:
        parent = models.get(db_session=db, model_version_id=version.parent_id)
        return dict(parent.metrics) if parent is not None and parent.metrics else None
    return None


def model_card(db: Session, project: Project, version: ModelVersion, repo_id: str) -> str:
    """README.md for the pushed folder: base model, feedback used (counts by kind, top removed/added
    words), ER loss and λ, metrics before/after per eval set, and how to load it from ``repo_id``."""
    meta_file = Path(version.path) / "xmd.json"
    meta: dict[str, Any] = json.loads(meta_file.read_text()) if meta_file.is_file() else {}
    meta["name"] = f"{project.name} — v{version.version}"
    meta.setdefault("labels", list(project.labels))
    meta.setdefault("base_model", project.model_source)
    if version.kind is ModelKind.DEBUGGED:
        meta["kind"] = "debug"
        snapshot = version.feedback_snapshot or {}
        counts = dict(snapshot.get("counts") or meta.get("feedback_counts") or {})
        meta["feedback_counts"] = counts
        meta.setdefault("er", (version.config or {}).get("er") or {})
        meta["metrics_before"] = _metrics_before(db, version)
        meta["metrics_after"] = dict(version.metrics or {}) or meta.get("metrics_after")
        card = render_model_card(meta)
    else:
        card = render_base_card(meta, dict(version.metrics or {}))
    lineage = " → ".join(f"v{v.version}" for v in models.lineage(db_session=db, model_version=version))
    card = card.replace(CARD_PLACEHOLDER, repo_id)
    return card + (
        f"\n## Provenance\n\n- xmd project: `{project.name}`, model version v{version.version} "
        f"(lineage {lineage})\n- Base model: `{meta.get('base_model')}`\n"
    )


def _explain_http_error(exc: Exception, endpoint: str) -> HubError:
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status == 401:
        return HubError(
            f"the Hugging Face token was rejected by {endpoint} (HTTP 401): give a valid token with write access "
            f"(in the push request, or HF_TOKEN on the worker); nothing was pushed"
        )
    if status == 403:
        return HubError(
            f"the Hugging Face token may not write to this repository at {endpoint} (HTTP 403); nothing was pushed"
        )
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return HubError(f"push to {endpoint} failed ({status or 'no response'}): {first}")


def push_job(ctx: JobContext) -> dict[str, Any]:
    """Body of ``xmd.push``: create the repo if needed, upload the version's folder in one commit."""
    from huggingface_hub import CommitOperationAdd, HfApi
    from huggingface_hub.errors import HfHubHTTPError, HFValidationError

    db, params = ctx.db, ctx.params
    version = models.get_or_raise(db_session=db, model_version_id=int(params["version_id"]))
    if version.status is not ModelStatus.READY:
        raise HubError(f"model version v{version.version} is {version.status.value}; only a ready version is pushed")
    project = projects.get_or_raise(db_session=db, project_id=version.project_id)
    folder = Path(version.path)
    if not folder.is_dir():
        raise HubError(f"model version v{version.version} has no local directory ({folder}) to push")
    repo_id = str(params["repo_id"]).strip()
    token = ctx.secrets.get("hf_token") or os.environ.get("HF_TOKEN")
    if not token:
        raise HubError("no Hugging Face token: send one with the push request or set HF_TOKEN on the worker")
    endpoint = ctx.settings.hf_endpoint or os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    card = model_card(db, project, version, repo_id)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.relative_to(folder).as_posix() != "README.md")
    operations = [CommitOperationAdd(path_in_repo=p.relative_to(folder).as_posix(), path_or_fileobj=p) for p in files]
    operations.append(CommitOperationAdd(path_in_repo="README.md", path_or_fileobj=card.encode()))
    db.commit()  # no transaction stays open during the upload
    api = HfApi(endpoint=endpoint, token=token)
    try:
        repo_url = api.create_repo(repo_id, private=bool(params.get("private", False)), exist_ok=True)
        ctx.progress(10.0)
        info = api.create_commit(
            repo_id,
            operations,
            commit_message=f"xmd: {project.name} model version v{version.version}",
            commit_description=f"Pushed by xmd from project {project.name!r}, version v{version.version} "
            f"({version.kind.value}).",
        )
    except HFValidationError as exc:
        raise HubError(f"invalid repository id {repo_id!r}: {exc}") from None
    except HfHubHTTPError as exc:
        raise _explain_http_error(exc, endpoint) from None
    except OSError as exc:  # connection refused, DNS, TLS: the endpoint is unreachable
        raise HubError(f"could not reach the Hub at {endpoint}: {exc}") from None
    return {"repo_id": repo_url.repo_id, "url": str(repo_url), "commit": info.oid}
