"""Evaluation: classification metrics, faithfulness (AOPC) and plausibility of word explanations.

Everything here is numpy-only (no scikit-learn) so that the core stays a light library. The
explanation metrics follow **ferret** (``ferret/evaluators/faithfulness_measures.py``,
``plausibility_measures.py`` and ``utils_from_soft_to_discrete.py``), moved from tokens to xmd's
words: special tokens never appear at word level, and a "deleted" word is simply left out when the
text is rebuilt from the remaining words' spans joined by single spaces, which keeps the model input
natural text (ferret decodes the remaining token ids instead).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from xmd.core.modeling import LoadedModel
from xmd.core.predict import predict_proba
from xmd.core.types import DataError, Example, Explanation, Progress

#: AOPC thresholds are i / N_STEPS of the words, i = 1..N_STEPS (10%, 20%, ..., 100%), as in ferret.
N_STEPS = 10


# --------------------------------------------------------------------------- classification


def _label_arrays(y_true: Sequence[int], y_pred: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(y_true)
    p = np.asarray(y_pred)
    if t.ndim != 1 or p.ndim != 1:
        raise ValueError("y_true and y_pred must be 1-D sequences of class indices")
    if t.shape != p.shape:
        raise ValueError(f"y_true has {t.size} labels but y_pred has {p.size}")
    if t.size == 0:
        raise ValueError("cannot compute a metric on zero examples")
    for name, arr in (("y_true", t), ("y_pred", p)):
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{name} must hold integer class indices, got dtype {arr.dtype}")
        if arr.min() < 0:
            raise ValueError(f"{name} holds a negative class index")
    return t.astype(np.int64), p.astype(np.int64)


def accuracy(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Fraction of examples whose predicted class equals the gold class."""
    t, p = _label_arrays(y_true, y_pred)
    return float(np.mean(t == p))


def confusion_matrix(y_true: Sequence[int], y_pred: Sequence[int], num_labels: int | None = None) -> np.ndarray:
    """``[num_labels, num_labels]`` counts; rows are gold classes, columns predicted (sklearn's layout).

    ``num_labels`` defaults to the largest index seen + 1; pass it so absent classes keep their row.
    """
    t, p = _label_arrays(y_true, y_pred)
    k = int(max(t.max(), p.max())) + 1 if num_labels is None else int(num_labels)
    if t.max() >= k or p.max() >= k:
        raise ValueError(f"class index {max(t.max(), p.max())} is out of range for {k} classes")
    return np.bincount(t * k + p, minlength=k * k).reshape(k, k)


def per_class_f1(y_true: Sequence[int], y_pred: Sequence[int], num_labels: int) -> list[float | None]:
    """F1 of each class, or None for a class absent from both gold and predictions (F1 undefined)."""
    cm = confusion_matrix(y_true, y_pred, num_labels)
    tp = np.diag(cm).astype(np.float64)
    fp = cm.sum(axis=0) - tp
    fn = cm.sum(axis=1) - tp
    denom = 2 * tp + fp + fn
    return [float(2 * tp[c] / denom[c]) if denom[c] > 0 else None for c in range(num_labels)]


def macro_f1(y_true: Sequence[int], y_pred: Sequence[int], num_labels: int) -> float:
    """Unweighted mean of per-class F1 over the classes present in ``y_true`` or ``y_pred``.

    Convention: a class absent from both has no defined F1 and is left out of the average (so a
    small evaluation set is not penalised for lacking a class); a class that appears on one side only
    has F1 = 0 and counts. This equals scikit-learn's ``f1_score(average="macro")`` with its default
    ``labels=None``.
    """
    f1s = [f for f in per_class_f1(y_true, y_pred, num_labels) if f is not None]
    return float(np.mean(f1s))


def _check_set(name: str, examples: Sequence[Example], num_labels: int) -> None:
    if len(examples) == 0:
        raise DataError(f"evaluation set {name!r} is empty")
    unlabeled = [ex.id for ex in examples if ex.label is None]
    if unlabeled:
        raise DataError(
            f"evaluation set {name!r} has {len(unlabeled)} example(s) without a label "
            f"(e.g. {unlabeled[:3]}); evaluation needs gold labels"
        )
    bad = [ex.id for ex in examples if isinstance(ex.label, bool) or not 0 <= int(ex.label) < num_labels]
    if bad:
        raise DataError(f"evaluation set {name!r} has label indices outside 0..{num_labels - 1} (e.g. {bad[:3]})")


