"""Aligning another tokenisation of a text (or phrases, or character spans) to xmd's words.

Rationale data sets index their own tokens (HateXplain's ``post_tokens``, a whitespace split), not
xmd's words. Alignment works on a normalised character stream (case-folded, NFKD without combining
marks or zero-width characters, curly quotes straightened, whitespace dropped), so "Don’t" matches
"don't", "ｕ.ｓ." matches "u.s." and emoji with or without variation selectors match. Placeholder
tokens such as ``<user>`` or ``<number>`` with no literal counterpart take the text between their
aligned neighbours ("@alfred", "9").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from xmd.core.words import is_punctuation, split_words

PLACEHOLDER = re.compile(r"^<[^<>\s]+>$")
_QUOTES = {"’": "'", "‘": "'", "`": "'", "´": "'", "“": '"', "”": '"'}


def _norm_char(c: str) -> str:
    """What one character contributes to the alignment stream ('' for spaces and marks)."""
    if c.isspace():
        return ""
    c = _QUOTES.get(c, c)
    out = []
    for d in unicodedata.normalize("NFKD", c.casefold()):
        if unicodedata.category(d) in ("Mn", "Me", "Cf") or d.isspace():
            continue
        out.append(_QUOTES.get(d, d))
    return "".join(out)


def _stream(text: str) -> tuple[str, list[int]]:
    """Normalised ``text`` and, per normalised character, the index of the original character."""
    chars: list[str] = []
    where: list[int] = []
    for i, c in enumerate(text):
        n = _norm_char(c)
        chars.append(n)
        where.extend([i] * len(n))
    return "".join(chars), where


def _norm(s: str) -> str:
    return "".join(_norm_char(c) for c in s)


class TextWords:
    """One text's xmd words plus its normalised character stream, built once per text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.words, self.spans = split_words(text)
        self.stream, self.where = _stream(text)
        self.word_of = [-1] * len(text)
        for w, (s, e) in enumerate(self.spans):
            for i in range(s, e):
                self.word_of[i] = w
        self.starts = {s for s, _ in self.spans}
        self.ends = {e for _, e in self.spans}

    def words_in(self, a: int, b: int) -> list[int]:
        """Words overlapping stream positions ``[a, b)``."""
        if a >= b:
            return []
        ws = {self.word_of[self.where[k]] for k in range(a, b)}
        return sorted(w for w in ws if w >= 0)

    def words_in_chars(self, s: int, e: int) -> list[int]:
        """Words overlapping original character range ``[s, e)``."""
        return sorted({w for i in range(s, e) if (w := self.word_of[i]) >= 0})

    def at_word_start(self, k: int) -> bool:
        return k < len(self.where) and self.where[k] in self.starts

    def at_word_end(self, k: int) -> bool:
        return k > 0 and self.where[k - 1] + 1 in self.ends

    def find_phrase(self, phrase: str) -> list[list[int]]:
        """Every occurrence of ``phrase`` that starts and ends on a word boundary, as word lists."""
        key = _norm(phrase)
        if not key:
            return []
        out, k = [], self.stream.find(key)
        while k >= 0:
            if self.at_word_start(k) and self.at_word_end(k + len(key)):
                out.append(self.words_in(k, k + len(key)))
            k = self.stream.find(key, k + 1)
        return out


def content_words(words: list[int], all_words: list[str]) -> list[int]:
    """Drop punctuation from a multi-word match ("u.s." → u, s; "<user>" → user) unless nothing is left."""
    kept = [w for w in words if not is_punctuation(all_words[w])]
    return kept or words


def align_tokens(text: str, tokens: Sequence[str]) -> list[list[int] | None]:
    """For each token of another tokenisation of ``text``, the xmd word positions it covers.

    None marks a token that could not be placed (its text is absent and no unambiguous gap is
    left for it); a token of only invisible characters covers ``[]``. Tokens are matched left to
    right; a token not found right after the previous one may jump forward to a word start only
    if the next token then follows it, so a short token ("a") never skips over the text that
    later tokens need.
    """
    return align_with_coverage(text, tokens)[0]


def align_with_coverage(text: str, tokens: Sequence[str]) -> tuple[list[list[int] | None], float]:
    """:func:`align_tokens` plus the share of literal (non-placeholder) tokens found in the text."""
    t = TextWords(text)
    keys = [_norm(str(tok)) for tok in tokens]
    placed: list[tuple[int, int] | None] = [None] * len(keys)
    cur = 0
    stream = t.stream
    for i, key in enumerate(keys):
        if not key:
            continue
        if stream.startswith(key, cur):
            placed[i] = (cur, cur + len(key))
            cur += len(key)
            continue
        if PLACEHOLDER.match(str(tokens[i]).strip()):
            continue
        nxt = next((k for k in keys[i + 1 :] if k), None)
        k = stream.find(key, cur)
        while k >= 0:
            end = k + len(key)
            if t.at_word_start(k) and (nxt is None or stream.startswith(nxt, end) or PLACEHOLDER.match(nxt)):
                placed[i] = (k, end)
                cur = end
                break
            k = stream.find(key, k + 1)
    # A token with no visible character (a stray BOM) covers no word, which is not a failure.
    out: list[list[int] | None] = [None if key else [] for key in keys]
    for i, p in enumerate(placed):
        if p is not None:
            out[i] = content_words(t.words_in(*p), t.words)
    # Unplaced runs take the words between their placed neighbours.
    i = 0
    while i < len(keys):
        if placed[i] is not None or not keys[i]:
            i += 1
            continue
        j = i
        while j < len(keys) and placed[j] is None:
            j += 1
        run = [r for r in range(i, j) if keys[r]]
        lo = max((p[1] for p in placed[:i] if p is not None), default=0)
        hi = next((p[0] for p in placed[j:] if p is not None), len(stream))
        claimed = {w for r, p in enumerate(placed) if p is not None for w in t.words_in(*p)}
        region = [w for w in t.words_in(lo, hi) if w not in claimed]
        if len(run) == 1 and region:
            out[run[0]] = content_words(region, t.words)
        elif region and len(run) == len(region):
            for r, w in zip(run, region, strict=True):
                out[r] = [w]
        elif region:
            chunks = _whitespace_chunks(t, region)
            if len(chunks) == len(run):
                for r, chunk in zip(run, chunks, strict=True):
                    out[r] = content_words(chunk, t.words)
        i = j
    literal = [i for i, key in enumerate(keys) if key and not PLACEHOLDER.match(str(tokens[i]).strip())]
    found = sum(1 for i in literal if placed[i] is not None) / len(literal) if literal else 1.0
    return out, found


def _whitespace_chunks(t: TextWords, words: list[int]) -> list[list[int]]:
    """Group consecutive words that touch (no whitespace between them)."""
    chunks: list[list[int]] = []
    for w in words:
        if chunks and t.spans[chunks[-1][-1]][1] == t.spans[w][0] and chunks[-1][-1] == w - 1:
            chunks[-1].append(w)
        else:
            chunks.append([w])
    return chunks
