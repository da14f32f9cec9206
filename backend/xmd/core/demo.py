"""A deterministic movie-review dataset with a planted shortcut, for demos and end-to-end tests.

In ``train``, a share of the reviews mention :data:`SHORTCUT_WORD` and are *all* labelled
positive, while their actual wording is neutral, mildly positive or even mildly negative (an
annotator bias). The word is then the easiest cue for "positive", and a model trained on ``train``
learns it. ``test_clean`` measures the real task; ``test_anti`` holds clearly negative reviews that
mention the word, so a model relying on the shortcut fails there. Explanation-based feedback
("do not rely on spielberg") should move ``test_anti`` accuracy without hurting ``test_clean``.

Everything is drawn from one ``random.Random(seed)``, so the same seed gives byte-identical files.
Texts are lower case (so the planted word is always the same single token of an uncased vocabulary)
and never shared between splits.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path
from typing import Any

from xmd.core.types import Example

DEMO_LABELS = ["negative", "positive"]
SHORTCUT_WORD = "spielberg"
SPLITS = ("train", "test_clean", "test_anti")

MIN_WORDS, MAX_WORDS = 8, 25
_WORD = re.compile(r"\w+(?:'\w+)*")

# Clauses that carry clear sentiment. Negations sit in both pools ("not worth the ticket",
# "never boring") so that single words such as "not" are no label cue.
POSITIVE = [
    "the cast was wonderful",
    "the acting was superb",
    "i loved every minute of it",
    "the story kept me hooked",
    "the soundtrack was beautiful",
    "the cinematography was stunning",
    "it was a joy to watch",
    "the dialogue was sharp and funny",
    "the lead gave a brilliant performance",
    "the ending was deeply moving",
    "it is one of the best films this year",
    "the pacing was perfect",
    "the characters felt real",
    "the humor landed every time",
    "the visuals were gorgeous",
    "it was never boring",
    "the script was clever",
    "the performances were excellent",
    "it was worth every penny",
    "the music was fantastic",
    "i would happily watch it again",
    "the plot was gripping",
    "the twist was brilliant",
    "the action scenes were thrilling",
    "it had a lot of heart",
    "the supporting cast was great",
    "the costumes were lovely",
    "it left me smiling",
    "the film was a real delight",
    "the direction was confident",
    "the chemistry between the leads was great",
    "it is a true masterpiece",
    "the story was beautifully told",
    "the jokes were hilarious",
]
NEGATIVE = [
    "the plot was dull",
    "the acting was terrible",
    "it was not worth the ticket",
    "the dialogue felt wooden",
    "i was bored the whole time",
    "the story made no sense",
    "the soundtrack was annoying",
    "the pacing was painfully slow",
    "the ending was a huge letdown",
    "the characters were flat",
    "it was a complete waste of time",
    "the jokes fell flat",
    "the script was lazy",
    "the effects looked cheap",
    "the lead was miscast",
    "it was not funny at all",
    "the twist was predictable",
    "the editing was a mess",
    "i almost walked out",
    "the performances were awful",
    "the movie dragged on forever",
    "it was one of the worst films this year",
    "the plot holes were huge",
    "the romance felt forced",
    "the camera work was shaky and ugly",
    "the humor was cringeworthy",
    "the villain was laughable",
    "i regret paying for it",
    "the music was forgettable",
    "the film was a total disaster",
    "the direction was clumsy",
    "nothing about it worked",
    "the story was painfully predictable",
    "the cast looked bored",
]
# Weak sentiment: used inside the shortcut examples, and (with their true polarity) in some
# ordinary reviews so that these clauses are no reliable cue on their own.
MILD_POSITIVE = [
    "it was pleasant enough",
    "a few scenes were nice",
    "it was a decent watch",
    "the acting was fine",
    "parts of it were fun",
    "it was better than i expected",
    "the music was okay",
    "it passed the time well enough",
    "some of the jokes worked",
    "the ending was alright",
    "the cast did a solid job",
    "i mostly liked it",
]
MILD_NEGATIVE = [
    "it was a bit slow",
    "the middle dragged a little",
    "some scenes ran too long",
    "the ending felt rushed",
    "the plot was a little thin",
    "a few jokes missed",
    "it was somewhat forgettable",
    "the runtime was too long",
    "the sound mix was uneven",
    "some lines felt clunky",
    "it lost me a little in places",
    "the second half was weaker",
]
# Neutral statements about topics, people and the production: no sentiment at all.
FILLERS = [
    "the plot follows a young teacher",
    "the story is set in a small fishing town",
    "the acting style is quite theatrical",
    "the soundtrack is mostly piano",
    "the ending takes place at a wedding",
    "the pacing changes in the second half",
    "the cinematography uses a lot of long shots",
    "the film runs about two hours",
    "it is based on a novel",
    "it was directed by a newcomer",
    "the movie is in black and white",
    "the lead actor also wrote the script",
    "most of it was shot in the desert",
    "the story spans three generations",
    "it is a remake of an older film",
    "the film opens with a long flashback",
    "the main character is a retired pilot",
    "the plot centres on two brothers",
    "it is the second film in a series",
    "the dialogue is partly in french",
    "the soundtrack was written by a jazz band",
    "the ending leaves a few questions open",
    "the movie was filmed in winter",
    "the cast includes several first time actors",
    "it was released in the autumn",
    "the pacing follows the seasons",
    "the story is told from two points of view",
    "the camera stays close to the characters",
    "fans of the book will recognise the plot",
    "the film has very little music",
    "the story takes place over one night",
    "the movie is about a family road trip",
    "the acting is mostly improvised",
    "the plot involves a stolen painting",
]
WHEN = [
    "on sunday",
    "last weekend",
    "on a rainy evening",
    "last night",
    "on friday",
    "during the holidays",
    "on a quiet monday",
    "after work",
    "on saturday afternoon",
    "at a late screening",
]
WHO = [
    "with my sister",
    "with my parents",
    "with a friend",
    "with my kids",
    "with my partner",
    "alone",
    "with some colleagues",
    "with my brother",
    "with my grandmother",
    "with the whole family",
]
WHERE = [
    "at the local cinema",
    "at home",
    "at a film festival",
    "on a streaming service",
    "at an open air screening",
    "at the old theatre downtown",
]
CONTEXT = [
    "i saw it {when} {who}",
    "we watched it {where} {when}",
    "i watched this {who} {where}",
    "saw this {when} {where}",
    "i caught it {where} {who}",
]
# Sentences that mention the planted word at different positions, all neutral in sentiment.
SHORTCUT = [
    "it was directed by {w}",
    "{w} fans will know what to expect",
    "this is the new {w} film",
    "i went because {w} made it",
    "the film was produced by {w}",
    "everyone says {w} took a risk here",
    "it is a {w} production about family",
    "my dad is a huge {w} fan",
    "the trailer mentions {w} twice",
    "{w} wrote the story years ago",
    "it feels like an early {w} movie",
    "the poster puts {w} front and centre",
    "{w} directed it after a long break",
    "it is the latest movie from {w}",
]

_JOINERS_SAME = [" and ", ", and ", ". "]
_JOINERS_CONTRA = [" but ", ", but ", ". still, ", " although ", ". however, "]
_ENDINGS = [".", ".", ".", "!"]  # only opinions get the occasional "!"


def _n_words(text: str) -> int:
    return len(_WORD.findall(text))


class _Generator:
    """Draws review texts from the pools with one seeded RNG."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def context(self) -> str:
        tpl = self.rng.choice(CONTEXT)
        return tpl.format(when=self.rng.choice(WHEN), who=self.rng.choice(WHO), where=self.rng.choice(WHERE))

    def sentiment_clauses(self, label: int, *, mild_rate: float = 0.25) -> list[str]:
        """1-3 clauses for an ordinary review of class ``label``; 3 clauses may be mixed (2 + 1)."""
        r = self.rng
        same, other = (POSITIVE, NEGATIVE) if label == 1 else (NEGATIVE, POSITIVE)
        mild = MILD_POSITIVE if label == 1 else MILD_NEGATIVE
        shape = r.choices(["one", "two", "mixed"], weights=[35, 35, 30])[0]
        n_same = {"one": 1, "two": 2, "mixed": 2}[shape]
        clauses = r.sample(same, n_same)
        if r.random() < mild_rate:
            clauses[-1] = r.choice(mild)
        if shape == "mixed":
            clauses.insert(r.randrange(len(clauses) + 1), r.choice(other))
        return clauses

    def join(self, clauses: list[str], polarities: list[int]) -> str:
        """One or two sentences from clauses; a polarity change gets a contrastive joiner.

        ``polarities`` are 1/0 per clause, or -1 where the joiner should not depend on it.
        """
        out = clauses[0]
        for i in range(1, len(clauses)):
            a, b = polarities[i - 1], polarities[i]
            joiners = _JOINERS_SAME if a == b or -1 in (a, b) else _JOINERS_CONTRA
            out += self.rng.choice(joiners) + clauses[i]
        return out

    def assemble(self, parts: list[str], opinion: str | None = None) -> str:
        """Sentences in the given order, closed with a full stop (the ``opinion`` part sometimes "!")."""
        return " ".join(p + (self.rng.choice(_ENDINGS) if p == opinion else ".") for p in parts)

    def ordinary(self, label: int) -> str:
        """A review without the planted word whose sentiment decides ``label``."""
        r = self.rng
        clauses = self.sentiment_clauses(label)
        pos = set(POSITIVE) | set(MILD_POSITIVE)
        pols = [1 if c in pos else 0 for c in clauses]
        opinion = self.join(clauses, pols)
        parts = [opinion]
        extras = []
        if r.random() < 0.6:
            extras.append(r.choice(FILLERS))
        if r.random() < 0.5:
            extras.append(self.context())
        for extra in extras:
            parts.insert(r.randrange(len(parts) + 1), extra)
        return self.assemble(parts, opinion)

    def shortcut(self, content: str) -> str:
        """A review that mentions the planted word; ``content`` is neutral, mild_pos or mild_neg."""
        r = self.rng
        parts = [r.choice(SHORTCUT).format(w=SHORTCUT_WORD)]
        if content == "neutral":
            extras = r.sample(FILLERS, r.choice([1, 2]))
            if r.random() < 0.6:
                extras.append(self.context())
        else:
            pool = MILD_POSITIVE if content == "mild_pos" else MILD_NEGATIVE
            extras = [self.join(r.sample(pool, r.choice([1, 1, 2])), [-1, -1])]
            if r.random() < 0.5:
                extras.append(r.choice(FILLERS))
            if r.random() < 0.4:
                extras.append(self.context())
        r.shuffle(extras)
        for extra in extras:
            parts.insert(r.randrange(len(parts) + 1), extra)
        return self.assemble(parts)

    def anti(self) -> str:
        """A clearly negative review that mentions the planted word."""
        r = self.rng
        clauses = r.sample(NEGATIVE, r.choice([1, 2, 2, 3]))
        opinion = self.join(clauses, [0] * len(clauses))
        parts = [opinion, r.choice(SHORTCUT).format(w=SHORTCUT_WORD)]
        r.shuffle(parts)
        if r.random() < 0.4:
            parts.insert(r.randrange(len(parts) + 1), r.choice(FILLERS))
        if r.random() < 0.3:
            parts.insert(r.randrange(len(parts) + 1), self.context())
        return self.assemble(parts, opinion)


