"""HateXplain as xmd examples: binary labels, rationales on xmd's words, identity words, deletion.

The data (Mathew et al., "HateXplain", AAAI 2021, MIT licence) lives outside the repository in
``../shared/data/hatexplain``; this module turns its CSVs into what ``bench/real_data/real_data.py`` needs and
is kept apart from the runner so that ``tests/`` can check every piece on the real files quickly.

- Label: majority of the three annotators; *toxic* (hatespeech or offensive) = 1, *normal* = 0.
- Text: the ``post_tokens`` joined by single spaces (placeholders such as ``<user>`` kept as they are),
  so every post token owns an exact character span and rationales can be moved onto xmd's words
  (which split ``<user>`` into ``<``, ``user``, ``>``) by character offsets.
- Rationale: a token marked by at least ``min_annotators`` (2) annotators; every xmd word inside a
  marked token is marked.
- Identity words: derived from the annotators' target communities (see :func:`derive_identity_words`).
"""

from __future__ import annotations

import ast
import csv
import os
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xmd.core.types import DataError, Example
from xmd.core.words import split_words, word_key

_ROOT = Path(__file__).resolve().parents[2]
LABELS = ["normal", "toxic"]
TOXIC = 1
# HateXplain's label ids: 0 hatespeech, 1 normal, 2 offensive.
_NORMAL_ID = 1

#: Neutral surface forms of each target community (names, singular/plural, adjective). Slurs and
#: pejorative spellings are left out on purpose: they are legitimate evidence of toxicity, and the
#: bias to remove is the model flagging a *neutral* mention of a group.
SURFACE_FORMS: dict[str, tuple[str, ...]] = {
    "African": ("african", "africans", "black", "blacks"),
    "Islam": ("islam", "islamic", "muslim", "muslims"),
    "Jewish": ("jew", "jews", "jewish"),
    "Homosexual": ("gay", "gays", "homosexual", "homosexuals", "lesbian", "lesbians", "queer", "lgbt"),
    "Women": ("women", "woman", "female", "females"),
    "Refugee": ("refugee", "refugees", "immigrant", "immigrants", "migrant", "migrants"),
    "Arab": ("arab", "arabs", "arabic"),
    "Caucasian": ("caucasian", "caucasians", "white", "whites"),
    "Hispanic": ("hispanic", "hispanics", "latino", "latinos", "mexican", "mexicans"),
    "Asian": ("asian", "asians", "chinese"),
    "Men": ("men",),
    "Christian": ("christian", "christians"),
    "Disability": ("disabled",),
    "Indian": ("indian", "indians"),
}


@dataclass
class Post:
    """One HateXplain post, reduced to what the benchmark uses."""

    id: str
    tokens: list[str]
    label: int
    targets: list[str]
    rationale_tokens: list[int] | None
    text: str = ""
    token_words: list[list[int]] = field(default_factory=list)
    annotator_rationales: list[list[int]] = field(default_factory=list)

    def example(self, split: str) -> Example:
        """The post as xmd sees it; ``meta`` keeps the raw rationale and token columns for evaluation mode."""
        meta = {"targets": self.targets, "rationales": self.annotator_rationales or None, "post_tokens": self.tokens}
        return Example(id=self.id, text=self.text, label=self.label, split=split, meta=meta)

    def word_rationale(self) -> list[int] | None:
        """0/1 per xmd word of ``text`` (None when the post has no agreed rationale)."""
        if self.rationale_tokens is None:
            return None
        n_words = len(split_words(self.text)[0])
        mask = [0] * n_words
        for flag, words in zip(self.rationale_tokens, self.token_words, strict=True):
            if flag:
                for w in words:
                    mask[w] = 1
        return mask if any(mask) else None


def data_dir() -> Path:
    """``$XMD_HATEXPLAIN_DIR``, else ``../shared/data/hatexplain`` beside the checkout (or beside its parent,
    for a git worktree one level deeper)."""
    env = os.environ.get("XMD_HATEXPLAIN_DIR")
    if env:
        return Path(env)
    for base in (_ROOT.parent, _ROOT.parent.parent):
        cand = base / "shared" / "data" / "hatexplain"
        if (cand / "val.csv").exists():
            return cand
    raise DataError("HateXplain CSVs not found: set XMD_HATEXPLAIN_DIR to the folder holding val.csv and test.csv")


def align_tokens(tokens: Sequence[str]) -> tuple[str, list[list[int]]]:
    """The tokens joined by spaces, and for each token the xmd word positions inside its span."""
    text = " ".join(tokens)
    _, spans = split_words(text)
    out: list[list[int]] = []
    start = 0
    j = 0
    for tok in tokens:
        end = start + len(tok)
        mine = []
        while j < len(spans) and spans[j][0] < end:
            if spans[j][1] > end:  # a word crossing a token boundary cannot happen with a space between them
                raise DataError(f"word {j} of {text!r} crosses the token {tok!r}")
            mine.append(j)
            j += 1
        out.append(mine)
        start = end + 1
    return text, out


def _literal(value: str, column: str, post_id: str):
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError) as exc:
        raise DataError(f"post {post_id}: column {column!r} is not a Python literal: {exc}") from None


