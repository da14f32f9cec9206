"""Rationale columns in every shape people store them, aligned to xmd's words (xmd.core.rationales)."""

from __future__ import annotations

import ast
import csv
import os
import re
from pathlib import Path

import pytest
from xmd.core.align import align_tokens
from xmd.core.rationales import align_rationales, parse_cell
from xmd.core.types import DataError, Example
from xmd.core.words import split_words, word_key

HATEXPLAIN = Path(os.environ["XMD_HATEXPLAIN_DIR"]) / "val.csv"  # set by tests/conftest.py


def marked(text: str, mask: list[int]) -> list[str]:
    words = split_words(text)[0]
    assert len(mask) == len(words)
    return [w for w, m in zip(words, mask, strict=True) if m]


def one(text: str, value, **kw) -> list[str]:
    """Marked words of a one-row column."""
    res = align_rationales([Example("0", text, meta={"r": value, **kw.pop("meta", {})})], "r", **kw)
    assert res.skipped == {}, res.skipped
    return marked(text, res.masks["0"])


# ------------------------------------------------------------------ alignment of another tokenisation


def test_align_tokens_tricky_tokenisation():
    text = "<user> the U.S. army don’t 😂😂 go ｃａｆé"
    tokens = ["<user>", "the", "u.s.", "army", "don't", "😂", "😂", "go", "cafe"]
    words = split_words(text)[0]
    got = [[words[i] for i in ws] for ws in align_tokens(text, tokens)]
    # punctuation inside a multi-word token is dropped: "<user>" is the word "user", "u.s." is u + s
    assert got == [["user"], ["the"], ["U", "S"], ["army"], ["don’t"], ["😂"], ["😂"], ["go"], ["ｃａｆé"]]


def test_align_tokens_placeholders_take_the_gap():
    # HateXplain's unmasked text replaces <user> by invented names and <number> by digits
    text = "Alfred Alfred Alfred i am a top 9 fan"
    tokens = ["<user>", "<user>", "<user>", "i", "am", "a", "top", "<number>", "fan"]
    words = split_words(text)[0]
    got = [[words[i] for i in ws] for ws in align_tokens(text, tokens)]
    assert got == [["Alfred"], ["Alfred"], ["Alfred"], ["i"], ["am"], ["a"], ["top"], ["9"], ["fan"]]
    # one placeholder for "@john.doe": it takes every word up to the next token, punctuation dropped
    text2 = "@john.doe said hi"
    words2 = split_words(text2)[0]
    assert [words2[i] for i in align_tokens(text2, ["<user>", "said", "hi"])[0]] == ["john", "doe"]


def test_align_tokens_short_token_does_not_jump_over_the_text():
    # "a" is not in the text; it must not jump to the "a" near the end and strand "cat" and "sat"
    text = "cat sat on a mat"
    out = align_tokens(text, ["the", "cat", "sat", "on", "a", "mat"])
    assert out[1:] == [[0], [1], [2], [3], [4]]
    assert out[0] is None  # "the" has no text and no gap to take
    # a stray invisible token (HateXplain has a BOM token) covers nothing and is not a failure
    assert align_tokens("go now \ufeff", ["go", "now", "\ufeff"]) == [[0], [1], []]


def test_align_tokens_subword_tokens():
    text = "I don't know"
    assert align_tokens(text, ["i", "don", "'", "t", "know"]) == [[0], [1], [1], [1], [2]]


# ------------------------------------------------------------------ formats


def test_binary_per_xmd_word_and_per_whitespace_token():
    assert one("the movie was great fun", [0, 0, 0, 1, 1]) == ["great", "fun"]
    # 4 flags for 4 whitespace tokens, while xmd sees 6 words ("it" and "." split, "don't" kept)
    assert one("I don't like it.", "[0, 1, 0, 1]") == ["don't", "it"]
    assert one("a b c", "[true, false, true]") == ["a", "c"]


