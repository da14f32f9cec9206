"""Measurements and comparisons of ``bench/real_data/real_data.py``: metrics per arm, paired bootstrap, verdicts.

Kept apart from the runner so that the comparison logic can be tested on constructed numbers. Every
measurement is taken on fixed example sets chosen before any retraining (``prepare_measurement``), so
the arms differ only in the model.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from xmd.core.attribution import explain
from xmd.core.compare import compare_predictions, contains_words, seed_std
from xmd.core.compare import verdict as core_verdict
from xmd.core.effect import feedback_shares
from xmd.core.evaluate import accuracy, auprc, macro_f1, plausibility, token_f1
from xmd.core.feedback import FeedbackSet
from xmd.core.modeling import LoadedModel
from xmd.core.predict import predict_proba
from xmd.core.types import Action, TaskFeedback

from bench.real_data import hatexplain as hx

SHARE_METHODS = ("grad_x_input", "occlusion")
BOOTSTRAP = 2000


def predict(loaded: LoadedModel, texts: Sequence[str], max_length: int) -> np.ndarray:
    """Predicted classes, computed in length-sorted batches (less padding) and returned in input order."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    probs = predict_proba(loaded, [texts[i] for i in order], batch_size=64, max_length=max_length)
    out = np.empty(len(texts), dtype=np.int64)
    out[order] = probs.argmax(axis=1)
    return out


def prepare_measurement(ctx: dict, mode: dict) -> None:
    """Fix the sets every arm is measured on: identity flags, the share sample, the rationale posts."""
    keys = ctx["keys"]
    for split in ("dev", "test"):
        ctx[f"{split}_has_id"] = contains_words([ex.text for ex in ctx[split]], keys)
        ctx[f"{split}_gold"] = np.array([ex.label for ex in ctx[split]], dtype=np.int64)
    with_id = [ex for ex, h in zip(ctx["test"], ctx["test_has_id"], strict=True) if h]
    share_set = random.Random(0).sample(with_id, min(mode["share_n"], len(with_id)))
    fb = FeedbackSet(task=[TaskFeedback(word=w, action=Action.REMOVE) for w in ctx["words"]])
    ctx["share_set"] = share_set
    ctx["share_targets"] = fb.expand(share_set, num_labels=2)
    plaus = [(p.example("test"), p.word_rationale()) for p in ctx["test_posts"]]
    plaus = [(ex, r) for ex, r in plaus if r is not None]
    if mode.get("plaus_n") and mode["plaus_n"] < len(plaus):
        keep = set(random.Random(0).sample(range(len(plaus)), mode["plaus_n"]))
        plaus = [x for i, x in enumerate(plaus) if i in keep]
    ctx["plaus_examples"] = [ex for ex, _ in plaus]
    ctx["plaus_rationales"] = [r for _, r in plaus]


def split_metrics(pred: np.ndarray, gold: np.ndarray, has_id: np.ndarray) -> dict:
    """Accuracy, macro-F1, per-class F1 and the false-positive rate of *toxic* on normal posts with and
    without an identity word."""
    normal = gold == 0
    with_id, without = normal & has_id, normal & ~has_id
    return {
        "n": int(gold.size),
        "accuracy": accuracy(gold, pred),
        "macro_f1": macro_f1(gold, pred, 2),
        "fpr_identity": float(pred[with_id].mean()) if with_id.any() else None,
        "fpr_other": float(pred[without].mean()) if without.any() else None,
        "n_normal_identity": int(with_id.sum()),
        "n_normal_other": int(without.sum()),
    }


