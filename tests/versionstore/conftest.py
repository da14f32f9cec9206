"""Version-store fixtures: every contract test runs on a LocalStore and on an S3Store that talks to a
real S3-compatible server (moto in server mode on loopback, see ``tests/s3server.py``: no S3 service
can run here, so this is the stand-in)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))
sys.path.insert(0, str(Path(__file__).parent))

from s3server import S3Server, start_s3_server
from xmd.storage import LocalStore, S3Store, VersionCache, VersionStore


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    server = start_s3_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def s3_env(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> S3Server:
    """Credentials in the environment, where boto3's standard chain finds them (as in production)."""
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in s3_server.env.items():
        monkeypatch.setenv(name, value)
    return s3_server


@pytest.fixture()
def make_s3(s3_env: S3Server, tmp_path: Path) -> Callable[..., S3Store]:
    """S3Stores on one fresh bucket; each call is another "machine" with its own cache folder."""
    bucket = s3_env.new_bucket()
    made = 0

    def make(cache_bytes: int = 1 << 30, cache_dir: Path | None = None, prefix: str = "xmd/models") -> S3Store:
        nonlocal made
        made += 1
        cache = VersionCache(cache_dir or tmp_path / f"cache-{made}", cache_bytes)
        return S3Store(bucket, prefix, cache=cache, endpoint_url=s3_env.endpoint_url)

    return make


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> VersionStore:
    if request.param == "local":
        return LocalStore(tmp_path / "models")
    return request.getfixturevalue("make_s3")()