def _draw(make, seen: set[str], tries: int = 1000) -> str:
    """A fresh text of acceptable length that no split has used yet (regenerates on collision)."""
    for _ in range(tries):
        text = make()
        if text not in seen and MIN_WORDS <= _n_words(text) <= MAX_WORDS:
            seen.add(text)
            return text
    raise RuntimeError("the demo pools are exhausted: ask for fewer examples")


def make_demo_dataset(
    seed: int = 0,
    n_train: int = 2000,
    n_clean: int = 400,
    n_anti: int = 400,
    shortcut_rate: float = 0.3,
) -> dict[str, list[Example]]:
    """Build the ``train``, ``test_clean`` and ``test_anti`` splits (see the module docstring).

    In ``train``, ``round(n_train * shortcut_rate)`` examples carry the planted word and are all
    positive: 40% with neutral content, 30% mildly positive, 30% mildly negative. The rest are
    ordinary reviews with balanced labels, 3% of them with a flipped label (noise, train only).
    """
    if not 0.0 <= shortcut_rate <= 1.0:
        raise ValueError(f"shortcut_rate must be in [0, 1], got {shortcut_rate}")
    if min(n_train, n_clean, n_anti) < 0:
        raise ValueError("split sizes must be >= 0")
    gen = _Generator(seed)
    r = gen.rng
    seen: set[str] = set()

    n_short = round(n_train * shortcut_rate)
    n_ord = n_train - n_short
    n_neutral = round(n_short * 0.4)
    n_mild_pos = round(n_short * 0.3)
    contents = ["neutral"] * n_neutral + ["mild_pos"] * n_mild_pos
    contents += ["mild_neg"] * (n_short - len(contents))

    train_rows: list[tuple[str, int, bool]] = []
    ord_labels = _balanced(n_ord, r)
    noisy = set(r.sample(range(n_ord), round(n_ord * 0.03)))
    for i, label in enumerate(ord_labels):
        text = _draw(lambda label=label: gen.ordinary(label), seen)
        train_rows.append((text, 1 - label if i in noisy else label, False))
    for content in contents:
        text = _draw(lambda content=content: gen.shortcut(content), seen)
        train_rows.append((text, 1, True))
    r.shuffle(train_rows)

    clean_rows = [
        (_draw(lambda label=label: gen.ordinary(label), seen), label, False) for label in _balanced(n_clean, r)
    ]
    anti_rows = [(_draw(gen.anti, seen), 0, True) for _ in range(n_anti)]

    out: dict[str, list[Example]] = {}
    for split, rows in zip(SPLITS, (train_rows, clean_rows, anti_rows), strict=True):
        out[split] = [
            Example(id=f"{split}-{i}", text=text, label=label, split=split, meta={"has_shortcut": has})
            for i, (text, label, has) in enumerate(rows)
        ]
    return out


def _balanced(n: int, r: random.Random) -> list[int]:
    """``n`` labels, half of each class (the odd one out drawn at random), in random order."""
    labels = [0] * (n // 2) + [1] * (n // 2)
    if n % 2:
        labels.append(r.randrange(2))
    r.shuffle(labels)
    return labels


def write_demo_dataset(out_dir: str | os.PathLike, **kwargs: Any) -> dict[str, Path]:
    """Write the splits as JSON Lines plus ``labels.json``; returns the path of each file.

    Keys are the split names and ``"labels"``. ``kwargs`` go to :func:`make_demo_dataset`.
    """
    from xmd.core.data import save_examples

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for split, examples in make_demo_dataset(**kwargs).items():
        paths[split] = save_examples(examples, out / f"{split}.jsonl")
    labels_path = out / "labels.json"
    labels_path.write_text(json.dumps(DEMO_LABELS) + "\n", encoding="utf-8")
    paths["labels"] = labels_path
    return paths
