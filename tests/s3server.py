"""A real S3-compatible HTTP server on loopback for tests: ``moto`` in server mode, in its own process.

No S3 service (AWS, MinIO, Ceph) can run or be reached here, so this is the stand-in: the store talks
to it with boto3 over HTTP exactly as it would to a real endpoint (signing, multipart, conditional
writes, listing pages). Credentials are throw-away values moto accepts; the secret is a recognisable
sentinel so tests can check it never reaches a log, a message or a ``repr``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from dataclasses import dataclass

SECRET = "xmd-sentinel-secret-6f1c0b2e9d"
ACCESS_KEY = "XMDTESTACCESSKEY"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class S3Server:
    """A running moto server; ``env`` holds the variables a client process needs to reach it."""

    process: subprocess.Popen[bytes]
    endpoint_url: str

    @property
    def env(self) -> dict[str, str]:
        return {
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_DEFAULT_REGION": "us-east-1",
            "XMD_S3_ENDPOINT_URL": self.endpoint_url,
        }

    def client(self):  # type: ignore[no-untyped-def]
        """A plain boto3 client on the server, for arranging and inspecting what the store did."""
        import boto3

        return boto3.session.Session(
            aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET, region_name="us-east-1"
        ).client("s3", endpoint_url=self.endpoint_url)

    def new_bucket(self) -> str:
        name = f"xmd-test-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def start_s3_server(timeout_s: float = 60.0) -> S3Server:
    """Start ``python -m moto.server`` on a free loopback port and wait until it answers."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the moto S3 server exited with {process.returncode} before answering")
        try:
            with urllib.request.urlopen(f"{url}/moto-api/", timeout=2):
                return S3Server(process, url)
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"the moto S3 server on {url} did not answer within {timeout_s:.0f} s") from None
            time.sleep(0.2)
