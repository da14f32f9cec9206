"""A retrained version against the version it was trained from, on the same examples (issues 30 and 33).

Every retrain — with or without controls — records, per eval set, the parent's accuracy and macro-F1
beside the new version's, and the false-positive rate of the flagged class on the examples that
contain the corrected words (task-level *remove* words and the words of instance *remove* marks,
:func:`xmd.core.forecast.feedback_words`, the slice the effect forecast used) and on the others. Each
change comes with a paired bootstrap 95 % interval (:func:`xmd.core.compare.paired_bootstrap`: the
same resampled examples for both versions) and a verdict (:func:`xmd.core.compare.verdict`): beyond
noise when the interval excludes 0 and the change exceeds the seed noise (0 with one seed, which the
sentences say). A drop beyond noise is said in plain words: "v2 is 1.9 points less accurate on
stf_test than v1".

A retrain without an eval set measures on a held-out share of its training data
(:func:`holdout_split`: :data:`HOLDOUT_SHARE` of it, at most :data:`HOLDOUT_MAX` examples, seeded,
left out of training), so no version is ever without an accuracy figure.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xmd.core.compare import choose_positive, contains_words, paired_bootstrap, seed_std, set_metrics, verdict
from xmd.core.feedback import FeedbackSet
from xmd.core.types import DataError, Example

#: Share of the training examples held out when a retrain has no eval set, and its cap: 10 % keeps
#: 90 % for training; 500 examples give an accuracy interval of about ±4 points at 80 % accuracy.
HOLDOUT_SHARE = 0.10
HOLDOUT_MAX = 500
#: The name the held-out share goes by where eval sets are listed.
HOLDOUT_NAME = "held-out training share"

#: The metrics compared, and whether higher (+1) or lower (-1) is better.
METRICS = {"accuracy": 1, "macro_f1": 1, "fpr_words": -1, "fpr_other": -1, "fnr_words": -1, "fnr_other": -1}


def holdout_split(
    train: Sequence[Example],
    feedback: FeedbackSet | None = None,
    *,
    share: float = HOLDOUT_SHARE,
    max_examples: int = HOLDOUT_MAX,
    seed: int = 0,
) -> tuple[list[Example], list[Example], dict[str, Any]]:
    """``(rest, held_out, description)``: ``share`` of ``train`` (at least 1, at most ``max_examples``)
    drawn with ``seed`` from the labelled examples that carry no instance-level feedback (no mark a
    person made is left out of training); ``rest`` keeps the others in their order. DataError when
    fewer than two examples could take part."""
    if not 0 < share < 1 or max_examples < 1:
        raise DataError(f"the held-out share must be in (0, 1) and its cap >= 1, got {share} and {max_examples}")
    marked = {f.example_id for f in (feedback.instance if feedback else [])}
    pool = [i for i, ex in enumerate(train) if ex.label is not None and ex.id not in marked]
    if len(train) < 2 or not pool:
        raise DataError("no eval set was given and the training data has no labelled example to hold out")
    n = min(len(pool), max_examples, max(1, round(share * len(train))))
    held = set(random.Random(seed).sample(pool, n))
    description = {
        "name": HOLDOUT_NAME,
        "share": share,
        "max_examples": max_examples,
        "seed": seed,
        "n": n,
        "n_train": len(train) - n,
        "drawn_from": "labelled training examples without instance-level feedback; left out of training",
    }
    rest = [ex for i, ex in enumerate(train) if i not in held]
    return rest, [train[i] for i in sorted(held)], description


def compare_set(
    y_true: Sequence[int],
    parent_pred: Sequence[int],
    new_pred: np.ndarray,
    labels: Sequence[str],
    *,
    has_words: Sequence[bool] | None = None,
    positive: int | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """One eval set: ``{"n", "n_seeds", "n_negative_words", "n_negative_other", "metrics": {metric:
    {"parent", "new", "diff", "ci_low", "ci_high", "noise", "verdict"}}}``. ``new_pred`` is ``[S, N]``
    (one row per seed; ``new`` and ``diff`` are means over seeds, each seed paired with the parent)."""
    new = np.atleast_2d(np.asarray(new_pred, dtype=np.int64))
    parent = np.asarray(parent_pred, dtype=np.int64)
    kw = {"has_words": has_words, "positive": positive}
    before = set_metrics(y_true, parent, labels, **kw)
    after = [set_metrics(y_true, p, labels, **kw) for p in new]
    boot = paired_bootstrap(
        y_true, new, np.tile(parent, (new.shape[0], 1)), labels, n_resamples=n_resamples, seed=seed, **kw
    )
    rows = {}
    for metric, direction in METRICS.items():
        if metric not in before or metric not in boot:
            continue
        values = [m.get(metric) for m in after]
        defined = [v for v in values if v is not None]
        noise = seed_std(values)
        d = boot[metric]
        rows[metric] = {
            "parent": before[metric],
            "new": float(np.mean(defined)) if defined else None,
            **d,
            "noise": noise,
            "verdict": verdict(d["diff"], d["ci_low"], d["ci_high"], noise, direction),
        }
    return {
        "n": len(parent),
        "n_seeds": int(new.shape[0]),
        "n_negative_words": before.get("n_negative_words"),
        "n_negative_other": before.get("n_negative_other"),
        "n_positive_words": before.get("n_positive_words"),
        "n_positive_other": before.get("n_positive_other"),
        "metrics": rows,
    }


def compare_sets(
    sets: Mapping[str, Sequence[Example]],
    parent_preds: Mapping[str, Sequence[int]],
    new_preds: Mapping[str, np.ndarray],
    labels: Sequence[str],
    *,
    feedback: FeedbackSet,
    reference: Sequence[Example] = (),
    positive: int | None = None,
    names: tuple[str, str] = ("the parent", "the new version"),
    holdout: Mapping[str, Any] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Every eval set's :func:`compare_set`, with the words' slice and the flagged class chosen once:
    the words are :func:`~xmd.core.forecast.feedback_words`; the flagged class ``positive`` or
    :func:`~xmd.core.compare.choose_positive` over ``reference`` (the training data). ``names`` are
    the two versions as the sentences call them; ``holdout`` the description of a held-out set."""
    from xmd.core.forecast import feedback_words

    words = feedback_words(feedback, reference)
    pos, rule = (None, None)
    if words:
        pool = list(reference) or [ex for exs in sets.values() for ex in exs]
        pos, rule = choose_positive(pool, len(labels), words, given=positive)
    out_sets = {}
    for name, exs in sets.items():
        if name not in parent_preds or name not in new_preds:
            continue
        has = contains_words([ex.text for ex in exs], words) if words else None
        y = [int(ex.label) for ex in exs]  # eval sets are checked for labels before they are measured
        out_sets[name] = compare_set(
            y, parent_preds[name], new_preds[name], labels, has_words=has, positive=pos,
            n_resamples=n_resamples, seed=seed,
        )  # fmt: skip
    result = {
        "names": list(names),
        "words": words,
        "positive": None if pos is None else {"index": pos, "label": labels[pos], "rule": rule},
        "bootstrap": {"n_resamples": n_resamples, "seed": seed, "level": 0.95},
        "holdout": dict(holdout) if holdout else None,
        "sets": out_sets,
    }
    result["sentences"] = sentences(result)
    for set_name, one in out_sets.items():  # each set's own, by metric (the screen flags a drop with it)
        one["sentences"] = _set_sentences(set_name, one, names, result["positive"])
    return result