def test_positions_words_and_spans():
    text = "We love the U.S. Army, don’t we?"
    assert one(text, [1, 3], format="positions") == ["love", "U"]
    assert one(text, "1 3", format="positions") == ["love", "U"]
    # words: phrases and tokenisation that xmd splits, matched case- and quote-insensitively
    assert one(text, ["u.s. army", "DON'T"]) == ["U", "S", "Army", "don’t"]
    assert one(text, "love") == ["love"]
    start = text.index("U.S.")
    assert one(text, [[start, start + 9]], format="spans") == ["U", "S", "Army"]
    assert one(text, [{"start": 3, "end": 7}]) == ["love"]
    assert one(text, "3:7") == ["love"]
    # a span that starts inside a word marks the whole word
    assert one(text, [{"start": 5, "end": 6}]) == ["love"]


def test_binary_against_a_token_list():
    text = "@Alfred you ppl are sooo dumb 😂"
    tokens = ["<user>", "you", "ppl", "are", "sooo", "dumb", "😂"]
    assert one(text, [0, 0, 1, 0, 0, 1, 0], tokens_column="t", meta={"t": tokens}) == ["ppl", "dumb"]
    assert one(text, [0, 2], format="positions", tokens_column="t", meta={"t": str(tokens)}) == ["Alfred", "ppl"]


def test_several_annotators_and_agreement():
    text = "kill all the vermin now"
    anns = [[1, 1, 0, 1, 0], [0, 1, 0, 1, 0], [0, 0, 0, 1, 1]]
    assert one(text, anns, min_agreement=1) == ["kill", "all", "vermin", "now"]
    assert one(text, anns, min_agreement=2) == ["all", "vermin"]
    assert one(text, anns, min_agreement=3) == ["vermin"]
    assert one(text, anns) == ["all", "vermin"]  # default: at least half of the annotators (2 of 3)
    assert one(text, anns, min_agreement=1.0) == ["vermin"]
    # two annotators, half of them suffices
    assert one(text, anns[:2]) == ["kill", "all", "vermin"]
    assert one(text, {"ann1": ["kill", "vermin"], "ann2": ["vermin"]}, min_agreement=2) == ["vermin"]
    assert one(text, [[[0, 4]], [[0, 4], [13, 19]]], format="spans", min_agreement=2) == ["kill"]
    res = align_rationales([Example("0", text, meta={"r": anns})], "r", min_agreement=4)
    assert res.masks == {} and res.skipped == {"no word marked by enough annotators": ["0"]}


def test_format_is_decided_once_per_column():
    exs = [
        Example("a", "one two", meta={"r": [1, 0]}),  # flags (one) or positions (one, two)
        Example("b", "one two three four five", meta={"r": [4, 2]}),  # only positions
    ]
    res = align_rationales(exs, "r")
    assert res.format == "positions"
    assert marked("one two", res.masks["a"]) == ["one", "two"]
    assert align_rationales(exs[:1], "r").format == "binary"
    # empty cells are skipped and counted, not errors
    exs.append(Example("c", "nothing here", meta={"r": "[]"}))
    exs.append(Example("d", "nothing here", meta={}))
    res = align_rationales(exs, "r")
    assert res.skipped == {"no rationale": ["c", "d"]}


def test_word_not_in_text_and_bad_tokens_skip_the_row():
    exs = [
        Example("a", "good film", meta={"r": ["good"]}),
        Example("b", "good film", meta={"r": ["great"]}),
    ]
    res = align_rationales(exs, "r")
    assert list(res.masks) == ["a"] and res.skipped == {"rationale word not found in the text": ["b"]}
    exs = [Example("a", "totally different text", meta={"r": [1, 0, 0], "t": ["the", "cat", "sat"]})]
    res = align_rationales(exs, "r", tokens_column="t")
    assert res.masks == {} and res.skipped == {"tokens do not match the text": ["a"]}


# ------------------------------------------------------------------ errors: clear, and nothing returned


