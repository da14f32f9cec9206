"""Metrics and statistics for comparing a debugged model with its controls (numpy only).

Per eval set: accuracy, macro-F1, per-class F1 and — when task-level *remove* words exist — the
false-positive rate of the *positive / flagged* class on examples that contain those words
(``fpr_words``) vs on the others (``fpr_other``), and their gap. That rate is the bias measure of
issue 14: a model that learnt "identity word ⇒ hate" flags harmless posts that contain the word. Its
other side is the false-negative rate of that class on the same two slices (``fnr_words``,
``fnr_other``, issue 30 §3): a fix that stops flagging the words' posts at all would lower the FPR by
missing the true ones.

Every metric is a ratio of sums over examples, so one function (:func:`_metrics_from_sums`) turns
per-example indicator sums into metrics, both on the full set and on each bootstrap resample: the
point estimate and its interval cannot drift apart.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xmd.core.types import Action, DataError, Example
from xmd.core.words import split_words, word_key

#: +1: higher is better; -1: lower is better. Verdicts are given for these metrics.
DIRECTIONS = {"accuracy": 1, "macro_f1": 1, "fpr_words": -1, "fpr_gap": -1, "fnr_words": -1}

VERDICT_RULE = (
    "Against one control, a metric is 'better' when the paired bootstrap 95% interval of "
    "(debugged - control) excludes 0 in the good direction AND the absolute mean difference exceeds "
    "the seed noise (the larger of the two arms' standard deviations over seeds; 0 with one seed); "
    "'worse' under the same two conditions in the bad direction; otherwise 'within noise'. Overall: "
    "'better than both controls' (all controls) when better than every control, 'worse' when worse "
    "than at least one, otherwise 'within noise'."
)


# --------------------------------------------------------------------------- words and classes


def contains_words(texts: Sequence[str], keys: Sequence[str] | set[str]) -> np.ndarray:
    """Bool ``[N]``: the text has at least one word whose :func:`word_key` is in ``keys``."""
    wanted = {word_key(k) for k in keys}
    return np.array([any(word_key(w) in wanted for w in split_words(t)[0]) for t in texts], dtype=bool)


def choose_positive(
    examples: Sequence[Example],
    num_labels: int,
    words: Sequence[str] = (),
    *,
    given: int | None = None,
) -> tuple[int, str]:
    """The *positive / flagged* class whose false-positive rate is measured, and the rule that chose it.

    ``given`` (the user named it) wins. Otherwise the class most over-represented among the labelled
    ``examples`` that contain the ``words`` (largest ratio of its share there to its share overall:
    the class the words push toward, e.g. *hate* for identity terms) — rule ``"word_lift"``. When no
    labelled example contains a word, the least frequent class — rule ``"minority"``. Ties go to the
    higher class index (index 1 of a binary task, conventionally the positive class).
    """
    if given is not None:
        if not 0 <= given < num_labels:
            raise DataError(f"positive label index {given} is out of range for {num_labels} classes")
        return int(given), "given"
    labelled = [ex for ex in examples if ex.label is not None]
    y = np.array([int(ex.label) for ex in labelled], dtype=np.int64)
    overall = np.bincount(y, minlength=num_labels).astype(np.float64)
    has = contains_words([ex.text for ex in labelled], words) if words else np.zeros(len(y), dtype=bool)
    if has.any():
        with_words = np.bincount(y[has], minlength=num_labels).astype(np.float64)
        lift = np.where(overall > 0, (with_words / has.sum()) / np.maximum(overall / len(y), 1e-12), -1.0)
        return int(num_labels - 1 - np.argmax(lift[::-1])), "word_lift"
    counts = overall if len(y) else np.zeros(num_labels)
    return int(num_labels - 1 - np.argmin(counts[::-1])), "minority"


# --------------------------------------------------------------------------- metrics from sums


def _features(y: np.ndarray, p: np.ndarray, k: int, has: np.ndarray | None, positive: int | None) -> np.ndarray:
    """Per-example indicators ``[N, 3k + 9]``: correct, tp_c, predicted_c, gold_c, then the four
    counts of the word FPR (negatives with / without the words, and how many of them were flagged) and
    the four of the word FNR (positives with / without the words, and how many of them were missed)."""
    onehot_y = np.eye(k, dtype=np.float32)[y]
    onehot_p = np.eye(k, dtype=np.float32)[p]
    cols = [(y == p).astype(np.float32)[:, None], onehot_y * onehot_p, onehot_p, onehot_y]
    if has is not None and positive is not None:
        neg, pos = y != positive, y == positive
        flagged = p == positive
        fpr = [neg & has, neg & has & flagged, neg & ~has, neg & ~has & flagged]
        fnr = [pos & has, pos & has & ~flagged, pos & ~has, pos & ~has & ~flagged]
        cols.append(np.stack(fpr + fnr, axis=1).astype(np.float32))
    return np.concatenate(cols, axis=1)


def _metrics_from_sums(sums: np.ndarray, n: float, k: int, with_fpr: bool) -> dict[str, np.ndarray]:
    """Metric arrays from indicator sums ``[..., K]``; NaN where a ratio is undefined."""
    with np.errstate(invalid="ignore", divide="ignore"):
        out: dict[str, np.ndarray] = {"accuracy": sums[..., 0] / n}
        tp, pred, gold = sums[..., 1 : 1 + k], sums[..., 1 + k : 1 + 2 * k], sums[..., 1 + 2 * k : 1 + 3 * k]
        denom = pred + gold
        f1 = np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), np.nan)
        present = denom > 0
        out["macro_f1"] = np.where(present.any(-1), np.nansum(f1, -1) / np.maximum(present.sum(-1), 1), np.nan)
        for c in range(k):
            out[f"f1:{c}"] = f1[..., c]
        if with_fpr:
            b = 1 + 3 * k
            nw, fw, no, fo = (sums[..., b + i] for i in range(4))
            out["fpr_words"] = np.where(nw > 0, fw / np.where(nw > 0, nw, 1), np.nan)
            out["fpr_other"] = np.where(no > 0, fo / np.where(no > 0, no, 1), np.nan)
            out["fpr_gap"] = out["fpr_words"] - out["fpr_other"]
            pw, mw, po, mo = (sums[..., b + 4 + i] for i in range(4))
            out["fnr_words"] = np.where(pw > 0, mw / np.where(pw > 0, pw, 1), np.nan)
            out["fnr_other"] = np.where(po > 0, mo / np.where(po > 0, po, 1), np.nan)
    return out


def _num(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def set_metrics(
    y_true: Sequence[int],
    y_pred: Sequence[int],
    labels: Sequence[str],
    *,
    has_words: Sequence[bool] | None = None,
    positive: int | None = None,
) -> dict:
    """``{"n", "accuracy", "macro_f1", "per_class_f1": {label: f1|None}}`` plus, with ``has_words``
    and ``positive``, ``fpr_words``, ``fpr_other``, ``fpr_gap`` (None when a group has no negative)
    and the group sizes ``n_negative_words`` / ``n_negative_other``, and the flagged class's
    false-negative rates ``fnr_words`` / ``fnr_other`` with ``n_positive_words`` / ``n_positive_other``.

    Agrees with :func:`xmd.core.evaluate.per_class_f1` / ``macro_f1`` (same absent-class convention).
    """
    y = np.asarray(y_true, dtype=np.int64)
    p = np.asarray(y_pred, dtype=np.int64)
    if y.shape != p.shape or y.ndim != 1 or y.size == 0:
        raise DataError(f"need as many predictions as gold labels (got {p.size} and {y.size}), at least one")
    k = len(labels)
    has = None if has_words is None else np.asarray(has_words, dtype=bool)
    with_fpr = has is not None and positive is not None
    m = _metrics_from_sums(_features(y, p, k, has, positive).sum(0), float(y.size), k, with_fpr)
    out = {
        "n": int(y.size),
        "accuracy": _num(m["accuracy"]),
        "macro_f1": _num(m["macro_f1"]),
        "per_class_f1": {labels[c]: _num(m[f"f1:{c}"]) for c in range(k)},
    }
    if with_fpr:
        neg = y != positive
        out.update(
            positive_label=labels[positive],
            fpr_words=_num(m["fpr_words"]),
            fpr_other=_num(m["fpr_other"]),
            fpr_gap=_num(m["fpr_gap"]),
            n_negative_words=int((neg & has).sum()),
            n_negative_other=int((neg & ~has).sum()),
        )
        words = np.asarray(has, dtype=bool)  # the other side of the slice: the flagged class missed
        out["fnr_words"] = _num(float(m["fnr_words"]))
        out["fnr_other"] = _num(float(m["fnr_other"]))
        out["n_positive_words"] = int((~neg & words).sum())
        out["n_positive_other"] = int((~neg & ~words).sum())
    return out


def flat_metrics(metrics: Mapping, labels: Sequence[str]) -> dict[str, float | None]:
    """One level of ``{name: value}`` from :func:`set_metrics` (per-class F1 as ``f1:<label>``)."""
    keys = ("accuracy", "macro_f1", "fpr_words", "fpr_other", "fpr_gap", "fnr_words", "fnr_other")
    out = {k: metrics.get(k) for k in keys if k in metrics}
    for name in labels:
        out[f"f1:{name}"] = (metrics.get("per_class_f1") or {}).get(name)
    return out


# --------------------------------------------------------------------------- bootstrap


def resample_weights(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``[n_resamples, n]`` counts: how often each example is drawn in each resample (vectorised)."""
    idx = rng.integers(0, n, size=(n_resamples, n))
    flat = (idx + n * np.arange(n_resamples)[:, None]).ravel()
    return np.bincount(flat, minlength=n_resamples * n).reshape(n_resamples, n).astype(np.float32)


