"""Which version store a process uses: one URL and a few cache settings, and one factory.

``XMD_STORAGE``: ``file:///srv/xmd/models`` (or a plain path) for a folder, the default being
``<XMD_DATA_DIR>/models``; ``s3://bucket/prefix`` for an S3-compatible bucket, with
``XMD_S3_ENDPOINT_URL`` for a service other than AWS (MinIO, Ceph, R2, …) and ``XMD_S3_REGION``.
Remote versions are cached for loading under ``XMD_STORAGE_CACHE_DIR`` (default
``<XMD_DATA_DIR>/version-cache``), at most ``XMD_STORAGE_CACHE_MB`` (default 20 GiB).
Credentials are never part of this configuration: boto3 reads them from its standard chain.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from xmd.storage.base import VersionStore
from xmd.storage.cache import VersionCache
from xmd.storage.local import LocalStore
from xmd.storage.s3 import S3Store, check_endpoint

DEFAULT_CACHE_MB = 20 * 1024


@dataclass(frozen=True)
class StorageConfig:
    """Everything that picks and shapes the version store; holds no secret, so it is safe to log."""

    url: str
    s3_endpoint_url: str | None = None
    s3_region: str | None = None
    cache_dir: Path = Path("xmd-data/version-cache")
    cache_max_mb: int = DEFAULT_CACHE_MB

    def __post_init__(self) -> None:
        check_endpoint(self.s3_endpoint_url)
        if self.cache_max_mb <= 0:
            raise ValueError(f"XMD_STORAGE_CACHE_MB must be positive, got {self.cache_max_mb}")
        scheme = urlsplit(self.url).scheme
        if scheme not in ("", "file", "s3"):
            raise ValueError(f"XMD_STORAGE must be a folder, file:///path or s3://bucket/prefix, not {scheme}://")

    @classmethod
    def from_env(cls, data_dir: Path, env: Mapping[str, str] | None = None) -> StorageConfig:
        env = os.environ if env is None else env
        data_dir = Path(data_dir).expanduser().resolve()
        raw_mb = env.get("XMD_STORAGE_CACHE_MB") or ""
        try:
            cache_mb = int(raw_mb) if raw_mb else DEFAULT_CACHE_MB
        except ValueError as exc:
            raise ValueError(f"XMD_STORAGE_CACHE_MB must be an integer, got {raw_mb!r}") from exc
        return cls(
            url=env.get("XMD_STORAGE") or (data_dir / "models").as_uri(),
            s3_endpoint_url=env.get("XMD_S3_ENDPOINT_URL") or None,
            s3_region=env.get("XMD_S3_REGION") or None,
            cache_dir=Path(env.get("XMD_STORAGE_CACHE_DIR") or data_dir / "version-cache").expanduser().resolve(),
            cache_max_mb=cache_mb,
        )

    def to_env(self) -> dict[str, str]:
        """The variables that rebuild this configuration in another process (a worker being launched)."""
        env = {
            "XMD_STORAGE": self.url,
            "XMD_STORAGE_CACHE_DIR": str(self.cache_dir),
            "XMD_STORAGE_CACHE_MB": str(self.cache_max_mb),
        }
        if self.s3_endpoint_url:
            env["XMD_S3_ENDPOINT_URL"] = self.s3_endpoint_url
        if self.s3_region:
            env["XMD_S3_REGION"] = self.s3_region
        return env


def open_store(config: StorageConfig) -> VersionStore:
    """The one factory: a LocalStore for a folder URL, an S3Store for ``s3://bucket/prefix``."""
    parts = urlsplit(config.url)
    if parts.scheme in ("", "file"):
        if parts.netloc not in ("", "localhost"):
            raise ValueError("XMD_STORAGE file:// URLs name a local folder: file:///path")
        path = unquote(parts.path)
        if not path:
            raise ValueError("XMD_STORAGE names no folder")
        return LocalStore(path)
    if not parts.netloc:
        raise ValueError("XMD_STORAGE s3:// URLs need a bucket: s3://bucket/prefix")
    if parts.username or parts.password or parts.query:
        raise ValueError("XMD_STORAGE must not carry credentials or options; use s3://bucket/prefix")
    return S3Store(
        parts.netloc,
        parts.path.strip("/"),
        cache=VersionCache(config.cache_dir, config.cache_max_mb * 1024 * 1024),
        endpoint_url=config.s3_endpoint_url,
        region=config.s3_region,
    )


@lru_cache(maxsize=8)
def shared_store(config: StorageConfig) -> VersionStore:
    """The process's store for ``config``: one client (and connection pool) reused by every request
    and job, instead of one per call."""
    return open_store(config)
