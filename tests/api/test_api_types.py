"""The UI's API types are generated from this app's OpenAPI schema (frontend/src/api/schema.d.ts, written
by every UI build and not kept in git); this runs the frontend's check, so a UI built against an older
schema (a backend change without a rebuild) fails the suite."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from xmd.app import create_app

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "frontend" / "scripts" / "gen-api.mjs"
GENERATED = ROOT / "frontend" / "src" / "api" / "schema.d.ts"


def run_check(target: Path, schema: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node, "node is needed to check the generated API types (make test installs the frontend)"
    env = {**os.environ, "XMD_PYTHON": sys.executable, "XMD_OPENAPI_JSON": str(schema)}
    done = subprocess.run(
        [node, str(SCRIPT), "--check", str(target)],
        cwd=ROOT / "frontend",
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "ERR_MODULE_NOT_FOUND" not in done.stderr, f"run `npm ci` in frontend/ (make frontend):\n{done.stderr}"
    return done


def test_generated_api_types_are_current(tmp_path: Path) -> None:
    assert GENERATED.is_file(), "the UI build writes it: run `make frontend`"
    # the app's schema, dumped once here (the script would start Python for each check)
    schema = tmp_path / "openapi.json"
    schema.write_text(json.dumps(create_app(serve_ui=False).openapi()), encoding="utf-8")
    done = run_check(GENERATED, schema)
    assert done.returncode == 0, f"{done.stderr}\n{done.stdout}"

    # control: the same check refuses a copy that lags one field behind the schema
    stale = tmp_path / "schema.d.ts"
    text = GENERATED.read_text(encoding="utf-8")
    assert "suspicious: boolean;" in text
    stale.write_text(text.replace("suspicious: boolean;", "", 1), encoding="utf-8")
    done = run_check(stale, schema)
    assert done.returncode == 1, done.stdout
    assert "is stale" in done.stderr and "make frontend" in done.stderr
