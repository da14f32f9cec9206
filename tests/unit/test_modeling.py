"""Model loading: local dirs and Hub ids (offline-safe), label names, heads and devices."""

from __future__ import annotations

import pytest
import torch
from transformers import BertConfig, BertModel
from xmd.core.modeling import load_model, resolve_device
from xmd.core.types import DataError, ModelLoadError


def test_loads_local_classifier_with_label_names(tiny_model_dir):
    m = load_model(tiny_model_dir, device="cpu")
    assert m.labels == ["negative", "positive"] and m.num_labels == 2
    assert m.model.config._attn_implementation == "eager"  # needed for double backward
    assert not m.model.training
    assert m.label_index("Positive") == 1 and m.label_index(0) == 0 and m.label_index("1") == 1
    with pytest.raises(DataError, match="unknown label"):
        m.label_index("neutral")
    with pytest.raises(DataError, match="out of range"):
        m.label_index(2)


def test_hub_id_offline_gives_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError, match="Hugging Face Hub") as err:
        load_model("some-org/some-model-that-is-not-cached")
    assert "local directory" in str(err.value)


def test_missing_path_is_an_error(tmp_path):
    with pytest.raises(ModelLoadError, match="not a directory"):
        load_model(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelLoadError, match="could not load a model config"):
        load_model(tmp_path / "empty")


def test_base_model_needs_labels_and_gets_a_head(tiny_model_dir, tmp_path):
    base = BertModel(
        BertConfig(vocab_size=120, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)
    )
    base.config.architectures = ["BertModel"]
    base.save_pretrained(tmp_path / "base")
    for f in tiny_model_dir.iterdir():
        if f.name.startswith(("tokenizer", "vocab", "special")):
            (tmp_path / "base" / f.name).write_bytes(f.read_bytes())
    with pytest.raises(ModelLoadError, match="no classification head"):
        load_model(tmp_path / "base")
    m = load_model(tmp_path / "base", labels=["a", "b", "c"], device="cpu")
    assert m.labels == ["a", "b", "c"] and m.model.config.num_labels == 3


def test_label_count_mismatch_on_a_classifier(tiny_model_dir):
    with pytest.raises(ModelLoadError, match="2 classes"):
        load_model(tiny_model_dir, labels=["a", "b", "c"])
    with pytest.raises(ModelLoadError, match="unique"):
        load_model(tiny_model_dir, labels=["a", "a"])


def test_resolve_device():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ModelLoadError, match="no GPU"):
            resolve_device("cuda")