def from_comparison(
    comparison: Mapping[str, Any],
    sets: Mapping[str, Sequence[Example]],
    feedback: FeedbackSet,
    *,
    reference: Sequence[Example] = (),
    names: tuple[str, str] = ("the parent", "the new version"),
    holdout: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """:func:`compare_sets` of the debug arm (every seed) against the parent, from the per-example
    predictions a comparison with controls keeps (``Comparison.to_dict()``, :mod:`xmd.core.controls`);
    the flagged class is the comparison's own. None without eval sets."""
    cmp_sets = comparison.get("sets") or {}
    parent = {n: s["predictions"]["parent"] for n, s in cmp_sets.items() if "debug" in s.get("predictions", {})}
    if not parent:
        return None
    new = {n: np.asarray(cmp_sets[n]["predictions"]["debug"]) for n in parent}
    bootstrap = (comparison.get("settings") or {}).get("bootstrap") or {}
    chosen = comparison.get("positive")
    out = compare_sets(
        {n: sets[n] for n in parent if n in sets}, parent, new, comparison["labels"], feedback=feedback,
        reference=reference, positive=(chosen or {}).get("index"), names=names,
        holdout=holdout, n_resamples=int(bootstrap.get("n_resamples", 1000)), seed=int(bootstrap.get("seed", 0)),
    )  # fmt: skip
    if chosen:  # the comparison's class, with the rule that chose it there
        out["positive"] = dict(chosen)
    return out


def _pts(x: float) -> str:
    return f"{x * 100:+.1f}"


def _interval(row: Mapping[str, Any], n_seeds: int) -> str:
    noise = (
        "one seed: no seed noise is measured, the interval covers the choice of examples only"
        if n_seeds == 1
        else f"seed noise {row['noise'] * 100:.1f} points over {n_seeds} seeds"
    )
    return f"95% interval {_pts(row['ci_low'])} to {_pts(row['ci_high'])} points; {noise}"


def _accuracy_sentence(set_name: str, row: Mapping[str, Any], names: Sequence[str], n_seeds: int) -> str | None:
    parent, new = names
    if row.get("diff") is None or row.get("ci_low") is None:
        return None
    d = abs(row["diff"]) * 100
    if row["verdict"] == "worse":
        head = f"{new} is {d:.1f} points less accurate on {set_name} than {parent}"
    elif row["verdict"] == "better":
        head = f"{new} is {d:.1f} points more accurate on {set_name} than {parent}"
    else:
        head = f"{new}'s accuracy on {set_name} is within noise of {parent}'s ({_pts(row['diff'])} points)"
    return f"{head} ({row['parent'] * 100:.1f} % → {row['new'] * 100:.1f} %; {_interval(row, n_seeds)})."


def _fpr_sentence(
    set_name: str, row: Mapping[str, Any], names: Sequence[str], n_seeds: int, label: str, n: int | None
) -> str | None:
    parent, new = names
    if row.get("parent") is None or row.get("new") is None or row.get("ci_low") is None:
        return None
    word = {"better": "lower beyond noise", "worse": "higher beyond noise"}.get(row["verdict"], "within noise")
    return (
        f"On {set_name}, examples that contain the corrected words but are not {label!r} are flagged {label!r} "
        f"{row['parent'] * 100:.1f} % of the time by {parent} and {row['new'] * 100:.1f} % by {new} "
        f"({_pts(row['diff'])} points, {word}; n = {n}; {_interval(row, n_seeds)})."
    )


def _fnr_sentence(
    set_name: str, row: Mapping[str, Any], names: Sequence[str], n_seeds: int, label: str, n: int | None
) -> str | None:
    parent, new = names
    if row.get("parent") is None or row.get("new") is None or row.get("ci_low") is None:
        return None
    word = {"better": "lower beyond noise", "worse": "higher beyond noise"}.get(row["verdict"], "within noise")
    return (
        f"On {set_name}, examples that contain the corrected words and are {label!r} are missed "
        f"{row['parent'] * 100:.1f} % of the time by {parent} and {row['new'] * 100:.1f} % by {new} "
        f"({_pts(row['diff'])} points, {word}; n = {n}; {_interval(row, n_seeds)})."
    )


def sentences(result: Mapping[str, Any], names: Sequence[str] | None = None) -> list[str]:
    """Plain-words reading of :func:`compare_sets`' result: per set, the accuracy change (a drop beyond
    noise says so first) and the false-positive rate on the corrected words' slice; ``names`` override
    the stored ones (e.g. "this model" on the model card)."""
    names = list(names or result.get("names") or ("the parent", "the new version"))
    out = []
    for set_name, s in (result.get("sets") or {}).items():
        out += list(_set_sentences(set_name, s, names, result.get("positive")).values())
    holdout = result.get("holdout")
    if holdout:
        out.append(
            f"No eval set was given: {holdout['name']!r} is {holdout['n']} training examples "
            f"({holdout['share'] * 100:.0f} %, at most {holdout['max_examples']}, seed {holdout['seed']}) "
            "held out and left out of training."
        )
    return out


def _set_sentences(
    set_name: str, s: Mapping[str, Any], names: Sequence[str], positive: Mapping[str, Any] | None
) -> dict[str, str]:
    """``{"accuracy": …, "fpr_words": …, "fnr_words": …}`` for one set (a metric without a defined change
    is left out)."""
    rows, k = s.get("metrics") or {}, int(s.get("n_seeds") or 1)
    label = (positive or {}).get("label")
    out = {"accuracy": _accuracy_sentence(set_name, rows["accuracy"], names, k) if "accuracy" in rows else None}
    if label is not None and "fpr_words" in rows:
        out["fpr_words"] = _fpr_sentence(set_name, rows["fpr_words"], names, k, label, s.get("n_negative_words"))
    if label is not None and "fnr_words" in rows:
        out["fnr_words"] = _fnr_sentence(set_name, rows["fnr_words"], names, k, label, s.get("n_positive_words"))
    return {m: t for m, t in out.items() if t}


def harms(result: Mapping[str, Any]) -> list[str]:
    """The eval sets where accuracy or macro-F1 dropped beyond noise (what a person must not miss)."""
    return [
        name
        for name, s in (result.get("sets") or {}).items()
        if any((s.get("metrics") or {}).get(m, {}).get("verdict") == "worse" for m in ("accuracy", "macro_f1"))
    ]
