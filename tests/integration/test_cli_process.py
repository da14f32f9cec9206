"""The xmd command line in a real process (each start imports torch: seconds apiece). ``--quiet --json``:
stdout is the JSON document alone and stderr stays empty (no library load bars, notices or warnings) —
what a script piping xmd's output relies on; every command's ``--help``; the core imports no service code.
The commands' behaviour is tested in-process in tests/unit/test_cli*.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quiet_json_prints_nothing_but_the_document(tiny_model_dir: Path, tmp_path: Path):
    data = tmp_path / "d.csv"
    data.write_text("text,label\nthe movie was great,positive\nthe plot was bad,negative\n", encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "backend"), str(ROOT)]),
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
    }
    env.pop("TRANSFORMERS_VERBOSITY", None)  # the CLI itself must silence the libraries
    model, csv = str(tiny_model_dir), str(data)
    for cmd in (["explain", model, csv], ["words", model, csv, "--min-count", "1"]):
        r = subprocess.run(
            [sys.executable, "-m", "xmd.cli", *cmd, "--json", "--quiet"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr
        assert r.stderr == "", r.stderr  # e.g. transformers' "Loading weights" bar
        assert json.loads(r.stdout)  # one non-empty JSON document
    # the control: without --quiet the same command does show progress on stderr
    r = subprocess.run(
        [sys.executable, "-m", "xmd.cli", "explain", str(tiny_model_dir), str(data), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0 and r.stderr != ""


def test_help_for_every_command(capsys):
    """One process start (the entry point), then each command's help in-process: a start per command cost
    about 2.5 s each and tested the same parser."""
    from xmd.cli import build_parser

    res = subprocess.run([sys.executable, "-m", "xmd.cli", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and "usage: xmd" in res.stdout
    for cmd in ["explain", "words", "train", "debug", "evaluate", "demo-data", "demo"]:
        assert cmd in res.stdout
        try:
            build_parser().parse_args([cmd, "--help"])
        except SystemExit as done:
            assert done.code == 0
        out = capsys.readouterr().out
        assert out.startswith(f"usage: xmd {cmd}"), out[:200]


def test_core_imports_no_web_db_or_queue_code():
    code = (
        "import sys, xmd.core, xmd.core.demo_story; "
        "bad = sorted({m.split('.')[0] for m in sys.modules} & {'sqlalchemy', 'fastapi', 'celery'}); "
        "print(','.join(bad))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == ""