def measure(
    loaded: LoadedModel, ctx: dict, mode: dict, *, shares: bool, plaus: bool, splits: Sequence[str] = ("test", "dev")
) -> dict:
    """Everything measured on one model: test and dev metrics, identity-word shares, plausibility."""
    ml = mode["max_length"]
    out: dict = {}
    for split in splits:
        pred = predict(loaded, [ex.text for ex in ctx[split]], ml)
        out[split] = split_metrics(pred, ctx[f"{split}_gold"], ctx[f"{split}_has_id"])
        if split == "test":
            out["test_pred"] = "".join(map(str, pred.tolist()))
    if shares:
        out["shares"] = {
            m: feedback_shares(
                loaded,
                ctx["share_set"],
                ctx["share_targets"],
                method=m,
                max_examples=len(ctx["share_set"]),
                max_length=ml,
            )["remove"]["mean_share"]
            for m in SHARE_METHODS
        }
    if plaus and ctx["plaus_examples"]:
        exs = ctx["plaus_examples"]
        exps = explain(loaded, [ex.text for ex in exs], target=[ex.label for ex in exs], max_length=ml)
        out["plausibility"] = plausibility(exps, ctx["plaus_rationales"])
        # The ER loss works on shares of |score|; a word pushed *against* the gold class has a large share but
        # no positive score. Plausibility of |score| tells the two apart.
        absolute = [replace(e, scores=[abs(x) for x in e.scores]) for e in exps]
        out["plausibility_abs"] = plausibility(absolute, ctx["plaus_rationales"])
        out["auprc_per_example"] = [
            round(auprc(r, e.scores), 5) for e, r in zip(exps, ctx["plaus_rationales"], strict=True)
        ]
        out["token_f1_per_example"] = [
            round(token_f1(r, e.scores), 5) for e, r in zip(exps, ctx["plaus_rationales"], strict=True)
        ]
    return out


def brief(r: dict) -> str:
    t = r["test"]
    parts = [
        f"acc {t['accuracy']:.3f}",
        f"F1 {t['macro_f1']:.3f}",
        f"FPR id {t['fpr_identity']:.3f}",
        f"other {t['fpr_other']:.3f}",
        f"dev acc {r['dev']['accuracy']:.3f} FPR id {r['dev']['fpr_identity']}",
    ]
    if "shares" in r:
        parts.append("shares " + "/".join(f"{v:.3f}" for v in r["shares"].values()))
    if "plausibility" in r:
        parts.append(f"AUPRC {r['plausibility']['auprc']:.3f} tokF1 {r['plausibility']['token_f1']:.3f}")
    return ", ".join(parts)


# ------------------------------------------------------------------------------------------ comparisons


def paired_bootstrap(a: Sequence[np.ndarray], b: Sequence[np.ndarray], n: int = BOOTSTRAP, seed: int = 0) -> dict:
    """95 % interval of mean(a) - mean(b) over examples, averaged over seeds (``a[s]``, ``b[s]`` paired by seed
    and by example), resampling examples with replacement."""
    a_m = np.stack([np.asarray(x, dtype=np.float64) for x in a])  # [S, N]
    b_m = np.stack([np.asarray(x, dtype=np.float64) for x in b])
    diff = (a_m - b_m).mean(axis=0)  # per example, mean over seeds
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, diff.size, size=(n, diff.size))
    boots = diff[idx].mean(axis=1)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return {"diff": float(diff.mean()), "ci95": [float(lo), float(hi)], "n_examples": int(diff.size)}


def _ms(values: list[float]) -> dict:
    return {
        "mean": statistics.fmean(values),
        "std": statistics.pstdev(values) if len(values) > 1 else 0.0,
        "n": len(values),
        "values": values,
    }


def _per_example(r: dict, what: str, gold: np.ndarray, has_id: np.ndarray) -> np.ndarray:
    pred = np.array([int(c) for c in r["test_pred"]])
    if what == "accuracy":
        return (pred == gold).astype(np.float64)
    if what == "fpr_identity":
        return pred[(gold == 0) & has_id].astype(np.float64)
    return np.asarray(r[f"{what}_per_example"], dtype=np.float64)


METRICS = {
    "accuracy": lambda r: r["test"]["accuracy"],
    "macro_f1": lambda r: r["test"]["macro_f1"],
    "fpr_identity": lambda r: r["test"]["fpr_identity"],
    "fpr_other": lambda r: r["test"]["fpr_other"],
    "dev_accuracy": lambda r: r["dev"]["accuracy"],
    "dev_fpr_identity": lambda r: r["dev"]["fpr_identity"],
    "share_grad_x_input": lambda r: (r.get("shares") or {}).get("grad_x_input"),
    "share_occlusion": lambda r: (r.get("shares") or {}).get("occlusion"),
    "auprc": lambda r: (r.get("plausibility") or {}).get("auprc"),
    "token_f1": lambda r: (r.get("plausibility") or {}).get("token_f1"),
    "auprc_abs": lambda r: (r.get("plausibility_abs") or {}).get("auprc"),
}


#: Metrics the core's comparison (xmd.core.compare) computes from predictions, under this benchmark's names.
CORE_NAMES = {"accuracy": "accuracy", "macro_f1": "macro_f1", "fpr_identity": "fpr_words"}