def parse_row(row: dict[str, str], min_annotators: int = 2) -> Post:
    """One CSV row → :class:`Post` (majority label, agreed targets and rationale)."""
    pid = row["id"]
    ann = _literal(row["annotators"], "annotators", pid)
    tokens = _literal(row["post_tokens"], "post_tokens", pid)
    votes = Counter(ann["label"]).most_common()
    if len(votes) > 1 and votes[0][1] == votes[1][1]:
        raise DataError(f"post {pid}: no majority label among {ann['label']}")
    label = 0 if votes[0][0] == _NORMAL_ID else TOXIC
    named = Counter(t for ts in ann["target"] for t in set(ts))
    targets = sorted(t for t, n in named.items() if n >= min_annotators and t not in ("None", "Other"))
    rats = _literal(row["rationales"], "rationales", pid)
    rationale = None
    if rats:
        for r in rats:
            if len(r) != len(tokens):
                raise DataError(f"post {pid}: a rationale has {len(r)} flags for {len(tokens)} tokens")
        counts = [sum(int(r[i]) for r in rats) for i in range(len(tokens))]
        rationale = [1 if c >= min_annotators else 0 for c in counts]
        if not any(rationale):
            rationale = None
    text, token_words = align_tokens(tokens)
    return Post(pid, tokens, label, targets, rationale, text, token_words, [list(map(int, r)) for r in rats])


def load_posts(path: Path, min_annotators: int = 2) -> list[Post]:
    with Path(path).open(newline="", encoding="utf-8") as fh:
        return [parse_row(row, min_annotators) for row in csv.DictReader(fh)]


def stratified_split(posts: Sequence[Post], dev_frac: float, seed: int) -> tuple[list[Post], list[Post]]:
    """(train, dev): ``dev_frac`` of each label drawn with ``random.Random(seed)``; order is kept."""
    rng = random.Random(seed)
    dev_ids: set[str] = set()
    for label in sorted({p.label for p in posts}):
        ids = [p.id for p in posts if p.label == label]
        dev_ids.update(rng.sample(ids, round(dev_frac * len(ids))))
    return [p for p in posts if p.id not in dev_ids], [p for p in posts if p.id in dev_ids]


def subsample(posts: Sequence[Post], n: int | None, seed: int) -> list[Post]:
    """A seeded, stratified subsample of ``n`` posts (all of them when ``n`` is None or larger)."""
    if n is None or n >= len(posts):
        return list(posts)
    _, picked = stratified_split(posts, n / len(posts), seed)
    return picked


def post_keys(text: str) -> set[str]:
    return {word_key(w) for w in split_words(text)[0]}


def derive_identity_words(
    posts: Iterable[Post], min_community_posts: int = 20, min_word_posts: int = 3
) -> tuple[list[str], dict]:
    """Identity words from the annotators' targets in ``posts`` (the train part only).

    Communities named by at least two annotators of at least ``min_community_posts`` posts are kept;
    each contributes its :data:`SURFACE_FORMS` that occur in at least ``min_word_posts`` posts.
    Returns the sorted words and a record of the derivation (per community and per word counts).
    """
    posts = list(posts)
    community_posts = Counter(t for p in posts for t in p.targets)
    word_posts: Counter[str] = Counter()
    word_toxic: Counter[str] = Counter()
    for p in posts:
        keys = post_keys(p.text)
        for k in keys:
            word_posts[k] += 1
            word_toxic[k] += p.label
    kept_communities = sorted(c for c, n in community_posts.items() if n >= min_community_posts and c in SURFACE_FORMS)
    words: dict[str, str] = {}
    dropped: dict[str, int] = {}
    for c in kept_communities:
        for form in SURFACE_FORMS[c]:
            if word_posts[form] >= min_word_posts:
                words.setdefault(form, c)
            else:
                dropped[form] = word_posts[form]
    record = {
        "rule": (
            f"communities named by >= 2 annotators of >= {min_community_posts} train posts; their neutral surface "
            f"forms (bench/real_data/hatexplain.py SURFACE_FORMS) occurring in >= {min_word_posts} train posts"
        ),
        "community_posts": dict(community_posts.most_common()),
        "communities": kept_communities,
        "words": {
            w: {"community": c, "train_posts": word_posts[w], "toxic_share": round(word_toxic[w] / word_posts[w], 3)}
            for w, c in sorted(words.items())
        },
        "dropped_rare_forms": dropped,
    }
    return sorted(words), record


def identity_analysis(posts: Sequence[Post], words: Sequence[str]) -> dict:
    """Why an identity-word bias may or may not be there to remove: how toxic the posts with an identity word
    are in these (training) posts, and how often the annotators' rationale itself marks one."""
    keys = set(words)
    with_id = [p for p in posts if not keys.isdisjoint(post_keys(p.text))]
    without = [p for p in posts if keys.isdisjoint(post_keys(p.text))]
    toxic_id = [p for p in with_id if p.label == TOXIC and p.word_rationale() is not None]
    marked = 0
    for p in toxic_id:
        ws = split_words(p.text)[0]
        mask = p.word_rationale() or []
        marked += any(m and word_key(w) in keys for w, m in zip(ws, mask, strict=True))
    return {
        "posts_with_identity_word": len(with_id),
        "toxic_rate_with_identity_word": round(sum(p.label for p in with_id) / max(len(with_id), 1), 3),
        "toxic_rate_without": round(sum(p.label for p in without) / max(len(without), 1), 3),
        "toxic_posts_with_identity_word_and_rationale": len(toxic_id),
        "of_which_rationale_marks_an_identity_word": marked,
    }


def write_word_list(words: Sequence[str], path: Path) -> Path:
    """One word per line (the format ``xmd`` word-list feedback reads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
    return path