def evaluate_sets(
    loaded: LoadedModel,
    eval_sets: Mapping[str, Sequence[Example]],
    *,
    batch_size: int = 64,
    max_length: int = 256,
    progress: bool = False,
    on_batch: Callable[[str], Progress] | None = None,
    predictions: dict[str, np.ndarray] | None = None,
) -> dict[str, dict]:
    """Accuracy, macro-F1 and per-class F1 of the model on each named set.

    ``on_batch(name)`` gives the progress hook of set ``name`` (it may stop the evaluation).
    ``predictions``, when given, receives each set's predicted classes (a paired comparison needs them).

    Returns ``{set: {"n", "accuracy", "macro_f1", "per_class_f1": {label_name: f1 | None}}}``. The
    prediction is the argmax of :func:`predict_proba` (first class on ties, like
    ``Explanation.prediction``). Every set is validated before any inference, so a bad set fails fast.
    """
    k = loaded.num_labels
    for name, examples in eval_sets.items():
        _check_set(name, examples, k)
    out: dict[str, dict] = {}
    for name, examples in eval_sets.items():
        probs = predict_proba(
            loaded,
            [ex.text for ex in examples],
            batch_size=batch_size,
            max_length=max_length,
            progress=progress,
            on_batch=on_batch(name) if on_batch is not None else None,
        )
        y_pred = probs.argmax(axis=1)
        if predictions is not None:
            predictions[name] = y_pred
        y_true = np.array([int(ex.label) for ex in examples], dtype=np.int64)
        f1s = per_class_f1(y_true, y_pred, k)
        out[name] = {
            "n": len(examples),
            "accuracy": accuracy(y_true, y_pred),
            "macro_f1": macro_f1(y_true, y_pred, k),
            "per_class_f1": {loaded.labels[c]: f1s[c] for c in range(k)},
        }
    return out


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)


def _diff(before: Any, after: Any) -> dict:
    if isinstance(before, Mapping) or isinstance(after, Mapping):
        b = before if isinstance(before, Mapping) else {}
        a = after if isinstance(after, Mapping) else {}
        return {key: _diff(b.get(key), a.get(key)) for key in dict.fromkeys([*b, *a])}
    delta = after - before if _is_number(before) and _is_number(after) else None
    return {"before": before, "after": after, "delta": delta}


def compare_metrics(before: Mapping[str, Mapping], after: Mapping[str, Mapping]) -> dict[str, dict]:
    """``{set: {metric: {"before", "after", "delta"}}}`` for two :func:`evaluate_sets` results.

    Nested metrics (``per_class_f1``) keep their nesting: ``{set: {"per_class_f1": {label: {...}}}}``.
    A value missing on one side (a set or class that only one run has, an undefined F1) gives
    ``delta=None`` rather than an error, because runs before and after training may differ in sets.
    """
    return {name: _diff(before.get(name), after.get(name)) for name in dict.fromkeys([*before, *after])}


# --------------------------------------------------------------------------- faithfulness


def _ranked_positive(scores: Sequence[float]) -> list[int]:
    """Positions with a positive score, highest first; ties go to the earlier word (deterministic)."""
    return sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))


