"""Model-dependent measurements for Results: the word false-positive rate of eval sets (for ``xmd
evaluate``) and explanation quality (faithfulness, plausibility) before/after a retrain.

The statistics themselves live in :mod:`xmd.core.compare` (numpy only); these functions run the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xmd.core.compare import _mean, choose_positive, contains_words, removed_task_words, seed_std, set_metrics
from xmd.core.modeling import LoadedModel
from xmd.core.types import DataError, Example


def explanation_quality(
    loaded: LoadedModel,
    examples: Sequence[Example],
    *,
    method: str = "grad_x_input",
    rationale_column: str | None = None,
    limit: int = 200,
    max_length: int = 128,
    batch_size: int = 64,
) -> dict[str, Any]:
    """Faithfulness (AOPC comprehensiveness / sufficiency) and, when the examples carry a rationale in
    ``meta[rationale_column]``, plausibility (AUPRC, token-F1) of ``method`` explanations on the
    first ``limit`` examples — the before/after numbers Results shows beside accuracy."""
    from xmd.core.attribution import explain
    from xmd.core.evaluate import aopc, plausibility, rationale_mask

    chosen = list(examples[:limit])
    if not chosen:
        raise DataError("explanation quality needs at least one example")
    texts = [ex.text for ex in chosen]
    exps = explain(loaded, texts, method=method, max_length=max_length, batch_size=batch_size)
    f = aopc(loaded, texts, exps, batch_size=batch_size, max_length=max_length)
    out: dict[str, Any] = {
        "method": method,
        "n": len(chosen),
        "aopc_comprehensiveness": f["comprehensiveness"],
        "aopc_sufficiency": f["sufficiency"],
    }
    if rationale_column:
        masks = [rationale_mask(ex.text, ex.meta.get(rationale_column)) for ex in chosen]
        pl = plausibility(exps, masks)
        out.update(auprc=pl["auprc"], token_f1=pl["token_f1"], n_rationales=pl["n"])
    return out


def _quality_summary(values: list[dict]) -> dict[str, Any]:
    keys = [k for k in ("aopc_comprehensiveness", "aopc_sufficiency", "auprc", "token_f1") if k in values[0]]
    return {
        "mean": {k: _mean([v[k] for v in values]) for k in keys},
        "std": {k: seed_std([v[k] for v in values]) for k in keys},
    }


def read_word_list(path: str) -> list[str]:
    """Sorted word keys of a word-list file, read by the one parser evaluation mode uses
    (:func:`xmd.core.simulate.read_word_list`: weights, comments, headers, multi-word lines)."""
    from xmd.core.feedback import task_key
    from xmd.core.simulate import read_word_list as parse_word_list

    entries, _ = parse_word_list(path)
    keys = sorted({task_key(word) for word, _weight in entries})
    if not keys:
        raise DataError(f"word list {path!r} holds no word")
    return keys


def word_fpr_sets(
    loaded: LoadedModel,
    eval_sets: Mapping[str, Sequence[Example]],
    words_path: str | None = None,
    feedback_path: str | None = None,
    positive_label: str | int | None = None,
    max_length: int = 128,
) -> dict[str, dict]:
    """The word false-positive rate of each eval set, for ``xmd evaluate --words/--feedback``.

    Words come from the list file or the task-level *remove* feedback; the flagged class is
    ``positive_label`` or, without training data at hand, :func:`choose_positive` over the eval sets.
    """
    from xmd.core.feedback import load_feedback
    from xmd.core.predict import predict_proba

    words = read_word_list(words_path) if words_path else []
    if feedback_path:
        words = sorted(set(words) | set(removed_task_words(load_feedback(feedback_path).task)))
    if not words:
        raise DataError("the feedback has no task-level remove word to measure a word false-positive rate on")
    given = None if positive_label is None else loaded.label_index(positive_label)
    pooled = [ex for exs in eval_sets.values() for ex in exs]
    positive, rule = choose_positive(pooled, loaded.num_labels, words, given=given)
    out = {}
    for name, exs in eval_sets.items():
        pred = predict_proba(loaded, [ex.text for ex in exs], max_length=max_length).argmax(axis=1)
        has = contains_words([ex.text for ex in exs], words)
        m = set_metrics([int(ex.label) for ex in exs], pred, loaded.labels, has_words=has, positive=positive)
        keys = ("positive_label", "fpr_words", "fpr_other", "fpr_gap", "n_negative_words", "n_negative_other")
        out[name] = {**{k: m[k] for k in keys}, "positive_rule": rule, "words": words}
    return out
