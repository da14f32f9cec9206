"""Words, not word pieces: how xmd cuts a text into the units people click.

A *word* is a maximal run of letters/digits (with inner apostrophes, so "don't" is one word) or a
single punctuation character. Words are found on the raw text with one regular expression, so word
positions are the same for every tokenizer and every ``max_length``; the feedback a person gives on
word 7 of an example stays on word 7 when the model changes.

Sub-word tokens are mapped to words through the tokenizer's character offsets: a token belongs to
the word that contains the first non-space character of its span. **Merge rule: a word's score is
the sum of its tokens' scores.** Summing keeps the completeness of additive methods (integrated
gradients, grad x input) at the word level; it is used for display, aggregation and the loss alike.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass

import torch

WORD_RE = re.compile(r"\w+(?:['’]\w+)*|[^\w\s]", re.UNICODE)


def split_words(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """Return the words of ``text`` and their ``(start, end)`` character spans."""
    words: list[str] = []
    spans: list[tuple[int, int]] = []
    for m in WORD_RE.finditer(text):
        words.append(m.group(0))
        spans.append((m.start(), m.end()))
    return words, spans


def word_key(word: str) -> str:
    """Normalised form used to aggregate a word across the task (NFKC, case-folded)."""
    return unicodedata.normalize("NFKC", word).casefold().replace("’", "'")


def is_punctuation(word: str) -> bool:
    return len(word) == 1 and not word.isalnum()


@dataclass
class Encoded:
    """A tokenised batch plus the token → word map that merging needs.

    ``word_index[b, t]`` is the word position of token ``t`` in example ``b``, or -1 for special,
    padding and whitespace-only tokens. ``n_seen[b]`` is how many words fitted before truncation.
    """

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    word_index: torch.Tensor
    words: list[list[str]]
    spans: list[list[tuple[int, int]]]
    n_seen: list[int]
    token_type_ids: torch.Tensor | None = None

    def model_inputs(self) -> dict[str, torch.Tensor]:
        out = {"input_ids": self.input_ids, "attention_mask": self.attention_mask}
        if self.token_type_ids is not None:
            out["token_type_ids"] = self.token_type_ids
        return out

    def to(self, device: torch.device | str) -> Encoded:
        self.input_ids = self.input_ids.to(device)
        self.attention_mask = self.attention_mask.to(device)
        self.word_index = self.word_index.to(device)
        if self.token_type_ids is not None:
            self.token_type_ids = self.token_type_ids.to(device)
        return self

    def select(self, rows: torch.Tensor) -> Encoded:
        """The sub-batch of the rows where ``rows`` (bool ``[B]``) is True, trimmed to its widest row."""
        keep = rows.nonzero().flatten().tolist()
        width = int(self.attention_mask[rows].sum(dim=1).max()) if keep else 0
        return Encoded(
            input_ids=self.input_ids[rows][:, :width],
            attention_mask=self.attention_mask[rows][:, :width],
            token_type_ids=self.token_type_ids[rows][:, :width] if self.token_type_ids is not None else None,
            word_index=self.word_index[rows][:, :width],
            words=[self.words[i] for i in keep],
            spans=[self.spans[i] for i in keep],
            n_seen=[self.n_seen[i] for i in keep],
        )

    @property
    def max_words(self) -> int:
        return max((len(w) for w in self.words), default=0)


def _token_word(start: int, end: int, text: str, starts: list[int], ends: list[int]) -> int:
    """Word position that owns the token spanning ``text[start:end]``, or -1."""
    while start < end and text[start].isspace():
        start += 1
    if start >= end:
        return -1
    i = bisect.bisect_right(starts, start) - 1
    if i >= 0 and start < ends[i]:
        return i
    return -1


def encode(tokenizer, texts: list[str], max_length: int = 256) -> Encoded:
    """Tokenise ``texts`` (padded, truncated to ``max_length``) and map tokens to words.

    Requires a *fast* tokenizer, which reports character offsets; every tokenizer that ships with
    a ``tokenizer.json`` is one.
    """
    max_length = min(max_length, int(getattr(tokenizer, "model_max_length", max_length) or max_length))
    if not getattr(tokenizer, "is_fast", False):
        raise TypeError(
            "xmd needs a fast (Rust) tokenizer to map word pieces to words; "
            "load it with AutoTokenizer.from_pretrained(..., use_fast=True)"
        )
    enc = tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
    # Offsets and special-token flags come from the Rust encodings themselves: asking the wrapper for
    # ``return_offsets_mapping`` converts a nested list per token into a tensor only to turn it back
    # into lists here, which cost as much as the tokenisation (bench/attribution/attribution_throughput.py on a GPU).
    encodings = enc.encodings
    if encodings is None:
        raise TypeError("the tokenizer returned no encodings; xmd needs a fast (Rust) tokenizer")
    width = enc["input_ids"].shape[1]
    flat = [-1] * (len(texts) * width)
    all_words, all_spans, n_seen = [], [], []
    for b, text in enumerate(texts):
        words, spans = split_words(text)
        starts = [s for s, _ in spans]
        ends = [e for _, e in spans]
        seen = -1
        row = b * width
        for t, ((s, e), sp) in enumerate(zip(encodings[b].offsets, encodings[b].special_tokens_mask, strict=True)):
            if sp or e <= s:
                continue
            w = _token_word(s, e, text, starts, ends)
            if w >= 0:
                flat[row + t] = w
                seen = max(seen, w)
        all_words.append(words)
        all_spans.append(spans)
        n_seen.append(seen + 1)
    word_index = torch.tensor(flat, dtype=torch.long).view(len(texts), width)
    return Encoded(
        input_ids=enc["input_ids"],
        attention_mask=enc["attention_mask"],
        token_type_ids=enc.get("token_type_ids"),
        word_index=word_index,
        words=all_words,
        spans=all_spans,
        n_seen=n_seen,
    )


def merge_to_words(token_scores: torch.Tensor, word_index: torch.Tensor, n_words: int) -> torch.Tensor:
    """Sum token scores ``[B, T]`` into word scores ``[B, n_words]``; differentiable.

    Tokens with ``word_index == -1`` (special tokens, padding) are dropped.
    """
    batch = token_scores.shape[0]
    out = token_scores.new_zeros(batch, n_words + 1)
    idx = torch.where(word_index >= 0, word_index, torch.full_like(word_index, n_words))
    out = out.scatter_add(1, idx, token_scores)
    return out[:, :n_words]


def word_mask(word_index: torch.Tensor, n_words: int) -> torch.Tensor:
    """Boolean ``[B, n_words]``: True where the word has at least one token in the input."""
    ones = (word_index >= 0).to(torch.float32)
    return merge_to_words(ones, word_index, n_words) > 0
