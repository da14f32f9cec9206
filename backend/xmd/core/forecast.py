"""The effect forecast: what ignoring the corrected words would do, before a retrain is paid for.

A retrain with *remove* feedback teaches the model to ignore words. How much that can change the
slice the feedback is about is bounded by what the current model predicts once those words are gone
from its input. So the forecast predicts each eval set again with the words erased and, as the
control, with as many random *other* words erased from the same texts: an effect the random
erasure matches is the cost of shorter inputs, not of the words. Inference only, on at most
``max_examples`` examples per set (a seeded sample, stated in the result).

The same erasure is the ``strip`` rival of issue 30: the parent predicting with the corrected words
removed from its input, a filter anyone can write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xmd.core.compare import choose_positive, contains_words, paired_bootstrap, removed_task_words, set_metrics
from xmd.core.deletion import delete_positions
from xmd.core.feedback import FeedbackSet, resolve_instance, task_key
from xmd.core.modeling import LoadedModel
from xmd.core.predict import predict_proba
from xmd.core.types import Action, DataError, Example, Progress
from xmd.core.words import is_punctuation, split_words, word_key

#: Examples per eval set the forecast predicts (three passes over the words' slice, one over the rest).
MAX_EXAMPLES = 2000


def feedback_words(feedback: FeedbackSet, examples: Sequence[Example] = ()) -> list[str]:
    """Word keys the feedback asks the model to ignore: task-level *remove* words and the words of
    instance *remove* marks (from the words recorded with the feedback, else from ``examples``)."""
    keys = set(removed_task_words(feedback.task))
    texts = {ex.id: ex.text for ex in examples}
    for (eid, i), action in resolve_instance(feedback.instance).items():
        if action != Action.REMOVE:
            continue
        word = feedback.words.get((eid, i))
        if word is None and eid in texts:
            words = split_words(texts[eid])[0]
            word = words[i] if 0 <= i < len(words) else None
        if word is not None:
            keys.add(task_key(word))
    return sorted(k for k in keys if k)


def key_positions(text: str, keys: set[str]) -> list[int]:
    """Word positions of ``text`` whose :func:`word_key` is in ``keys``."""
    return [i for i, w in enumerate(split_words(text)[0]) if word_key(w) in keys]


def strip_words(text: str, keys: set[str]) -> str:
    """``text`` with every occurrence of the ``keys`` deleted (the ``strip`` rival's input)."""
    return delete_positions(text, key_positions(text, keys))


def erase_random(text: str, keys: set[str], rng: np.random.Generator) -> str:
    """``text`` with as many random other words deleted as it holds ``keys`` (punctuation is never
    picked, so the control deletes words, as the erasure does); fewer when the text has fewer."""
    words = split_words(text)[0]
    n = sum(word_key(w) in keys for w in words)
    others = [i for i, w in enumerate(words) if word_key(w) not in keys and not is_punctuation(w)]
    if not n or not others:
        return text
    picked = rng.choice(len(others), size=min(n, len(others)), replace=False)
    return delete_positions(text, {others[j] for j in picked})


def _sample(examples: Sequence[Example], limit: int, seed: int) -> list[Example]:
    if len(examples) <= limit:
        return list(examples)
    keep = np.sort(np.random.default_rng(seed).choice(len(examples), size=limit, replace=False))
    return [examples[int(i)] for i in keep]


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def sentence(name: str, r: Mapping[str, Any]) -> str:
    """The forecast of one eval set in words (what the Retrain screen and the CLI print)."""
    fpr, ci = r["fpr_words"], r["erased_vs_now"]["fpr_words"]
    if r["n_negative_words"] == 0:
        return f"{name}: no example outside {r['positive_label']!r} contains the words; nothing to forecast."
    return (
        f"{name}: ignoring these words would move the false-positive rate of {r['positive_label']!r} on examples "
        f"that contain them from {_fmt(fpr['now'])} to {_fmt(fpr['erased'])} (random words: {_fmt(fpr['random'])}; "
        f"n = {r['n_negative_words']}; 95% interval of the change {_fmt(ci['ci_low'])} to {_fmt(ci['ci_high'])})"
    )


def forecast(
    loaded: LoadedModel,
    eval_sets: Mapping[str, Sequence[Example]],
    words: Sequence[str],
    *,
    positive: int | None = None,
    reference: Sequence[Example] = (),
    max_examples: int = MAX_EXAMPLES,
    n_resamples: int = 1000,
    seed: int = 0,
    batch_size: int = 64,
    max_length: int = 128,
    progress: bool = False,
    on_batch: Progress | None = None,
) -> dict[str, Any]:
    """Per eval set: accuracy and the words' false-positive rate now, with the words erased and with
    as many random words erased, and paired bootstrap intervals of *erased − now* and *erased − random*.

    The flagged class is ``positive`` or :func:`choose_positive` over ``reference`` (the training
    data, where the words' lift is measured) or, without it, over the eval sets. ``on_batch`` hears of
    every predicted batch (``done`` / ``total`` texts over all sets) and may stop the forecast.
    """
    keys = {word_key(w) for w in words if word_key(w)}
    if not keys:
        raise DataError("the forecast needs at least one word to erase (a task-level or instance remove)")
    if max_examples < 1:
        raise DataError(f"max_examples must be at least 1, got {max_examples}")
    sampled = {name: _sample(exs, max_examples, seed) for name, exs in eval_sets.items()}
    for name, exs in sampled.items():
        if not exs or any(ex.label is None for ex in exs):
            raise DataError(f"eval set {name!r} needs labelled examples for a forecast")
    pool = list(reference) or [ex for exs in sampled.values() for ex in exs]
    positive, rule = choose_positive(pool, loaded.num_labels, sorted(keys), given=positive)
    has = {name: contains_words([ex.text for ex in exs], keys) for name, exs in sampled.items()}
    total = sum(len(exs) + 2 * int(has[name].sum()) for name, exs in sampled.items())
    done = 0

    def predict(texts: list[str]) -> np.ndarray:
        nonlocal done
        base = done

        def hook(k: int, _n: int) -> bool | None:
            return None if on_batch is None else on_batch(base + k, total)

        pred = predict_proba(
            loaded, texts, batch_size=batch_size, max_length=max_length, progress=progress, on_batch=hook
        ).argmax(axis=1)
        done += len(texts)
        return pred

    out: dict[str, Any] = {}
    for name, exs in sampled.items():
        rng = np.random.default_rng(seed)
        texts = [ex.text for ex in exs]
        idx = np.flatnonzero(has[name])
        now = predict(texts)
        erased, rand = now.copy(), now.copy()
        if idx.size:
            erased[idx] = predict([strip_words(texts[i], keys) for i in idx])
            rand[idx] = predict([erase_random(texts[i], keys, rng) for i in idx])
        y = [int(ex.label) for ex in exs]
        arms = {
            arm: set_metrics(y, p, loaded.labels, has_words=has[name], positive=positive)
            for arm, p in (("now", now), ("erased", erased), ("random", rand))
        }
        boot = {"has_words": has[name], "positive": positive, "n_resamples": n_resamples, "seed": seed}
        vs_now = paired_bootstrap(y, erased[None], now[None], loaded.labels, **boot)
        vs_random = paired_bootstrap(y, erased[None], rand[None], loaded.labels, **boot)
        pick = ("accuracy", "fpr_words")
        out[name] = {
            "n": len(exs),
            "sampled_from": len(eval_sets[name]),
            "n_with_words": int(idx.size),
            "n_negative_words": arms["now"]["n_negative_words"],
            "positive_label": loaded.labels[positive],
            "positive_rule": rule,
            **{m: {arm: arms[arm][m] for arm in arms} for m in (*pick, "fpr_other")},
            "erased_vs_now": {m: vs_now[m] for m in pick},
            "erased_vs_random": {m: vs_random[m] for m in pick},
        }
        out[name]["sentence"] = sentence(name, out[name])
    return {"words": sorted(keys), "max_examples": max_examples, "seed": seed, "sets": out}
