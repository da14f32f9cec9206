"""Shared fixtures: a tiny random BERT on disk (session-scoped) and offline Hugging Face settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Test helpers (store/store_helpers) are plain modules next to the tests; with
# --import-mode=importlib the test folders are not on sys.path by themselves.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "store"))

from xmd.core.tinymodel import build_tiny_model

# Real HateXplain rows (../shared/data/hatexplain, read-only beside the checkout): the tests that read them and
# bench/real_data/hatexplain.py find the same folder, wherever the checkout was cloned on this machine.
_HATEXPLAIN = [Path(__file__).resolve().parents[2] / "shared/data/hatexplain", Path("/work/shared/data/hatexplain")]
HATEXPLAIN_DIR = next((p for p in _HATEXPLAIN if (p / "val.csv").exists()), _HATEXPLAIN[-1])
os.environ.setdefault("XMD_HATEXPLAIN_DIR", str(HATEXPLAIN_DIR))


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="session")
def tiny_three_class_dir(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny3") / "model", labels=("neg", "neu", "pos"))


STANDIN_HIDDEN, STANDIN_LAYERS = 128, 2


@pytest.fixture(scope="session")
def demo_standin_dir(tmp_path_factory) -> Path:
    """What the ``xmd serve --demo`` tests fine-tune instead of MiniLM (``--demo-model``): a random BERT
    that loads at once and whose fine-tuning step still lasts a fraction of a second on two cores (about
    1 s at load 6, against MiniLM's several), so a test can watch the steps and stop a server half-way.
    The real MiniLM's fine-tune is tested by tests/integration/test_serve.py and test_demo_minilm.py, and
    timed by bench/first_start/first_start.py."""
    path = tmp_path_factory.mktemp("standin") / "model"
    return build_tiny_model(path, hidden_size=STANDIN_HIDDEN, layers=STANDIN_LAYERS)


@pytest.fixture()
def tiny(tiny_model_dir):
    from xmd.core.modeling import load_model

    return load_model(tiny_model_dir, device="cpu")