def paired_bootstrap(
    y_true: Sequence[int],
    pred_a: np.ndarray,
    pred_b: np.ndarray,
    labels: Sequence[str],
    *,
    has_words: Sequence[bool] | None = None,
    positive: int | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, dict[str, float | None]]:
    """Paired bootstrap over examples of ``metric(a) - metric(b)``, averaged over seeds.

    ``pred_a`` / ``pred_b`` are ``[S, N]`` predictions of the two arms, seed ``s`` of one paired with
    seed ``s`` of the other (same data order). Each resample draws N examples with replacement —
    the same draw for both arms and every seed — and the difference is the mean over seeds of the
    per-seed differences. Returns ``{metric: {"diff", "ci_low", "ci_high"}}`` (metric names as in
    :func:`flat_metrics`, but per-class F1 keyed by label); ``diff`` is the full-data estimate.
    Deterministic for a given ``seed``.
    """
    y = np.asarray(y_true, dtype=np.int64)
    a, b = np.atleast_2d(np.asarray(pred_a, dtype=np.int64)), np.atleast_2d(np.asarray(pred_b, dtype=np.int64))
    if a.shape != b.shape or a.shape[1] != y.size:
        raise DataError(f"paired predictions need the same shape [seeds, {y.size}], got {a.shape} and {b.shape}")
    k = len(labels)
    has = None if has_words is None else np.asarray(has_words, dtype=bool)
    with_fpr = has is not None and positive is not None
    feats = np.stack([_features(y, p, k, has, positive) for p in (*a, *b)], axis=1)  # [N, 2S, K]
    n_arm_seeds, n_feat = feats.shape[1], feats.shape[2]
    flat = feats.reshape(y.size, -1)

    def diffs(sums: np.ndarray) -> dict[str, np.ndarray]:
        m = _metrics_from_sums(sums.reshape(*sums.shape[:-1], n_arm_seeds, n_feat), float(y.size), k, with_fpr)
        s = n_arm_seeds // 2
        with warnings.catch_warnings():  # a metric undefined in every seed of a resample stays NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            return {name: np.nanmean(v[..., :s] - v[..., s:], axis=-1) for name, v in m.items()}

    point = diffs(flat.sum(0, dtype=np.float64))
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_resamples, 4_000_000 // max(y.size, 1)))
    boot: dict[str, list[np.ndarray]] = {name: [] for name in point}
    done = 0
    while done < n_resamples:
        size = min(chunk, n_resamples - done)
        # float32 sums of 0/1 indicators are exact integers (below 2**24); ratios are taken in float64.
        for name, v in diffs((resample_weights(y.size, size, rng) @ flat).astype(np.float64)).items():
            boot[name].append(v)
        done += size
    alpha = (1 - level) / 2
    out: dict[str, dict[str, float | None]] = {}
    for name, v in point.items():
        draws = np.concatenate(boot[name])
        draws = draws[np.isfinite(draws)]
        lo, hi = np.quantile(draws, [alpha, 1 - alpha]) if draws.size else (np.nan, np.nan)
        key = f"f1:{labels[int(name[3:])]}" if name.startswith("f1:") else name
        out[key] = {"diff": _num(float(v)), "ci_low": _num(float(lo)), "ci_high": _num(float(hi))}
    return out


