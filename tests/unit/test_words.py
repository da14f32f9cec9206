"""Word splitting and sub-word merging on tokenisations that break naive implementations."""

from __future__ import annotations

import pytest
import torch
from xmd.core.normalize import normalize_scores, shares
from xmd.core.words import encode, merge_to_words, split_words, word_key, word_mask


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("I don't like it, really!", ["I", "don't", "like", "it", ",", "really", "!"]),
        ("  spaced   out  ", ["spaced", "out"]),
        ("Café naïve—ok", ["Café", "naïve", "—", "ok"]),
        ("x2 and 3.5", ["x2", "and", "3", ".", "5"]),
        ("", []),
    ],
)
def test_split_words(text, words):
    got, spans = split_words(text)
    assert got == words
    assert [text[s:e] for s, e in spans] == words


def test_word_key_folds_case_and_apostrophes():
    assert word_key("Spielberg") == word_key("SPIELBERG") == "spielberg"
    assert word_key("don’t") == "don't"


def test_encode_maps_word_pieces_to_words(tiny):
    text = "I don't like it, unbelievable zorblat!"
    enc = encode(tiny.tokenizer, [text], max_length=64)
    tokens = tiny.tokenizer.convert_ids_to_tokens(enc.input_ids[0])
    words = enc.words[0]
    mapping = {}
    for tok, w in zip(tokens, enc.word_index[0].tolist(), strict=True):
        if w >= 0:
            mapping.setdefault(words[w], []).append(tok)
    assert mapping["don't"] == ["don", "'", "t"]
    assert mapping["unbelievable"] == ["un", "##believ", "##able"]
    assert mapping["zorblat"] == ["zor", "##bla", "##t"]
    assert tokens[0] == "[CLS]" and enc.word_index[0, 0] == -1
    assert enc.n_seen[0] == len(words)


def test_truncation_is_tracked_per_example(tiny):
    long = "the movie " * 40
    enc = encode(tiny.tokenizer, [long, "great fun"], max_length=12)
    assert enc.input_ids.shape[1] == 12
    assert enc.n_seen[0] == 10  # 10 word tokens between [CLS] and [SEP]
    assert len(enc.words[0]) == 80
    assert enc.n_seen[1] == 2
    assert (enc.word_index[1, 4:] == -1).all()  # padding maps to no word


def test_merge_sums_pieces_and_drops_special_tokens():
    scores = torch.tensor([[5.0, 1.0, 2.0, 3.0, 7.0, 9.0]])
    idx = torch.tensor([[-1, 0, 1, 1, 2, -1]])
    merged = merge_to_words(scores, idx, 3)
    assert merged.tolist() == [[1.0, 5.0, 7.0]]
    assert word_mask(idx, 4).tolist() == [[True, True, True, False]]


def test_merge_is_differentiable():
    scores = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    merged = merge_to_words(scores, torch.tensor([[0, 0, 1]]), 2)
    merged[0, 0].backward()
    assert scores.grad.tolist() == [[1.0, 1.0, 0.0]]


def test_shares_are_l1_normalised_magnitudes():
    s = normalize_scores([2.0, -1.0, 1.0])
    assert s == pytest.approx([0.5, 0.25, 0.25])
    assert normalize_scores([0.0, 0.0]) == [0.0, 0.0]
    assert normalize_scores([]) == []
    masked = shares(torch.tensor([[1.0, 3.0, 100.0]]), torch.tensor([[True, True, False]]))
    assert masked[0].tolist() == pytest.approx([0.25, 0.75, 0.0])


def test_shares_have_gradient_for_the_dominant_word():
    # A max-normalised score would be constant for the top word; the L1 share is not.
    x = torch.tensor([[10.0, 1.0]], requires_grad=True)
    shares(x)[0, 0].backward()
    assert x.grad[0, 0].abs() > 0
