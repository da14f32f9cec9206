"""Tests of the benchmark code (``bench/``): the repository root on ``sys.path`` so ``bench.<study>`` imports,
and every test here under the ``bench`` marker (``pytest -m bench`` runs only these, ``-m "not bench"`` skips them).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.bench)
