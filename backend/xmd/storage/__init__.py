"""Pluggable storage of model versions: a local folder by default, an S3-compatible bucket to share
versions between machines. ``shared_store(settings.storage)`` opens the one configured."""

from xmd.storage.base import (
    InvalidKeyError,
    StorageError,
    StoredFile,
    VersionExistsError,
    VersionNotFoundError,
    VersionStore,
    version_key,
)
from xmd.storage.cache import VersionCache
from xmd.storage.config import StorageConfig, open_store, shared_store
from xmd.storage.local import LocalStore
from xmd.storage.s3 import S3Store

__all__ = [
    "InvalidKeyError",
    "LocalStore",
    "S3Store",
    "StorageConfig",
    "StorageError",
    "StoredFile",
    "VersionCache",
    "VersionExistsError",
    "VersionNotFoundError",
    "VersionStore",
    "open_store",
    "shared_store",
    "version_key",
]