def test_unknown_column():
    with pytest.raises(DataError, match=r"rationale column 'why' not found; available columns: \['r'\]"):
        align_rationales([Example("a", "x y", meta={"r": [1, 0]})], "why")
    with pytest.raises(DataError, match="tokens column 'toks' not found"):
        align_rationales([Example("a", "x y", meta={"r": [1, 0]})], "r", tokens_column="toks")


def test_length_mismatch_names_the_rows():
    exs = [Example(str(i), "one two three", meta={"r": [1, 0, 0]}) for i in range(3)]
    exs.append(Example("bad", "one two three", meta={"r": [1, 0, 0, 1, 1]}))
    with pytest.raises(DataError, match=r"row 'bad' has 5 flags but the row has 3 words"):
        align_rationales(exs, "r", format="binary")
    with pytest.raises(DataError, match="cannot read rationale column 'r' in any format"):
        align_rationales(exs, "r")
    toks = [Example("a", "one two", meta={"r": [1, 0, 1], "t": ["one", "two"]})]
    with pytest.raises(DataError, match="has 3 flags but the row has 2 tokens"):
        align_rationales(toks, "r", tokens_column="t", format="binary")


def test_unreadable_cells_and_bad_options():
    with pytest.raises(DataError, match=r"row 'x': cannot parse '\[1, 0'"):
        align_rationales([Example("x", "a b", meta={"r": "[1, 0"})], "r")
    with pytest.raises(DataError, match="span \\[0, 99\\] is outside the text's 3 characters"):
        align_rationales([Example("x", "a b", meta={"r": [[0, 99]]})], "r", format="spans")
    with pytest.raises(DataError, match="unknown rationale format"):
        align_rationales([Example("x", "a b", meta={"r": [1, 0]})], "r", format="tokens")
    with pytest.raises(DataError, match="fraction must lie in"):
        align_rationales([Example("x", "a b", meta={"r": [1, 0]})], "r", min_agreement=1.5)
    with pytest.raises(DataError, match="both as character spans and as per-annotator"):
        align_rationales([Example("x", "aa bb cc dd", meta={"r": [[0, 2], [1, 3]]})], "r")
    assert parse_cell("  ") is None and parse_cell("[]") is None and parse_cell(3.0) == [3]


# ------------------------------------------------------------------ real HateXplain rows


def hatexplain_rows(n: int) -> list[dict[str, str]]:
    with HATEXPLAIN.open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["rationales"] != "[]"]
    return rows[:n]


def test_hatexplain_rows_masked_and_unmasked():
    rows = hatexplain_rows(60)
    assert len(rows) == 60

    def examples(text_col: str) -> list[Example]:
        return [Example(r["id"], r[text_col], meta=r) for r in rows]

    masked = align_rationales(examples("masked_sentence"), "rationales", tokens_column="post_tokens", min_agreement=2)
    unmasked = align_rationales(
        examples("unmasked_sentence"), "rationales", tokens_column="post_tokens", min_agreement=2
    )
    assert masked.format == unmasked.format == "binary" and masked.units == "tokens"
    assert set(masked.annotators) <= {2, 3}
    checked = 0
    for r in rows:
        tokens = ast.literal_eval(r["post_tokens"])
        votes = [sum(col) for col in zip(*ast.literal_eval(r["rationales"]), strict=True)]
        want = [t for t, v in zip(tokens, votes, strict=True) if v >= 2]
        if not want:
            assert r["id"] in masked.skipped["no word marked by enough annotators"]
            continue
        got = marked(r["masked_sentence"], masked.masks[r["id"]])
        # every plain-word token the annotators agree on is marked, and nothing else
        plain = {word_key(t) for t in want if re.fullmatch(r"\w+", t)}
        assert plain <= {word_key(w) for w in got}
        assert all(any(word_key(w) in word_key(t) for t in want) for w in got)
        # placeholders: in the masked text "<user>" is the word "user"; unmasked, the name in its place
        got_u = marked(r["unmasked_sentence"], unmasked.masks[r["id"]])
        assert len(got_u) == len(got), (r["id"], got, got_u)
        checked += 1
    assert checked >= 50
