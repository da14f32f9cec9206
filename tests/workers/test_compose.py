"""docker-compose.yml and Dockerfile, checked without a Docker engine (none here): the file parses,
has the four services with their commands, a GPU reservation for the worker, persistent volumes,
and every ``XMD_*`` / ``HF_*`` variable it sets is one ``Settings.from_env`` reads (a typo there would
silently fall back to the demo defaults in production)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from xmd.config import Settings

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _settings_env_names() -> set[str]:
    """Variables Settings.from_env reads, taken from its source (the one reader of the environment)."""
    import inspect

    src = inspect.getsource(Settings.from_env)
    return set(re.findall(r'"((?:XMD|HF)_[A-Z_]+)"', src))


def test_services_commands_and_volumes() -> None:
    c = _compose()
    assert set(c["services"]) == {"api", "worker", "redis", "postgres"}
    api, worker = c["services"]["api"], c["services"]["worker"]
    api_cmd = " ".join(api["command"])
    assert "xmd db upgrade" in api_cmd and "uvicorn" in api_cmd and "xmd.app:create_app" in api_cmd
    assert api_cmd.index("xmd db upgrade") < api_cmd.index("uvicorn")  # migrate, then serve
    assert worker["command"][:2] == ["xmd", "worker"]
    queues = worker["command"][worker["command"].index("-Q") + 1].split(",")
    assert worker["environment"]["XMD_RETRAIN_QUEUE"] in queues and worker["environment"]["XMD_DEFAULT_QUEUE"] in queues
    devices = worker["deploy"]["resources"]["reservations"]["devices"]
    assert devices[0]["capabilities"] == ["gpu"] and devices[0]["driver"] == "nvidia"
    # API and worker share the data volume (the worker writes model versions the API serves).
    assert "xmd-data:/data" in api["volumes"] and "xmd-data:/data" in worker["volumes"]
    assert {"xmd-data", "redis-data", "postgres-data"} <= set(c["volumes"])
    assert any(v.endswith(":/var/lib/postgresql/data") for v in c["services"]["postgres"]["volumes"])
    assert api["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "build" in api and worker["image"] == api["image"]


def test_environment_agrees_with_settings() -> None:
    c = _compose()
    known = _settings_env_names() | {"HF_TOKEN"}  # HF_TOKEN is read by the push task itself
    assert {"XMD_DATABASE_URL", "XMD_BROKER_URL", "XMD_RETRAIN_QUEUE", "HF_ENDPOINT"} <= known
    for name in ("api", "worker"):
        env = c["services"][name]["environment"]
        ours = {k for k in env if k.startswith(("XMD_", "HF_"))}
        assert ours <= known, f"{name} sets variables xmd never reads: {sorted(ours - known)}"
        db_url = env["XMD_DATABASE_URL"]
        assert db_url.startswith("postgresql+psycopg://") and "@postgres:5432/" in db_url
        assert env["XMD_BROKER_URL"].startswith("redis://redis:6379/")
        assert env["XMD_RESULT_BACKEND"].startswith("redis://redis:6379/")
    # The API and the workers must agree on the queues, the database and the broker.
    api_env, worker_env = c["services"]["api"]["environment"], c["services"]["worker"]["environment"]
    for key in ("XMD_DATABASE_URL", "XMD_BROKER_URL", "XMD_RESULT_BACKEND", "XMD_RETRAIN_QUEUE", "XMD_DATA_DIR"):
        assert api_env[key] == worker_env[key], key
    pg = c["services"]["postgres"]["environment"]
    assert f"{pg['POSTGRES_USER']}:" in api_env["XMD_DATABASE_URL"] and api_env["XMD_DATABASE_URL"].endswith(
        "/" + pg["POSTGRES_DB"]
    )


def test_docs_document_the_environment_and_the_dockerfile_builds_what_compose_runs() -> None:
    page = (ROOT / "docs" / "deployment.md").read_text()
    section = page[page.index("## Production with docker compose") :]
    c = _compose()
    for name in set(c["services"]["api"]["environment"]) | set(c["services"]["worker"]["environment"]):
        assert f"`{name}`" in section, f"{name} is not documented in docs/deployment.md's compose section"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install" in dockerfile and "COPY workers/ workers/" in dockerfile and "COPY migrations/" in dockerfile
    assert c["services"]["api"]["build"] == "."
