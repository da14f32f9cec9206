"""S3Store: versions in an S3-compatible bucket, so API and workers on different machines share them.

Layout under ``s3://bucket/prefix``: a version ``p3/v2`` is its files under ``p3/v2/.data-<upload>/``
plus a manifest ``p3/v2/.xmd-version.json`` (file list, sizes, SHA-256, upload id). The manifest is
written last with ``If-None-Match: *``, so it is the commit: a version without one does not exist, a
failed put deletes its own data objects (anything it leaves behind is invisible), and of two racing
writers exactly one commits — the other gets ``VersionExistsError`` and removes its upload.

Credentials come only from boto3's standard chain (environment, shared config/profile, instance or
container role); the store takes none as arguments, refuses an endpoint URL with credentials in it,
and names only the bucket, prefix and endpoint in messages and logs.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import uuid
from contextlib import AbstractContextManager, closing
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, cast
from urllib.parse import urlsplit

from xmd.storage.base import (
    StorageError,
    StoredFile,
    VersionExistsError,
    VersionNotFoundError,
    VersionStore,
    check_key,
    check_prefix,
    check_relpath,
    scan_dir,
)
from xmd.storage.cache import VersionCache

log = logging.getLogger(__name__)
MANIFEST = ".xmd-version.json"
DATA = ".data-"
ORPHAN_AFTER_S = 3600.0
"""Uploads without a manifest older than this are a dead writer's leftovers, removed by ``delete``."""
_CHUNK = 1 << 20
_MISSING = ("404", "NoSuchKey", "NotFound")
_TAKEN = ("412", "PreconditionFailed", "ConditionalRequestConflict")


def check_endpoint(endpoint_url: str | None) -> str | None:
    """``endpoint_url`` if it is a plain http(s) URL; one carrying credentials is refused without
    echoing it (it would otherwise end up in a log)."""
    if not endpoint_url:
        return None
    parts = urlsplit(endpoint_url)
    if parts.username or parts.password or "@" in parts.netloc:
        raise ValueError(
            "XMD_S3_ENDPOINT_URL must not carry credentials; give them through AWS_ACCESS_KEY_ID/"
            "AWS_SECRET_ACCESS_KEY, AWS_PROFILE or an instance role"
        )
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError("XMD_S3_ENDPOINT_URL must be an http(s)://host[:port] URL")
    return endpoint_url.rstrip("/")


def _code(exc: Exception) -> str:
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code") or response.get("ResponseMetadata", {}).get("HTTPStatusCode"))


