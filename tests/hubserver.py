"""A Hub-compatible HTTP server on loopback, for tests: no real Hugging Face Hub is reachable here.

It implements just the endpoints ``huggingface_hub`` (and ``transformers.from_pretrained`` through it)
calls to create a model or dataset repo, upload files in one commit and download them again. As on the
Hub, models and datasets are two namespaces (``repos`` and ``datasets``: one id can name one of each),
and a dataset's routes differ from a model's by their prefix only (``{kind}``: ``models`` / ``datasets``):

- ``POST /api/repos/create`` (``type`` model or dataset; 409 when it exists), ``GET /api/whoami-v2``,
  ``POST /api/validate-yaml``
- ``POST /api/{kind}/{repo}/preupload/{rev}`` (every file "regular": content travels in the commit)
- ``POST /api/{kind}/{repo}/commit/{rev}`` (NDJSON: a header line, then ``file`` / ``deletedFile`` lines)
- ``GET /api/{kind}/{repo}[/revision/{rev}]`` (model_info / dataset_info), ``GET /api/{kind}/{repo}/tree/{rev}[/path]``
- ``HEAD``/``GET /{repo}/resolve/{rev}/{path}`` (a dataset's: ``/datasets/{repo}/resolve/…``) with
  ``X-Repo-Commit``, ``ETag`` and ``X-Error-Code`` (``RepoNotFound`` / ``EntryNotFound``) as the Hub sends them.

Tokens are ``Authorization: Bearer <token>``; ``tokens`` maps each valid token to a user name. Writes
need a valid token; private repos need one to read. Every request is recorded in ``requests`` so tests
can check what was called (e.g. that a push was one commit). ``delays`` makes it a slow Hub:
``{"preupload": 6.0}`` holds each preupload call that long (the time a real Hub takes to receive a
model's large files), and ``started`` records each call as it arrives, so a test can act mid-upload.
Written for xmd; nothing copied.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

VERBS = ("preupload", "commit", "revision", "tree", "paths-info")
KINDS = {"models": "model", "datasets": "dataset"}
"""The repo types served, by their URL prefix (spaces are not)."""


@dataclass
class Repo:
    repo_id: str
    private: bool
    owner: str
    repo_type: str = "model"
    commits: list[tuple[str, str, dict[str, bytes]]] = field(default_factory=list)
    """(oid, summary, full file tree after the commit), oldest first."""

    def tree(self, rev: str) -> tuple[str, dict[str, bytes]] | None:
        if not self.commits:
            return ("0" * 40, {}) if rev == "main" else None
        if rev in ("main", "HEAD"):
            oid, _, files = self.commits[-1]
            return oid, files
        for oid, _, files in self.commits:
            if oid == rev:
                return oid, files
        return None


class HubServer:
    """The server and its state; ``start()`` binds 127.0.0.1 on a free port, ``url`` is its endpoint."""

    def __init__(self, tokens: dict[str, str] | None = None) -> None:
        self.tokens = dict(tokens or {"hf_test_write": "tester"})
        self.repos: dict[str, Repo] = {}
        """Model repos by id."""
        self.datasets: dict[str, Repo] = {}
        """Dataset repos by id (a namespace of their own, as on the Hub)."""
        self.requests: list[tuple[str, str, int]] = []
        self.started: list[tuple[str, str]] = []
        self.delays: dict[str, float] = {}
        self.lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> HubServer:
        hub = self

        class Handler(_Handler):
            server_state = hub

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="hubserver", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> HubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def store(self, repo_type: str) -> dict[str, Repo]:
        """The repos of one type: ``repos`` (models) or ``datasets``."""
        return self.datasets if repo_type == "dataset" else self.repos

    def commits(self, repo_id: str, repo_type: str = "model") -> list[str]:
        """Commit summaries of a repo, oldest first."""
        return [summary for _, summary, _ in self.store(repo_type)[repo_id].commits]


class _Handler(BaseHTTPRequestHandler):
    server_state: HubServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # requests are recorded, not printed
        return

    # ------------------------------------------------------------------ plumbing

    def _user(self) -> str | None:
        auth = self.headers.get("Authorization", "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else None
        return self.server_state.tokens.get(token) if token else None

    def _has_bad_token(self) -> bool:
        return bool(self.headers.get("Authorization")) and self._user() is None

    def _send(
        self, status: int, body: bytes = b"", ctype: str = "application/json", headers: dict | None = None
    ) -> None:
        path = urlsplit(self.path).path
        with self.server_state.lock:
            self.server_state.requests.append((self.command, path, status))
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, payload: Any, headers: dict | None = None) -> None:
        self._send(status, json.dumps(payload).encode(), headers=headers)

    def _error(self, status: int, message: str, code: str | None = None) -> None:
        headers = {"X-Error-Message": message}
        if code:
            headers["X-Error-Code"] = code
        self._json(status, {"error": message}, headers=headers)

    def _body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _repo_for_read(self, repo_id: str, repo_type: str = "model") -> Repo | None:
        """The repo if the caller may read it; otherwise answers 401 RepoNotFound (as the Hub does)."""
        if self._has_bad_token():
            self._error(401, "Invalid credentials in Authorization header", "RepoNotFound")
            return None
        repo = self.server_state.store(repo_type).get(repo_id)
        if repo is None or (repo.private and self._user() is None):
            self._error(401, f"Repository Not Found for url: {self.path}.", "RepoNotFound")
            return None
        return repo

    def _repo_for_write(self, repo_id: str, repo_type: str = "model") -> Repo | None:
        user = self._user()
        if user is None:
            self._error(401, "Invalid credentials in Authorization header")
            return None
        repo = self.server_state.store(repo_type).get(repo_id)
        if repo is None:
            self._error(404, f"Repository Not Found for url: {self.path}.", "RepoNotFound")
            return None
        if repo.owner != user and not repo_id.startswith(f"{user}/"):
            self._error(403, "You don't have the rights to write to this repository")
            return None
        return repo

    def _split_api_repo(self, parts: list[str]) -> tuple[str, list[str]]:
        """``parts`` after ``api/{kind}``: (repo id, the rest). Ids without a namespace get the user's."""
        if len(parts) >= 2 and parts[1] not in VERBS:
            return f"{parts[0]}/{parts[1]}", parts[2:]
        return f"{self._user() or 'anonymous'}/{parts[0]}", parts[1:]

    # ------------------------------------------------------------------ routes

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        parts = [unquote(p) for p in urlsplit(self.path).path.strip("/").split("/")]
        if parts[:2] == ["api", "whoami-v2"]:
            user = self._user()
            if user is None:
                return self._error(401, "Invalid credentials in Authorization header")
            return self._json(200, {"type": "user", "name": user, "auth": {"accessToken": {"role": "write"}}})
        if parts[0] == "api" and len(parts) >= 3 and parts[1] in KINDS:
            kind = KINDS[parts[1]]
            repo_id, rest = self._split_api_repo(parts[2:])
            repo = self._repo_for_read(repo_id, kind)
            if repo is None:
                return None
            rev = rest[1] if rest[:1] == ["revision"] and len(rest) > 1 else "main"
            if rest[:1] == ["tree"]:
                rev = rest[1] if len(rest) > 1 else "main"
            found = repo.tree(rev)
            if found is None:
                return self._error(404, f"Invalid rev id: {rev}", "RevisionNotFound")
            oid, files = found
            if rest[:1] == ["tree"]:
                prefix = "/".join(rest[2:])
                entries = [
                    {"type": "file", "path": p, "size": len(b), "oid": hashlib.sha1(b).hexdigest()}
                    for p, b in sorted(files.items())
                    if not prefix or p.startswith(prefix.rstrip("/") + "/")
                ]
                return self._json(200, entries)
            return self._json(200, _info(repo, oid, files))
        if len(parts) >= 6 and parts[0] == "datasets" and parts[3] == "resolve":
            return self._resolve(f"{parts[1]}/{parts[2]}", parts[4], "/".join(parts[5:]), "dataset")
        if len(parts) >= 5 and parts[2] == "resolve":
            return self._resolve(f"{parts[0]}/{parts[1]}", parts[3], "/".join(parts[4:]))
        return self._error(404, f"no route for {self.command} {self.path}")

    def _resolve(self, repo_id: str, rev: str, path: str, repo_type: str = "model") -> None:
        repo = self._repo_for_read(repo_id, repo_type)
        if repo is None:
            return
        found = repo.tree(rev)
        if found is None:
            return self._error(404, f"Invalid rev id: {rev}", "RevisionNotFound")
        oid, files = found
        if path not in files:
            return self._error(404, f"Entry not found: {path}", "EntryNotFound")
        data = files[path]
        etag = hashlib.sha256(data).hexdigest()
        self._send(200, data, "application/octet-stream", {"X-Repo-Commit": oid, "ETag": f'"{etag}"'})

    def do_POST(self) -> None:
        parts = [unquote(p) for p in urlsplit(self.path).path.strip("/").split("/")]
        body = self._body()
        if parts == ["api", "repos", "create"]:
            return self._create_repo(json.loads(body or b"{}"))
        if parts == ["api", "validate-yaml"]:
            return self._json(200, {"errors": [], "warnings": []})
        if parts[0] == "api" and len(parts) >= 4 and parts[1] in KINDS:
            kind = KINDS[parts[1]]
            repo_id, rest = self._split_api_repo(parts[2:])
            if rest[:1] == ["preupload"]:
                with self.server_state.lock:
                    self.server_state.started.append(("preupload", repo_id))
                time.sleep(self.server_state.delays.get("preupload", 0.0))
                if self._repo_for_write(repo_id, kind) is None:
                    return None
                files = json.loads(body)["files"]
                out = [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]
                return self._json(200, {"files": out, "commitOid": None})
            if rest[:1] == ["commit"]:
                return self._commit(repo_id, body, kind)
        return self._error(404, f"no route for {self.command} {self.path}")

    def _create_repo(self, payload: dict[str, Any]) -> None:
        user = self._user()
        if user is None:
            return self._error(401, "Invalid credentials in Authorization header")
        kind = payload.get("type") or "model"
        if kind not in KINDS.values():
            return self._error(400, "only model and dataset repos are served here")
        repo_id = f"{payload.get('organization') or user}/{payload['name']}"
        url = f"{self.server_state.url}/{'datasets/' if kind == 'dataset' else ''}{repo_id}"
        store = self.server_state.store(kind)
        private = payload.get("visibility") == "private" or bool(payload.get("private"))
        with self.server_state.lock:  # answered after it is released: _send takes it too
            exists = repo_id in store
            if not exists:
                store[repo_id] = Repo(repo_id=repo_id, private=private, owner=user, repo_type=kind)
        if exists:
            return self._json(409, {"error": f"You already created this {kind} repo", "url": url})
        return self._json(200, {"url": url, "name": repo_id})

    def _commit(self, repo_id: str, body: bytes, repo_type: str = "model") -> None:
        repo = self._repo_for_write(repo_id, repo_type)
        if repo is None:
            return
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            return self._error(400, "a commit starts with a header line")
        summary = lines[0]["value"].get("summary", "")
        unsupported = [item["key"] for item in lines[1:] if item["key"] not in ("file", "deletedFile", "deletedFolder")]
        if unsupported:  # checked before the lock is taken: _send takes it too
            return self._error(400, f"unsupported commit operation {unsupported[0]!r} (LFS is not served here)")
        with self.server_state.lock:
            files = dict(repo.commits[-1][2]) if repo.commits else {}
            for item in lines[1:]:
                key, value = item["key"], item["value"]
                if key == "file":
                    files[value["path"]] = base64.b64decode(value["content"])
                elif key == "deletedFile":
                    files.pop(value["path"], None)
                else:  # deletedFolder
                    prefix = value["path"].rstrip("/") + "/"
                    files = {p: b for p, b in files.items() if not p.startswith(prefix)}
            listing = sorted((p, hashlib.sha1(b).hexdigest()) for p, b in files.items())
            digest = hashlib.sha1(json.dumps(listing).encode())
            digest.update(f"{len(repo.commits)}:{summary}".encode())
            oid = digest.hexdigest()
            repo.commits.append((oid, summary, files))
        base = f"{self.server_state.url}/{'datasets/' if repo_type == 'dataset' else ''}{repo_id}"
        return self._json(200, {"commitUrl": f"{base}/commit/{oid}", "commitOid": oid, "success": True})


