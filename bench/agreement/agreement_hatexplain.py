"""How much do HateXplain's three annotators agree on rationales, by xmd's agreement code? Prints one JSON.

HateXplain (``../shared/data/hatexplain``, validation and test splits) gives each hateful or offensive post
up to three annotators' token rationales. They are imported as three simulated annotators: the *slot* of
a rationale in the row (first, second, third) is the annotator — HateXplain's annotator ids differ per
post, so ``annotator1`` is not one person across posts. Each flagged token becomes an *add* mark on each
xmd word inside it (:func:`bench.real_data.hatexplain.align_tokens`).

Measured with :func:`xmd.core.agreement.agreement`: Cohen's κ per pair, Fleiss' κ and Krippendorff's α
on the words of the posts where all three gave a rationale; α again on every post with at least one
rationale, where all three saw the post (an annotator who judged it normal gave no rationale: "none"
on every word). Then the consensus masks (:func:`xmd.core.consensus.consensus`) of the policies, by size
and against the dataset's own ground truth (a word flagged by ≥ 2 annotators). No model is trained.

    python -m bench.agreement.agreement_hatexplain > bench/agreement/results/agreement_hatexplain.json
"""

from __future__ import annotations

import importlib.metadata
import platform
import time
from collections.abc import Sequence

from xmd.core.agreement import agreement, annotator_marks
from xmd.core.consensus import Policy, consensus, mask_sizes
from xmd.core.feedback import FeedbackSet
from xmd.core.types import Action, InstanceFeedback

from bench.benchlib import emit
from bench.real_data.hatexplain import Post, data_dir, load_posts

NAMES = ("annotator1", "annotator2", "annotator3")


def import_annotators(posts: Sequence[Post]) -> tuple[dict[str, FeedbackSet], dict[str, int], dict[str, str]]:
    """Each rationale slot as one annotator's feedback (add marks), with every post's word count and text."""
    feedbacks = {name: FeedbackSet() for name in NAMES}
    n_words: dict[str, int] = {}
    texts: dict[str, str] = {}
    for post in posts:
        n_words[post.id] = sum(len(ws) for ws in post.token_words)
        texts[post.id] = post.text
        for name, flags in zip(NAMES, post.annotator_rationales, strict=False):
            fs = feedbacks[name]
            for flag, words in zip(flags, post.token_words, strict=True):
                if flag:
                    for w in words:
                        fs.instance.append(InstanceFeedback(post.id, w, Action.ADD, f"simulated:hatexplain:{name}"))
    return feedbacks, n_words, texts


def _mask(fs: FeedbackSet) -> set[tuple[str, int]]:
    return {(f.example_id, f.word_index) for f in fs.instance}


def _overlap(a: set[tuple[str, int]], b: set[tuple[str, int]]) -> dict[str, float | None]:
    """Precision/recall/Jaccard of mask ``a`` against the reference ``b``."""
    inter = len(a & b)
    return {
        "precision": round(inter / len(a), 4) if a else None,
        "recall": round(inter / len(b), 4) if b else None,
        "jaccard": round(inter / len(a | b), 4) if a | b else None,
    }


def masks(posts: Sequence[Post], seen_all: bool) -> dict[str, dict]:
    """Consensus mask sizes per policy and per single annotator, against the ≥ 2-annotator reference."""
    feedbacks, _, _ = import_annotators(posts)
    ids = [p.id for p in posts]
    seen = {n: ids for n in NAMES} if seen_all else None
    reference = {
        (p.id, w)
        for p in posts
        for flag, words in zip(
            [sum(col) >= 2 for col in zip(*p.annotator_rationales, strict=True)], p.token_words, strict=True
        )
        if flag
        for w in words
    }
    out: dict[str, dict] = {}
    runs: list[tuple[str, Policy, int | None]] = [
        ("union", Policy.UNION, None),
        ("majority", Policy.MAJORITY, None),
        ("at_least_2", Policy.AT_LEAST_K, 2),
        ("at_least_3", Policy.AT_LEAST_K, 3),
    ]
    for label, policy, k in runs:
        res = consensus(feedbacks, policy, k=k, seen=seen)
        m = _mask(res.feedback)
        out[label] = {"words": mask_sizes(res)["add"], "posts": len({e for e, _ in m}), **_overlap(m, reference)}
    for name in NAMES:
        m = _mask(feedbacks[name])
        out[name] = {"words": len(m), "posts": len({e for e, _ in m}), **_overlap(m, reference)}
    out["reference_ge2"] = {"words": len(reference), "posts": len({e for e, _ in reference})}
    return out


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def measure(posts: Sequence[Post], *, texts: bool) -> dict:
    """The agreement summary, all three annotators having seen every post."""
    feedbacks, n_words, text_of = import_annotators(posts)
    ids = [p.id for p in posts]
    people = [annotator_marks(n, feedbacks[n], ids) for n in NAMES]
    import krippendorff  # noqa: F401  (imported before the clock starts: scikit-learn's import alone takes seconds)
    import sklearn.metrics  # noqa: F401

    t0 = time.perf_counter()
    res = agreement(people, n_words, texts=text_of if texts else None, top_words=15)
    seconds = time.perf_counter() - t0
    return {
        "n_posts": len(posts),
        "n_examples": res["n_examples"],
        "n_tokens": res["n_tokens"],
        "marks": res["marks"],
        "pairs": [{**p, "kappa": _round(p["kappa"]), "observed": _round(p["observed"])} for p in res["pairs"]],
        "fleiss_kappa": _round(res["fleiss_kappa"]),
        "alpha": _round(res["alpha"]),
        "per_word": [{**w, "alpha": _round(w["alpha"])} for w in res["per_word"]],
        "seconds": round(seconds, 3),
    }


def main() -> None:
    splits = {name: load_posts(data_dir() / f"{name}.csv") for name in ("val", "test")}
    posts = [p for ps in splits.values() for p in ps]
    three = [p for p in posts if len(p.annotator_rationales) == 3]
    some = [p for p in posts if p.annotator_rationales]
    doc = {
        "study": "agreement_hatexplain",
        "data": {
            "source": "HateXplain validation + test CSVs",
            "posts": len(posts),
            "posts_with_rationales": len(some),
            "posts_with_three_rationales": len(three),
            "per_split_three": {s: sum(len(p.annotator_rationales) == 3 for p in ps) for s, ps in splits.items()},
        },
        "three_rationales": measure(three, texts=True),
        "any_rationale_all_saw": measure(some, texts=False),
        "masks_three_rationales": masks(three, seen_all=True),
        "masks_any_rationale_all_saw": masks(some, seen_all=True),
        "environment": {
            "python": platform.python_version(),
            **{p: importlib.metadata.version(p) for p in ("numpy", "scikit-learn", "krippendorff")},
        },
    }
    emit(doc)


if __name__ == "__main__":
    main()
