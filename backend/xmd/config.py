"""Service settings, read once from the environment (``XMD_*``) so API, workers and CLI agree.

Defaults give the demo set-up: SQLite and an embedded broker under one data directory, no servers.
Production sets ``XMD_DATABASE_URL`` (PostgreSQL) and ``XMD_BROKER_URL`` (Redis).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the store's modules import the core's error types (and so torch): only when used
    from xmd.storage.config import StorageConfig

DEFAULT_CACHE_MB = 20 * 1024
"""Size cap of a machine's cache of versions fetched from a bucket (``XMD_STORAGE_CACHE_MB``)."""


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from exc


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc


def _bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    return raw.strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class Settings:
    """Everything the service is configured by; ``Settings.from_env()`` is the only reader of env."""

    data_dir: Path = field(default_factory=lambda: Path("xmd-data").resolve())
    database_url: str | None = None
    broker_url: str | None = None
    result_backend: str | None = None
    max_upload_mb: int = 200
    max_text_chars: int = 20_000
    max_unpacked_mb: int = 4096
    """What one uploaded model archive may unpack to (besides a cap on the compression ratio)."""
    allow_local_model_paths: bool = False
    """May project requests name folders on the server (``xmd serve --demo`` turns it on)."""
    local_model_root: Path | None = None
    """With local paths allowed: the folder they must lie in (None: anywhere the server can read)."""
    device: str = "auto"
    hf_endpoint: str | None = None
    default_queue: str = "celery"
    retrain_queue: str = "celery"
    heartbeat_s: float = 10.0
    stale_after_s: float = 180.0
    visibility_timeout_s: int = 6 * 3600
    explain_fanout: int = 4
    storage_url: str | None = None
    s3_endpoint_url: str | None = None
    s3_region: str | None = None
    storage_cache_dir: Path | None = None
    storage_cache_mb: int = DEFAULT_CACHE_MB
    statement_timeout_ms: int = 30_000
    """PostgreSQL: the longest one API statement may run before it is cancelled (0 = no limit)."""
    regex_searches_per_user: int = 2
    """Regex searches one user may run at once; more get 429."""
    import_sync_rows: int = 5_000
    """A feedback import from a rationale column of a larger dataset runs as a job, not in the request."""
    event_streams_per_user: int = 20
    """Job event streams (``/api/jobs/{id}/events``) one user may hold open at once; more get 429."""

    def __post_init__(self) -> None:
        if not 0 < self.heartbeat_s < self.stale_after_s:
            raise ValueError(
                f"XMD_HEARTBEAT_S ({self.heartbeat_s}) must be positive and below XMD_STALE_AFTER_S "
                f"({self.stale_after_s}), or live jobs would be failed as stale"
            )
        self.storage  # noqa: B018 - a bad XMD_STORAGE* value fails at start, not at the first retrain

    @classmethod
    def from_env(cls) -> Settings:
        data_dir = Path(os.environ.get("XMD_DATA_DIR") or "xmd-data").expanduser().resolve()
        cache_dir = os.environ.get("XMD_STORAGE_CACHE_DIR")
        return cls(
            data_dir=data_dir,
            database_url=os.environ.get("XMD_DATABASE_URL") or None,
            broker_url=os.environ.get("XMD_BROKER_URL") or None,
            result_backend=os.environ.get("XMD_RESULT_BACKEND") or None,
            max_upload_mb=_int("XMD_MAX_UPLOAD_MB", 200),
            max_text_chars=_int("XMD_MAX_TEXT_CHARS", 20_000),
            max_unpacked_mb=_int("XMD_MAX_UNPACKED_MB", 4096),
            allow_local_model_paths=_bool("XMD_ALLOW_LOCAL_MODEL_PATHS", False),
            local_model_root=Path(os.environ["XMD_LOCAL_MODEL_ROOT"]).expanduser()
            if os.environ.get("XMD_LOCAL_MODEL_ROOT")
            else None,
            device=os.environ.get("XMD_DEVICE") or "auto",
            hf_endpoint=os.environ.get("HF_ENDPOINT") or None,
            default_queue=os.environ.get("XMD_DEFAULT_QUEUE") or "celery",
            retrain_queue=os.environ.get("XMD_RETRAIN_QUEUE") or os.environ.get("XMD_DEFAULT_QUEUE") or "celery",
            heartbeat_s=_float("XMD_HEARTBEAT_S", 10.0),
            stale_after_s=_float("XMD_STALE_AFTER_S", 180.0),
            visibility_timeout_s=_int("XMD_VISIBILITY_TIMEOUT_S", 6 * 3600),
            explain_fanout=_int("XMD_EXPLAIN_FANOUT", 4),
            storage_url=os.environ.get("XMD_STORAGE") or None,
            s3_endpoint_url=os.environ.get("XMD_S3_ENDPOINT_URL") or None,
            s3_region=os.environ.get("XMD_S3_REGION") or None,
            storage_cache_dir=Path(cache_dir).expanduser().resolve() if cache_dir else None,
            storage_cache_mb=_int("XMD_STORAGE_CACHE_MB", DEFAULT_CACHE_MB),
            statement_timeout_ms=_int("XMD_STATEMENT_TIMEOUT_MS", 30_000),
            regex_searches_per_user=_int("XMD_REGEX_SEARCHES_PER_USER", 2),
            event_streams_per_user=_int("XMD_EVENT_STREAMS_PER_USER", 20),
            import_sync_rows=_int("XMD_IMPORT_SYNC_ROWS", 5_000),
        )

    def to_env(self) -> dict[str, str]:
        """The ``XMD_*`` variables that make :meth:`from_env` rebuild these settings in another process
        (how ``workers.launch`` hands them to a worker it starts)."""
        env = {
            "XMD_DATA_DIR": str(self.data_dir),
            "XMD_MAX_UPLOAD_MB": str(self.max_upload_mb),
            "XMD_MAX_TEXT_CHARS": str(self.max_text_chars),
            "XMD_MAX_UNPACKED_MB": str(self.max_unpacked_mb),
            "XMD_ALLOW_LOCAL_MODEL_PATHS": "1" if self.allow_local_model_paths else "0",
            "XMD_DEVICE": self.device,
            "XMD_DEFAULT_QUEUE": self.default_queue,
            "XMD_RETRAIN_QUEUE": self.retrain_queue,
            "XMD_HEARTBEAT_S": repr(self.heartbeat_s),
            "XMD_STALE_AFTER_S": repr(self.stale_after_s),
            "XMD_VISIBILITY_TIMEOUT_S": str(self.visibility_timeout_s),
            "XMD_EXPLAIN_FANOUT": str(self.explain_fanout),
            "XMD_STORAGE_CACHE_MB": str(self.storage_cache_mb),
            "XMD_STATEMENT_TIMEOUT_MS": str(self.statement_timeout_ms),
            "XMD_REGEX_SEARCHES_PER_USER": str(self.regex_searches_per_user),
            "XMD_EVENT_STREAMS_PER_USER": str(self.event_streams_per_user),
            "XMD_IMPORT_SYNC_ROWS": str(self.import_sync_rows),
        }
        optional = {
            "XMD_STORAGE": self.storage_url,
            "XMD_S3_ENDPOINT_URL": self.s3_endpoint_url,
            "XMD_S3_REGION": self.s3_region,
            "XMD_STORAGE_CACHE_DIR": str(self.storage_cache_dir) if self.storage_cache_dir else None,
            "XMD_DATABASE_URL": self.database_url,
            "XMD_BROKER_URL": self.broker_url,
            "XMD_RESULT_BACKEND": self.result_backend,
            "HF_ENDPOINT": self.hf_endpoint,
            "XMD_LOCAL_MODEL_ROOT": str(self.local_model_root) if self.local_model_root else None,
        }
        env.update({k: v for k, v in optional.items() if v})
        return env

    @property
    def models_dir(self) -> Path:
        """Where model versions live unless ``XMD_STORAGE`` names another place: one folder per version."""
        return self.data_dir / "models"

    @property
    def storage(self) -> StorageConfig:
        """The version store's configuration (``xmd.versions.service.store_of`` opens it); holds no secret."""
        from xmd.storage.config import StorageConfig

        return StorageConfig(
            url=self.storage_url or self.models_dir.as_uri(),
            s3_endpoint_url=self.s3_endpoint_url,
            s3_region=self.s3_region,
            cache_dir=self.storage_cache_dir or self.data_dir / "version-cache",
            cache_max_mb=self.storage_cache_mb,
        )

    @property
    def uploads_dir(self) -> Path:
        return self.data_dir / "uploads"

    @property
    def effective_broker_url(self) -> str:
        """Redis when configured; else an embedded SQLite-backed kombu transport in the data dir."""
        return self.broker_url or f"sqla+sqlite:///{self.data_dir / 'broker.db'}"

    @property
    def effective_result_backend(self) -> str:
        return self.result_backend or f"db+sqlite:///{self.data_dir / 'results.db'}"