# --------------------------------------------------------------------------- verdicts


def seed_std(values: Sequence[float | None]) -> float | None:
    """Sample standard deviation over seeds (ddof=1); 0.0 for one seed; None if no value is defined."""
    v = np.array([x for x in values if x is not None and np.isfinite(x)], dtype=np.float64)
    if v.size == 0:
        return None
    return float(v.std(ddof=1)) if v.size > 1 else 0.0


def verdict(
    diff: float | None, ci_low: float | None, ci_high: float | None, noise: float | None, direction: int
) -> str:
    """``"better"``, ``"worse"`` or ``"within_noise"`` for one metric against one control.

    See :data:`VERDICT_RULE`: the interval of (debugged - control) must exclude 0 and the absolute
    mean difference must exceed ``noise``; ``direction`` is +1 when higher is better, -1 when lower.
    Undefined inputs (None) give ``"within_noise"``: no claim without evidence.
    """
    if diff is None or ci_low is None or ci_high is None:
        return "within_noise"
    beyond_noise = abs(diff) > (noise or 0.0)
    up, down = ci_low > 0, ci_high < 0
    if beyond_noise and ((up and diff > 0 and direction > 0) or (down and diff < 0 and direction < 0)):
        return "better"
    if beyond_noise and ((down and diff < 0 and direction > 0) or (up and diff > 0 and direction < 0)):
        return "worse"
    return "within_noise"