def removal_steps(scores: Sequence[float]) -> list[list[int]]:
    """Word positions forming the rationale at each AOPC threshold, most important first.

    Mirrors ferret's default ``based_on="perc"`` rule: for threshold q = i/10 and n words,
    ``k = int(q * n)`` (floor; computed here exactly as ``i * n // 10``, which equals ferret's float
    expression). A threshold with k = 0 is skipped. The rationale is the top-k words restricted to
    positive scores, i.e. the top ``min(k, number of positive words)`` positive words. A rationale
    identical to the previous one is dropped, as ferret does, so AOPC averages over *distinct*
    rationales (short texts and few positive words give fewer than 10 steps). Returns ``[]`` when no
    word has a positive score.
    """
    n = len(scores)
    ranked = _ranked_positive(scores)
    steps: list[list[int]] = []
    last = 0
    for i in range(1, N_STEPS + 1):
        k = min(i * n // N_STEPS, len(ranked))
        if k == 0 or k == last:
            continue
        steps.append(ranked[:k])
        last = k
    return steps


def _check_words(words: Sequence[str], spans: Sequence[tuple[int, int]], scores: Sequence[float], text: str) -> None:
    if not len(words) == len(spans) == len(scores):
        raise DataError(f"explanation has {len(words)} words, {len(spans)} spans and {len(scores)} scores")
    for j, (w, (s, e)) in enumerate(zip(words, spans, strict=True)):
        if text[s:e] != w:
            raise DataError(f"word {j} {w!r} does not match the text at {s}:{e}; explanation is for another text")
    if not all(math.isfinite(float(x)) for x in scores):
        raise DataError("explanation scores must be finite numbers")


def perturbations(
    words: Sequence[str], spans: Sequence[tuple[int, int]], scores: Sequence[float], text: str
) -> tuple[list[str], list[str]]:
    """Texts for each step of :func:`removal_steps`: (rationale deleted, only rationale kept).

    Both are rebuilt from the kept words' spans in their original order, joined by single spaces.
    """
    _check_words(words, spans, scores, text)
    comp: list[str] = []
    suff: list[str] = []
    for top in removal_steps(scores):
        chosen = set(top)
        comp.append(" ".join(text[s:e] for j, (s, e) in enumerate(spans) if j not in chosen))
        suff.append(" ".join(text[s:e] for j, (s, e) in enumerate(spans) if j in chosen))
    return comp, suff


def aopc(
    loaded: LoadedModel,
    texts: Sequence[str],
    explanations: Sequence[Explanation],
    *,
    batch_size: int = 64,
    max_length: int = 256,
) -> dict:
    """AOPC comprehensiveness (higher = better) and sufficiency (lower = better) of word explanations.

    At each step of :func:`removal_steps`, comprehensiveness is ``p_target(text) - p_target(text
    without the rationale)`` and sufficiency is ``p_target(text) - p_target(rationale only)``, with
    ``target = Explanation.target``; AOPC is their mean over the steps. An explanation with no
    positive word has no step: as in ferret it scores comprehensiveness 0 and sufficiency 1 (the
    worst values, so that an empty rationale never looks sufficient), is flagged ``no_positive`` and
    still counts in the means. All full and perturbed texts (deduplicated) go through one batched
    :func:`predict_proba` call.

    Returns ``{"comprehensiveness", "sufficiency", "n", "n_no_positive", "per_example": [{
    "comprehensiveness", "sufficiency", "target", "p_full", "k", "comprehensiveness_curve",
    "sufficiency_curve", "no_positive"}]}``.
    """
    if len(texts) != len(explanations):
        raise DataError(f"{len(texts)} texts but {len(explanations)} explanations")
    if len(texts) == 0:
        raise DataError("AOPC needs at least one explanation")
    index: dict[str, int] = {}

    def slot(t: str) -> int:
        return index.setdefault(t, len(index))

    plans = []
    for text, ex in zip(texts, explanations, strict=True):
        if not 0 <= ex.target < loaded.num_labels:
            raise DataError(f"explanation target {ex.target} is out of range for {loaded.num_labels} classes")
        comp, suff = perturbations(ex.words, ex.spans, ex.scores, text)
        ks = [len(top) for top in removal_steps(ex.scores)]
        plans.append((slot(text), [slot(t) for t in comp], [slot(t) for t in suff], ks))
    probs = predict_proba(loaded, list(index), batch_size=batch_size, max_length=max_length).astype(np.float64)

    per_example = []
    for ex, (full, comp_ids, suff_ids, ks) in zip(explanations, plans, strict=True):
        p = probs[:, ex.target]
        base = float(p[full])
        comp_curve = [base - float(p[i]) for i in comp_ids]
        suff_curve = [base - float(p[i]) for i in suff_ids]
        empty = not ks
        per_example.append(
            {
                "comprehensiveness": 0.0 if empty else float(np.mean(comp_curve)),
                "sufficiency": 1.0 if empty else float(np.mean(suff_curve)),
                "target": ex.target,
                "p_full": base,
                "k": ks,
                "comprehensiveness_curve": comp_curve,
                "sufficiency_curve": suff_curve,
                "no_positive": empty,
            }
        )
    return {
        "comprehensiveness": float(np.mean([r["comprehensiveness"] for r in per_example])),
        "sufficiency": float(np.mean([r["sufficiency"] for r in per_example])),
        "n": len(per_example),
        "n_no_positive": sum(r["no_positive"] for r in per_example),
        "per_example": per_example,
    }


# --------------------------------------------------------------------------- plausibility


def _rationale_and_scores(rationale: Sequence[int], scores: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    r = np.asarray(rationale)
    s = np.asarray(scores, dtype=np.float64)
    if r.ndim != 1 or r.shape != s.shape:
        raise DataError(f"rationale has {r.size} entries but there are {s.size} word scores")
    if not np.isin(r, (0, 1)).all():
        raise DataError("a rationale must be binary (0/1 per word)")
    if not np.isfinite(s).all():
        raise DataError("explanation scores must be finite numbers")
    if r.sum() == 0:
        raise DataError("the rationale marks no word; plausibility is undefined")
    # ferret (only_pos=True, its default) scores plausibility on the positive part of the scores:
    # a word pushing away from the target is as "not highlighted" as a word with score 0.
    return r.astype(np.int64), np.maximum(s, 0.0)


def auprc(rationale: Sequence[int], scores: Sequence[float], *, method: Literal["ap", "trapezoid"] = "ap") -> float:
    """Area under the precision-recall curve of the (positive-part) scores against a human rationale.

    The curve has one point per *distinct* score (all words tied at a score enter together), so the
    result does not depend on word order and ties are deterministic. ``method="ap"`` (default) is
    average precision, ``sum (R_i - R_{i-1}) * P_i`` (scikit-learn's ``average_precision_score``).
    ferret instead uses ``auc(recall, precision)`` on ``precision_recall_curve``, a trapezoid from
    (recall 0, precision 1) that linearly interpolates and so is optimistic: ``method="trapezoid"``
    reproduces it.
    """
    r, s = _rationale_and_scores(rationale, scores)
    order = np.argsort(-s, kind="stable")
    s, r = s[order], r[order]
    tps = np.cumsum(r)
    fps = np.cumsum(1 - r)
    last = np.r_[np.flatnonzero(np.diff(s)), s.size - 1]  # last position of each distinct score
    tps, fps = tps[last], fps[last]
    precision = tps / (tps + fps)
    recall = tps / tps[-1]
    if method == "ap":
        return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))
    if method == "trapezoid":
        rec = np.r_[0.0, recall]
        prec = np.r_[1.0, precision]
        return float(np.sum(np.diff(rec) * (prec[1:] + prec[:-1]) / 2))
    raise ValueError(f"unknown AUPRC method {method!r}; use 'ap' or 'trapezoid'")