def _info(repo: Repo, oid: str, files: dict[str, bytes]) -> dict[str, Any]:
    """model_info's or dataset_info's answer (a dataset's has no model fields)."""
    if repo.repo_type == "dataset":
        return {
            "_id": hashlib.sha1(f"dataset:{repo.repo_id}".encode()).hexdigest()[:24],
            "id": repo.repo_id,
            "author": repo.repo_id.split("/")[0],
            "sha": oid,
            "private": repo.private,
            "disabled": False,
            "gated": False,
            "tags": ["xmd"],
            "siblings": [{"rfilename": p, "size": len(b)} for p, b in sorted(files.items())],
            "downloads": 0,
            "likes": 0,
        }
    return _model_info(repo, oid, files)


def _model_info(repo: Repo, oid: str, files: dict[str, bytes]) -> dict[str, Any]:
    return {
        "_id": hashlib.sha1(repo.repo_id.encode()).hexdigest()[:24],
        "id": repo.repo_id,
        "modelId": repo.repo_id,
        "author": repo.repo_id.split("/")[0],
        "sha": oid,
        "private": repo.private,
        "disabled": False,
        "gated": False,
        "tags": ["transformers", "xmd"],
        "library_name": "transformers",
        "pipeline_tag": "text-classification",
        "siblings": [{"rfilename": p, "size": len(b)} for p, b in sorted(files.items())],
        "downloads": 0,
        "likes": 0,
    }