def compare(runs: list[dict], arm: str, control: str, metric: str, higher: bool, gold, has_id) -> dict | None:
    """Debugged ``arm`` vs ``control`` on ``metric``: per-seed differences, paired bootstrap interval and the
    verdict of ``xmd.core.compare`` (interval excludes 0 *and* the mean difference exceeds the seed noise).

    Prediction metrics come from :func:`xmd.core.compare.compare_predictions` itself; plausibility (a mean
    over posts of a per-post score) from :func:`paired_bootstrap` here, judged by the same verdict rule.
    """
    by = {(r["arm"], r["seed"]): r for r in runs}
    seeds = sorted(s for (a, s) in by if a == arm and (control, s) in by)
    if not seeds:
        return None
    a = [by[(arm, s)] for s in seeds]
    b = [by[(control, s)] for s in seeds]
    per_seed = [METRICS[metric](x) - METRICS[metric](y) for x, y in zip(a, b, strict=True)]
    noise = max(seed_std([METRICS[metric](x) for x in a]) or 0.0, seed_std([METRICS[metric](y) for y in b]) or 0.0)
    if metric in CORE_NAMES:
        preds = {
            "debug": np.array([[int(c) for c in x["test_pred"]] for x in a]),
            control: np.array([[int(c) for c in y["test_pred"]] for y in b]),
        }
        cmp = compare_predictions(
            gold, preds, hx.LABELS, has_words=has_id, positive=hx.TOXIC, n_resamples=BOOTSTRAP, seed=0
        )
        d = cmp["differences"][control][CORE_NAMES[metric]]
        boot = {"diff": d["diff"], "ci95": [d["ci_low"], d["ci_high"]], "n_examples": int(gold.size)}
        noise = d["noise"] or 0.0
    else:
        boot = paired_bootstrap(
            [_per_example(x, metric, gold, has_id) for x in a], [_per_example(y, metric, gold, has_id) for y in b]
        )
    v = core_verdict(boot["diff"], boot["ci95"][0], boot["ci95"][1], noise, 1 if higher else -1)
    return {"seeds": seeds, "per_seed_diff": per_seed, **boot, "seed_noise": noise, "verdict": v}


def summarise(base: dict, runs: list[dict], gold: np.ndarray, has_id: np.ndarray) -> dict:
    """Mean ± std per arm, the debugged arms against their controls, and the targets."""
    arms: dict[str, dict] = {}
    for arm in dict.fromkeys(r["arm"] for r in runs):
        rs = [r for r in runs if r["arm"] == arm]
        arms[arm] = {k: _ms([fn(r) for r in rs]) for k, fn in METRICS.items() if all(fn(r) is not None for r in rs)}
    comparisons: dict[str, dict] = {}
    for arm, control in (("remove", "lambda0"), ("remove", "deletion"), ("rationale_add", "lambda0")):
        metrics = (
            [("fpr_identity", False), ("accuracy", True)]
            if arm == "remove"
            else [("auprc", True), ("token_f1", True), ("accuracy", True)]
        )
        for metric, higher in metrics:
            c = compare(runs, arm, control, metric, higher, gold, has_id)
            if c is not None:
                comparisons[f"{arm}_vs_{control}:{metric}"] = c
    targets: dict[str, dict] = {}
    rem = arms.get("remove")
    if rem and base["test"]["fpr_identity"]:
        drop = 1 - rem["fpr_identity"]["mean"] / base["test"]["fpr_identity"]
        targets["fpr_identity_relative_drop"] = {"value": drop, "op": ">=", "threshold": 0.30, "met": drop >= 0.30}
        change = 100 * (rem["accuracy"]["mean"] - base["test"]["accuracy"])
        targets["accuracy_change_points"] = {"value": change, "op": ">=", "threshold": -1.0, "met": change >= -1.0}
        for control in ("lambda0", "deletion"):
            c = comparisons.get(f"remove_vs_{control}:fpr_identity")
            if c:
                targets[f"fpr_identity_better_than_{control}"] = {
                    "value": c["verdict"],
                    "op": "==",
                    "threshold": "better",
                    "met": c["verdict"] == "better",
                }
    c = comparisons.get("rationale_add_vs_lambda0:auprc")
    if c:
        targets["auprc_better_than_lambda0"] = {
            "value": c["verdict"],
            "op": "==",
            "threshold": "better",
            "met": c["verdict"] == "better",
        }
    return {"arms": arms, "comparisons": comparisons, "targets": targets}