def token_f1(rationale: Sequence[int], scores: Sequence[float], top_k: int | None = None) -> float:
    """F1 between the human rationale and the top-k positive-score words.

    As in ferret, the predicted rationale is the top-k words restricted to positive scores (fewer
    than k when fewer words are positive; F1 = 0 when none is). ``top_k`` defaults to the number of
    rationale words of this example; ferret's default is a fixed 5 (its docs suggest the dataset's
    mean rationale length, after ERASER). Ties go to the earlier word.
    """
    r, s = _rationale_and_scores(rationale, scores)
    n_true = int(r.sum())
    k = n_true if top_k is None else int(top_k)
    if k < 0:
        raise ValueError("top_k must be >= 0")
    chosen = _ranked_positive(s.tolist())[:k]
    tp = int(r[chosen].sum()) if chosen else 0
    if tp == 0:
        return 0.0
    precision = tp / len(chosen)
    recall = tp / n_true
    return 2 * precision * recall / (precision + recall)


def plausibility(
    explanations: Sequence[Explanation], rationales: Sequence[Sequence[int] | None]
) -> dict[str, float | int | None]:
    """Mean AUPRC (average precision) and token-F1 of explanations against human rationales.

    Examples whose rationale is None or marks no word are skipped (plausibility is undefined there)
    and counted in ``n_skipped``; the means are None when nothing is left. Returns ``{"auprc",
    "token_f1", "n", "n_skipped"}``.
    """
    if len(explanations) != len(rationales):
        raise DataError(f"{len(explanations)} explanations but {len(rationales)} rationales")
    aps: list[float] = []
    f1s: list[float] = []
    skipped = 0
    for ex, rat in zip(explanations, rationales, strict=True):
        if rat is None or sum(int(v) for v in rat) == 0:
            if rat is not None and len(rat) != len(ex.words):
                raise DataError(f"rationale has {len(rat)} entries but the explanation has {len(ex.words)} words")
            skipped += 1
            continue
        aps.append(auprc(rat, ex.scores))
        f1s.append(token_f1(rat, ex.scores))
    return {
        "auprc": float(np.mean(aps)) if aps else None,
        "token_f1": float(np.mean(f1s)) if f1s else None,
        "n": len(aps),
        "n_skipped": skipped,
    }


def rationale_mask(text: str, rationale: Any) -> list[int] | None:
    """Turn a rationale as people store it into one 0/1 flag per word of ``text``.

    Accepted: a list of 0/1 flags (one per word), a list of word positions, a list of words (every
    occurrence is marked, case-insensitively), or a space-separated string of words. None/empty → None.
    """
    from xmd.core.words import split_words, word_key

    words = split_words(text)[0]
    if rationale is None or (isinstance(rationale, str) and not rationale.strip()):
        return None
    if isinstance(rationale, str):
        rationale = rationale.split()
    items = list(rationale)
    if not items:
        return None
    if all(isinstance(v, str) for v in items):
        keys = {word_key(w) for w in items}
        return [1 if word_key(w) in keys else 0 for w in words]
    if all(isinstance(v, bool | int | np.integer) for v in items):
        if len(items) == len(words) and set(int(v) for v in items) <= {0, 1}:
            return [int(v) for v in items]
        if all(0 <= int(v) < len(words) for v in items):
            marked = {int(v) for v in items}
            return [1 if i in marked else 0 for i in range(len(words))]
    raise DataError(
        f"cannot read rationale {rationale!r} for a text of {len(words)} words: give 0/1 flags per word, "
        "word positions, or the rationale words"
    )