def _sha256(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


class S3Store(VersionStore):
    """Versions in ``s3://bucket/prefix`` (any S3-compatible service via ``endpoint_url``); reads for
    loading go through ``cache``, a size-capped local folder."""

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        *,
        cache: VersionCache,
        endpoint_url: str | None = None,
        region: str | None = None,
    ) -> None:
        if not bucket or "/" in bucket:
            raise ValueError("an S3 store needs a bucket name, as in s3://bucket/prefix")
        self.bucket = bucket
        self.prefix = check_prefix(prefix)
        self.endpoint_url = check_endpoint(endpoint_url)
        self.region = region
        self.cache = cache
        self.url = f"s3://{bucket}/{self.prefix}".rstrip("/")
        self._client: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"S3Store({self.url!r}, endpoint_url={self.endpoint_url!r}, cache={str(self.cache.root)!r})"

    @property
    def client(self) -> Any:
        """The boto3 S3 client, made on first use (so building a store needs no network or credentials)."""
        with self._lock:
            if self._client is None:
                try:
                    import boto3
                    from botocore.config import Config
                except ImportError as exc:  # pragma: no cover - the dev install has boto3
                    raise StorageError("an s3:// store needs boto3: pip install 'xmd[s3]'") from exc
                config = Config(
                    s3={"addressing_style": "path"} if self.endpoint_url else {},
                    retries={"max_attempts": 5, "mode": "standard"},
                    connect_timeout=10,
                    read_timeout=120,
                    # S3-compatible services (MinIO, Ceph, …) do not all accept the newer default checksums.
                    request_checksum_calculation="when_required",
                    response_checksum_validation="when_required",
                )
                session = boto3.session.Session()
                self._client = session.client(
                    "s3", endpoint_url=self.endpoint_url, region_name=self.region, config=config
                )
            return self._client

    def location(self, key: str) -> str:
        return f"{self.url}/{check_key(key)}"

    def key_at(self, location: str) -> str | None:
        if not location.startswith(f"{self.url}/"):
            return None
        try:
            return check_key(location[len(self.url) + 1 :])
        except StorageError:
            return None

    def _scratch(self, key: str) -> Path:
        """Under the cache folder (local disk), named so the cache's sweep of dead staging removes it."""
        scratch = self.cache.root / f".tmp-build-{uuid.uuid4().hex}"
        scratch.mkdir(parents=True)
        return scratch

    def _name(self, *parts: str) -> str:
        return "/".join(p for p in (self.prefix, *parts) if p)

    def _fail(self, what: str, key: str, exc: Exception) -> StorageError:
        """A StorageError naming the operation and the service's error code, never its full message
        or the request (which carry signatures and key ids)."""
        if type(exc).__name__ == "NoCredentialsError":
            return StorageError(f"{what} {key} in {self.url}: no S3 credentials found (set AWS_* or a profile)")
        return StorageError(f"{what} {key} in {self.url} failed: {_code(exc) or type(exc).__name__}")

    @staticmethod
    def _errors() -> tuple[type[Exception], ...]:
        """botocore's error types (none when boto3 is missing: then the client already failed)."""
        try:
            from botocore.exceptions import BotoCoreError, ClientError
        except ImportError:  # pragma: no cover - the dev install has boto3
            return ()
        return (ClientError, BotoCoreError)

    def _manifest(self, key: str) -> dict[str, Any]:
        try:
            body = self.client.get_object(Bucket=self.bucket, Key=self._name(check_key(key), MANIFEST))["Body"]
            with closing(body):
                manifest = json.loads(body.read())
        except self._errors() as exc:
            if _code(exc) in _MISSING:
                raise VersionNotFoundError(f"no version {key} in {self.url}") from exc
            raise self._fail("reading", key, exc) from exc
        for entry in manifest.get("files", []):
            check_relpath(entry["path"])
        return cast(dict[str, Any], manifest)

    def exists(self, key: str) -> bool:
        try:
            self.client.head_object(Bucket=self.bucket, Key=self._name(check_key(key), MANIFEST))
        except self._errors() as exc:
            if _code(exc) in _MISSING:
                return False
            raise self._fail("checking", key, exc) from exc
        return True

    def put(self, key: str, src: Path, *, move: bool = False) -> None:
        """Upload ``src`` (``move`` changes nothing here: the local folder is the caller's to remove)."""
        check_key(key)
        files = scan_dir(Path(src))
        if self.exists(key):
            raise VersionExistsError(f"version {key} already exists in {self.url}; versions are never overwritten")
        upload = uuid.uuid4().hex
        data = self._name(key, f"{DATA}{upload}")
        sent: list[str] = []
        try:
            entries = []
            for rel, path, _ in files:
                digest, size = _sha256(path)
                name = f"{data}/{rel}"
                sent.append(name)
                self._upload_file(path, name)
                entries.append({"path": rel, "size": size, "sha256": digest})
            manifest = {
                "format": 1,
                "key": key,
                "upload": upload,
                "created": datetime.now(timezone.utc).isoformat(),
                "files": entries,
            }
            self.client.put_object(
                Bucket=self.bucket,
                Key=self._name(key, MANIFEST),
                Body=json.dumps(manifest, indent=1).encode(),
                ContentType="application/json",
                IfNoneMatch="*",
            )
        except BaseException as exc:
            self._remove(sent)
            if isinstance(exc, self._errors()):
                if _code(exc) in _TAKEN:
                    raise VersionExistsError(
                        f"version {key} already exists in {self.url}; versions are never overwritten"
                    ) from exc
                raise self._fail("storing", key, exc) from exc
            raise
        log.info("stored version %s in %s (%d files)", key, self.url, len(entries))

    def _upload_file(self, path: Path, name: str) -> None:
        """One data object (multipart for big weights, via boto3's transfer manager)."""
        from boto3.exceptions import S3UploadFailedError

        try:
            self.client.upload_file(str(path), self.bucket, name)
        except S3UploadFailedError as exc:  # boto3 wraps the service's error; callers want the original
            if isinstance(exc.__context__, self._errors()):
                raise exc.__context__ from None
            raise

    def _remove(self, names: list[str]) -> None:
        """Best-effort removal of objects (a failed put's upload); what stays is invisible anyway."""
        for i in range(0, len(names), 1000):
            batch = [{"Key": n} for n in names[i : i + 1000]]
            try:
                self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": batch, "Quiet": True})
            except Exception as exc:  # cleanup must not hide the original error
                log.warning("could not remove %d leftover objects from %s: %s", len(batch), self.url, _code(exc))

    def _objects(self, prefix: str) -> list[dict[str, Any]]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix)
        return [obj for page in pages for obj in page.get("Contents", [])]

    def list(self, prefix: str = "") -> list[str]:
        prefix = check_prefix(prefix)
        root = self._name(prefix)
        root = f"{root}/" if root else ""
        start = len(self._name()) + 1 if self.prefix else 0
        found = []
        try:
            objects = self._objects(root)
        except self._errors() as exc:
            raise self._fail("listing", prefix or "versions", exc) from exc
        for obj in objects:
            name = obj["Key"]
            if not name.endswith(f"/{MANIFEST}"):
                continue
            candidate = name[start : -len(MANIFEST) - 1]
            try:
                found.append(check_key(candidate))  # a manifest-named file inside .data-… gives no key
            except StorageError:
                continue
        return sorted(found)

    def files(self, key: str) -> list[StoredFile]:
        manifest = self._manifest(key)
        return sorted((StoredFile(e["path"], int(e["size"])) for e in manifest["files"]), key=lambda f: f.path)

    def _open(self, key: str, upload: str, relpath: str) -> AbstractContextManager[BinaryIO]:
        try:
            body = self.client.get_object(Bucket=self.bucket, Key=self._name(key, f"{DATA}{upload}", relpath))["Body"]
        except self._errors() as exc:
            if _code(exc) in _MISSING:
                raise VersionNotFoundError(f"no file {relpath} in version {key} of {self.url}") from exc
            raise self._fail("reading", key, exc) from exc
        return cast(AbstractContextManager[BinaryIO], closing(body))

    def open(self, key: str, relpath: str) -> AbstractContextManager[BinaryIO]:
        manifest = self._manifest(key)
        if check_relpath(relpath) not in {e["path"] for e in manifest["files"]}:
            raise VersionNotFoundError(f"no file {relpath} in version {key} of {self.url}")
        return self._open(key, manifest["upload"], relpath)

    def iter_files(self, key: str):  # type: ignore[no-untyped-def]
        """One manifest read for the whole version (the base class reads it per file)."""
        manifest = self._manifest(key)
        for e in sorted(manifest["files"], key=lambda e: e["path"]):
            yield StoredFile(e["path"], int(e["size"])), self._open(key, manifest["upload"], e["path"])

    def materialise(self, key: str) -> Path:
        """The version in this machine's cache, downloaded (and checked against the manifest's
        SHA-256) on a miss; the manifest is read every time, so a deleted version is never served."""
        manifest = self._manifest(key)
        return self.cache.get(key, manifest["upload"], lambda dest: self._download(key, manifest, dest))

    def _download(self, key: str, manifest: dict[str, Any], dest: Path) -> None:
        for entry in manifest["files"]:
            target = dest.joinpath(*entry["path"].split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            digest, size = hashlib.sha256(), 0
            try:
                with self._open(key, manifest["upload"], entry["path"]) as body, open(target, "wb") as out:
                    while chunk := body.read(_CHUNK):
                        digest.update(chunk)
                        size += len(chunk)
                        out.write(chunk)
            except self._errors() as exc:
                raise self._fail("downloading", key, exc) from exc
            if size != entry["size"] or digest.hexdigest() != entry["sha256"]:
                raise StorageError(f"file {entry['path']} of version {key} in {self.url} does not match its manifest")

    def delete(self, key: str) -> bool:
        """Remove the manifest first (the version vanishes at once), then its data and dead uploads'
        leftovers; uploads younger than an hour may be a live writer's and are left alone."""
        try:
            manifest = self._manifest(key)
        except VersionNotFoundError:
            manifest = None
        try:
            if manifest is not None:
                self.client.delete_object(Bucket=self.bucket, Key=self._name(key, MANIFEST))
            cutoff = time.time() - ORPHAN_AFTER_S
            mine = self._name(key, f"{DATA}{manifest['upload']}/") if manifest else None
            doomed = [
                o["Key"]
                for o in self._objects(self._name(key, DATA))
                if (mine and o["Key"].startswith(mine)) or o["LastModified"].timestamp() < cutoff
            ]
        except self._errors() as exc:
            raise self._fail("deleting", key, exc) from exc
        self._remove(doomed)
        self.cache.drop(key)
        if manifest is not None:
            log.info("deleted version %s from %s", key, self.url)
        return manifest is not None