def overall_verdict(per_control: Mapping[str, str]) -> tuple[str, str]:
    """Combine per-control verdicts: ``(code, plain words)`` — see :data:`VERDICT_RULE`."""
    values = list(per_control.values())
    if values and all(v == "better" for v in values):
        return "better", {1: "better than the control", 2: "better than both controls"}.get(
            len(values), "better than all controls"
        )
    if "worse" in values:
        return "worse", "worse"
    return "within_noise", "within noise"


def removed_task_words(task_feedback: Sequence) -> list[str]:
    """Word keys of the task-level feedback that is *remove* after resets and overrides."""
    from xmd.core.feedback import resolve_task

    return sorted({key for (key, _, _), action in resolve_task(task_feedback).items() if action == Action.REMOVE})


def _mean(values: Sequence[float | None]) -> float | None:
    v = [x for x in values if x is not None and np.isfinite(x)]
    return float(np.mean(v)) if v else None


def compare_predictions(
    y_true: Sequence[int],
    predictions: Mapping[str, np.ndarray],
    labels: Sequence[str],
    *,
    has_words: Sequence[bool] | None = None,
    positive: int | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict:
    """Everything Results shows for one eval set, from per-example predictions.

    ``predictions`` maps arm name → ``[S, N]`` predicted classes (``"debug"`` first is the debugged
    model; every other arm is a control, paired by seed index). Returns ``{"arms": {arm: {"per_seed":
    [set_metrics…], "mean": {metric}, "std": {metric}}}, "differences": {control: {metric: {"diff",
    "ci_low", "ci_high", "noise", "verdict"?}}}, "verdicts": {metric: {"verdict", "text",
    "per_control"}}}`` with metric names as in :func:`flat_metrics`.
    """
    if "debug" not in predictions:
        raise DataError("compare_predictions needs the 'debug' arm")
    arms: dict[str, dict] = {}
    for arm, pred in predictions.items():
        pred = np.atleast_2d(np.asarray(pred))
        per_seed = [set_metrics(y_true, p, labels, has_words=has_words, positive=positive) for p in pred]
        flat = [flat_metrics(m, labels) for m in per_seed]
        names = list(flat[0])
        arms[arm] = {
            "per_seed": per_seed,
            "mean": {k: _mean([f[k] for f in flat]) for k in names},
            "std": {k: seed_std([f[k] for f in flat]) for k in names},
        }
    differences: dict[str, dict] = {}
    for control in (a for a in predictions if a != "debug"):
        boot = paired_bootstrap(
            y_true,
            predictions["debug"],
            predictions[control],
            labels,
            has_words=has_words,
            positive=positive,
            n_resamples=n_resamples,
            seed=seed,
        )
        rows = {}
        for metric, d in boot.items():
            stds = [arms["debug"]["std"].get(metric), arms[control]["std"].get(metric)]
            noise = max((s for s in stds if s is not None), default=None)
            row = {**d, "noise": noise}
            if metric in DIRECTIONS:
                row["verdict"] = verdict(d["diff"], d["ci_low"], d["ci_high"], noise, DIRECTIONS[metric])
            rows[metric] = row
        differences[control] = rows
    verdicts = {}
    for metric in DIRECTIONS:
        per_control = {c: rows[metric]["verdict"] for c, rows in differences.items() if metric in rows}
        if not per_control or arms["debug"]["mean"].get(metric) is None:
            continue
        code, text = overall_verdict(per_control)
        verdicts[metric] = {"verdict": code, "text": text, "per_control": per_control}
    return {"arms": arms, "differences": differences, "verdicts": verdicts}


def strip_notes(results: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Say plainly where stripping the words at prediction time does as well as the debugged model:
    then the user may not need the debug run (issue 30 §4)."""
    out = []
    for name, r in results.items():
        rows = r.get("differences", {}).get("strip")
        if not rows:
            continue
        beaten = [m for m in ("accuracy", "fpr_words") if rows.get(m, {}).get("verdict") == "better"]
        if not beaten:
            out.append(
                f"{name}: stripping the corrected words from the input of the λ = 0 model (or the parent) does as "
                "well as the debugged model on accuracy and on the words' false-positive rate (within noise or "
                "better); a filter may be all this task needs"
            )
    return out


def format_table(comparison: Mapping[str, Any]) -> str:
    """Plain-text table of a comparison (``Comparison.to_dict()``): per set and metric, the debugged
    arm's mean ± std over seeds, each control's difference with its 95% interval, and the verdict."""
    controls = comparison["arms"][1:]
    head = f"{'eval set':<14}{'metric':<11}{'debug':>16}" + "".join(f"{'Δ vs ' + c:>28}" for c in controls)
    lines = [head + "  verdict"]
    for name, s in comparison["sets"].items():
        for metric, v in s["verdicts"].items():
            m, sd = s["arms"]["debug"]["mean"][metric], s["arms"]["debug"]["std"][metric]
            row = f"{name:<14}{metric:<11}{_pm(m, sd):>16}"
            row += "".join(f"{_delta(s['differences'][c][metric]):>28}" for c in controls)
            lines.append(row + f"  {v['text']}")
    positive = comparison.get("positive")
    if positive:
        lines.append(f"flagged class for the word FPR: {positive['label']} ({positive['rule']})")
    lines += [f"note: {n}" for n in comparison.get("notes", [])]
    lines.append(f"{len(comparison['runs'])} runs in {comparison['out_dir']}; seeds {comparison['seeds']}")
    return "\n".join(lines)


def _pm(mean: float | None, std: float | None) -> str:
    return "-" if mean is None else f"{mean:.3f}" + ("" if not std else f"±{std:.3f}")


def _delta(d: Mapping[str, Any]) -> str:
    if d.get("diff") is None:
        return "-"
    lo, hi = d.get("ci_low"), d.get("ci_high")
    return f"{d['diff']:+.3f}" + ("" if lo is None else f" [{lo:+.3f},{hi:+.3f}]")
