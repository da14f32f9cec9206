"""The test tiers of tests/conftest.py stay true: every test named in LONG exists (a renamed test would
otherwise fall silently back into `make check`), and every folder of tests is in a tier that some make
target runs."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _conftest():
    spec = importlib.util.spec_from_file_location("tiers_conftest", TESTS / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_long_test_exists() -> None:
    missing = []
    for entry in sorted(_conftest().LONG):
        file, name = entry.split("::")
        path = TESTS / file
        tree = ast.parse(path.read_text()) if path.exists() else ast.Module(body=[], type_ignores=[])
        if name not in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}:
            missing.append(entry)
    assert missing == []


def test_the_folder_tiers_name_real_folders_and_markers() -> None:
    conftest = _conftest()
    for folder, tier in conftest.FOLDER_TIER.items():
        assert (TESTS / folder).is_dir(), folder
        assert tier in {"integration", "e2e"}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__"}
    fast = folders - set(conftest.FOLDER_TIER)
    assert "unit" in fast and "integration" not in fast and "e2e" not in fast
