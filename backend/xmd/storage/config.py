"""Which version store a process uses: one URL and a few cache settings, and one factory.

``xmd.config.Settings`` reads the variables (it is the only reader of the environment) and builds
a :class:`StorageConfig` from them (``settings.storage``). ``XMD_STORAGE``: ``file:///srv/xmd/models``
(or a plain path) for a folder, the default being ``<XMD_DATA_DIR>/models``; ``s3://bucket/prefix``
for an S3-compatible bucket, with ``XMD_S3_ENDPOINT_URL`` for a service other than AWS (MinIO,
Ceph, R2, …) and ``XMD_S3_REGION``. Remote versions are cached for loading under ``XMD_STORAGE_CACHE_DIR`` (default
``<XMD_DATA_DIR>/version-cache``), at most ``XMD_STORAGE_CACHE_MB`` (default 20 GiB).
Credentials are never part of this configuration: boto3 reads them from its standard chain.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from xmd.config import DEFAULT_CACHE_MB
from xmd.storage.base import VersionStore
from xmd.storage.cache import VersionCache
from xmd.storage.local import LocalStore
from xmd.storage.s3 import S3Store, check_endpoint


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
