"""How much of the identity-term false-positive rate can the identity words explain at all?

Issue 14 asks task-level *remove* of the identity words to cut the identity FPR (normal HateXplain posts
with an identity word flagged *toxic*) by >= 30 %. A word-level debug run can at best make the model
ignore those words; this script measures what that would buy, with no training: **test-time erasure**.
For the fine-tuned base model of ``bench/real_data/real_data.py`` (same data, splits, word list, base fine-tune and
metrics, reused from there) and, when time allows, its λ = 0 and *remove* arms, it predicts every post
that contains an identity word again with

- the identity words **deleted** (xmd's own deletion, ``xmd.core.deletion.delete_positions``),
- each identity word **replaced** by the tokenizer's mask token and by the neutral word "person",
- as a control, the **same number of random other words** deleted from the same post (several seeded draws),

and reports the identity FPR under each, split by how many identity words a normal post has, and — over
the false positives — whether the top grad x input word toward *toxic* is an identity word and which
words the model relies on there. Dev numbers are for reasoning, test numbers are the ones the targets
read; nothing here chooses a setting. Prints one JSON document and writes it to ``--out``
(``bench/real_data/results/real_data_ceiling.json``) after every model, so a run cut short keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from xmd.core.attribution import explain
from xmd.core.modeling import LoadedModel, load_model
from xmd.core.words import word_key

from bench.benchlib import environment, load_average, log, resolve_device, set_threads
from bench.real_data import real_data as rd
from bench.real_data import real_data_stats as rs
from bench.real_data.erasure import (
    count_bucket,
    erase,
    identity_positions,
    random_positions,
    rate,
    rates_by_group,
    top_word,
    top_word_table,
)

TARGET_DROP = 0.30
"""Issue 14's target: identity FPR down by at least this fraction of the base model's."""
PERSON = "person"
BUCKETS = ("1", "2", "3+")
CONTROLS = {"delete": "random_delete", "mask": "random_mask", "person": "random_person"}
"""Each erasure of the identity words and its control: the same erasure of as many random other words."""


# ------------------------------------------------------------------------------------------ measurement


def variant_metrics(new: np.ndarray, old: np.ndarray, gold: np.ndarray, has_id: np.ndarray) -> dict:
    """An erased variant's predictions ``new`` (every post; only those with an identity word changed) against
    the model's own ``old``: identity FPR, its relative change with a paired bootstrap interval, flips, and
    what the erasure costs on toxic posts (accuracy, toxic recall on posts with an identity word)."""
    normal_id = (gold == 0) & has_id
    toxic_id = (gold == 1) & has_id
    before, after = rate(old[normal_id]), rate(new[normal_id])
    boot = rs.paired_bootstrap([new[normal_id]], [old[normal_id]])
    return {
        "fpr_identity": after,
        "relative_change": (after / before - 1) if before else None,
        "diff_ci95": boot["ci95"],
        "fp_removed": int(((old == 1) & (new == 0) & normal_id).sum()),
        "fp_added": int(((old == 0) & (new == 1) & normal_id).sum()),
        "accuracy": float((new == gold).mean()),
        "toxic_recall_identity": rate(new[toxic_id]),
    }


def analyse(
    loaded: LoadedModel,
    ctx: dict,
    split: str,
    max_length: int,
    *,
    draws: int,
    attribution: bool,
    placeholders: bool = True,
) -> dict:
    """Every erasure variant, the count split and (``attribution``) the false-positive words of one split.

    Only the posts with an identity word are predicted again (erasure leaves the others as they are); the
    placeholder variants (``placeholders``) on all of them, to see the cost on toxic posts too, the random
    control on the normal ones only, since it serves the FPR alone.
    """
    exs = ctx[split]
    texts = [ex.text for ex in exs]
    gold, has_id = ctx[f"{split}_gold"], ctx[f"{split}_has_id"]
    keys = ctx["keys"]
    positions = [identity_positions(t, keys) for t in texts]
    if [bool(p) for p in positions] != has_id.tolist():
        raise RuntimeError("identity positions disagree with the benchmark's identity flags")
    pred = rs.predict(loaded, texts, max_length)
    normal_id = (gold == 0) & has_id

    def variant(fn: Callable[[int], str], rows: np.ndarray = has_id) -> np.ndarray:
        idx = np.flatnonzero(rows)
        new = pred.copy()
        new[idx] = rs.predict(loaded, [fn(int(i)) for i in idx], max_length)
        return new

    mask_token = getattr(loaded.tokenizer, "mask_token", None) or "[MASK]"
    out: dict = {
        "n": len(texts),
        "n_normal_identity": int(normal_id.sum()),
        "n_normal_other": int(((gold == 0) & ~has_id).sum()),
        "n_toxic_identity": int(((gold == 1) & has_id).sum()),
        "fpr_identity": rate(pred[normal_id]),
        "fpr_other": rate(pred[(gold == 0) & ~has_id]),
        "accuracy": float((pred == gold).mean()),
        "toxic_recall_identity": rate(pred[(gold == 1) & has_id]),
        "mask_token": mask_token,
        "pred": "".join(map(str, pred.tolist())),
    }
    deleted = variant(lambda i: erase(texts[i], positions[i]))
    variants = {"delete": deleted}
    if placeholders:
        variants["mask"] = variant(lambda i: erase(texts[i], positions[i], mask_token))
        variants["person"] = variant(lambda i: erase(texts[i], positions[i], PERSON))
    out["erasure"] = {name: variant_metrics(new, pred, gold, has_id) for name, new in variants.items()}
    # The controls: as many random other words deleted, or replaced by the same placeholder, as the post has
    # identity words (the same positions for all three in a draw), so that what the erasure itself does to a post
    # (fewer words, a mask token, "person") is told apart from what the identity words do.
    controls = {"random_delete": ("delete", None)}
    if placeholders:
        controls |= {"random_mask": ("mask", mask_token), "random_person": ("person", PERSON)}
    picks, rows = [], [int(i) for i in np.flatnonzero(normal_id)]
    for d in range(draws):
        rng = random.Random(d)
        picks.append({i: random_positions(texts[i], len(positions[i]), keys, rng) for i in rows})
    for name, (paired, placeholder) in controls.items():
        if not picks:
            break
        rand, rand_pred = [], []
        for picked in picks:
            new = variant(lambda i, p=picked, ph=placeholder: erase(texts[i], p[i], ph), normal_id)
            rand.append(variant_metrics(new, pred, gold, has_id))
            rand_pred.append(new[normal_id])
        fprs = [r["fpr_identity"] for r in rand]
        short = sum(len(p[i]) < len(positions[i]) for p in picks for i in p)
        out["erasure"][name] = {
            "fpr_identity": float(np.mean(fprs)),
            "relative_change": float(np.mean([r["relative_change"] for r in rand])) if out["fpr_identity"] else None,
            "fpr_identity_std": float(np.std(fprs)),
            "fpr_identity_per_draw": fprs,
            "fp_removed": float(np.mean([r["fp_removed"] for r in rand])),
            "fp_added": float(np.mean([r["fp_added"] for r in rand])),
            "draws": draws,
            "posts_with_fewer_other_words": short // draws,
            # the identity-word variant minus this control, per post averaged over the draws, bootstrapped over posts
            "identity_minus_random": rs.paired_bootstrap([variants[paired][normal_id]] * draws, rand_pred),
        }
    # The FPR by how many identity words a normal post has ("0" = the other normal posts).
    normal = gold == 0
    buckets = [count_bucket(len(p)) for p, m in zip(positions, normal, strict=True) if m]
    by = rates_by_group(pred[normal], buckets, ("0", *BUCKETS))
    after = rates_by_group(deleted[normal], buckets, ("0", *BUCKETS))
    out["by_count"] = {b: {**by[b], "rate_deleted": after[b]["rate"]} for b in ("0", *BUCKETS)}
    if attribution:
        out["false_positives"] = false_positive_words(loaded, texts, pred, deleted, gold, has_id, keys, max_length)
    return out


def false_positive_words(
    loaded: LoadedModel,
    texts: Sequence[str],
    pred: np.ndarray,
    deleted: np.ndarray,
    gold: np.ndarray,
    has_id: np.ndarray,
    keys: set[str],
    max_length: int,
) -> dict:
    """What the model relies on in its false positives (grad x input toward *toxic*): for the identity FPs,
    whether the top word is an identity word and whether deleting the identity words clears the FP; the top
    words over identity and over other FPs."""
    fp_id = [int(i) for i in np.flatnonzero((gold == 0) & has_id & (pred == 1))]
    fp_other = [int(i) for i in np.flatnonzero((gold == 0) & ~has_id & (pred == 1))]
    fps = fp_id + fp_other
    exps = explain(loaded, [texts[i] for i in fps], target=1, max_length=max_length) if fps else []
    e_id, e_other = exps[: len(fp_id)], exps[len(fp_id) :]
    n_normal_id = int(((gold == 0) & has_id).sum())
    groups: dict[str, dict] = {"identity_top": {"fp": 0, "cleared": 0}, "other_top": {"fp": 0, "cleared": 0}}
    for i, e in zip(fp_id, e_id, strict=True):
        t = top_word(e)
        g = groups["identity_top" if t is not None and word_key(e.words[t]) in keys else "other_top"]
        g["fp"] += 1
        g["cleared"] += int(deleted[i] == 0)
    for g in groups.values():
        g["fpr_part"] = g["fp"] / n_normal_id if n_normal_id else None
        g["cleared_share"] = g["cleared"] / g["fp"] if g["fp"] else None
    return {
        "method": "grad_x_input",
        "n_fp_identity": len(fp_id),
        "n_fp_other": len(fp_other),
        "by_top_word": groups,
        "top_words_identity_fp": top_word_table(e_id, keys),
        "top_words_other_fp": top_word_table(e_other, keys),
    }


def ceiling_summary(models: dict) -> dict:
    """The ceiling the test numbers give: the base identity FPR, the FPR a -30 % target needs, and how far each
    erasure of the identity words (and the random control) gets — reachable by ignoring the words or not."""
    base = (models.get("base") or {}).get("test")
    if not base or not base["fpr_identity"]:
        return {}
    fpr = base["fpr_identity"]
    out = {"base_fpr_identity": fpr, "target_fpr_identity": fpr * (1 - TARGET_DROP), "target_drop": TARGET_DROP}
    for name, v in base["erasure"].items():
        drop = -v["relative_change"] if v["relative_change"] is not None else None
        out[name] = {
            "fpr_identity": v["fpr_identity"],
            "drop": drop,
            "reaches_target": drop is not None and drop >= TARGET_DROP,
        }
    # The part of each erasure's drop that the identity words account for: the same erasure of as many random other
    # words leaves the rest (fewer words, a mask token, "person") — it is what ignoring the words could buy.
    specific = {}
    for name, control in CONTROLS.items():
        e = base["erasure"]
        if name in e and control in e:
            specific[name] = (e[control]["fpr_identity"] - e[name]["fpr_identity"]) / fpr
            out[name]["specific_drop"] = specific[name]
            boot = e[control].get("identity_minus_random")
            out[name]["specific_ci95"] = [-x / fpr for x in reversed(boot["ci95"])] if boot else None
    if specific:
        best = max(specific, key=specific.get)
        out["best_specific"] = {
            "variant": best,
            "drop": specific[best],
            "reaches_target": specific[best] >= TARGET_DROP,
        }
    fp = base.get("false_positives")
    if fp:
        out["fpr_part_identity_top"] = fp["by_top_word"]["identity_top"]["fpr_part"]
    # The arms' means over the seeds every arm finished (paired, as real_data.py compares them).
    retrained = {a: v for a, v in models.items() if a != "base"}
    common = sorted(set.intersection(*(set(v) for v in retrained.values())), key=int) if retrained else []
    arms = {}
    for arm, seeds in retrained.items():
        tests = [seeds[k]["test"] for k in common]
        if not tests:
            continue
        arms[arm] = {
            "seeds": [int(k) for k in common],
            "unpaired_seeds": sorted(int(k) for k in seeds if k not in common),
            "fpr_identity": float(np.mean([t["fpr_identity"] for t in tests])),
            "fpr_identity_deleted": float(np.mean([t["erasure"]["delete"]["fpr_identity"] for t in tests])),
            "fpr_identity_random": float(np.mean([t["erasure"]["random_delete"]["fpr_identity"] for t in tests]))
            if all("random_delete" in t["erasure"] for t in tests)
            else None,
            "accuracy": float(np.mean([t["accuracy"] for t in tests])),
        }
    if arms:
        out["arms"] = arms
    return out


# ------------------------------------------------------------------------------------------ runner


def reference_agreement(pred: str, path: Path) -> dict | None:
    """How closely this run's base model predicts the test posts like the base of another ``real_data.py`` result
    (``--reference``, the 3-seed GPU run the targets read): the fine-tune is not bit-identical across machines."""
    if not path.exists():
        return None
    ref = json.loads(path.read_text())
    ref_pred = (ref.get("base") or {}).get("test_pred")
    if not ref_pred or len(ref_pred) != len(pred):
        return None
    return {
        "file": path.name,
        "device": ref["environment"].get("device_name"),
        "fpr_identity": ref["base"]["test"]["fpr_identity"],
        "accuracy": ref["base"]["test"]["accuracy"],
        "test_agreement": float(np.mean([a == b for a, b in zip(pred, ref_pred, strict=True)])),
    }


def assemble(base_path: Path, arms_path: Path) -> dict:
    """One result from two runs on the same cached base model: the base analysis of ``base_path`` and the retrained
    arms of ``arms_path`` (e.g. a base-only rerun with more controls beside an earlier run's arms)."""
    doc, other = json.loads(base_path.read_text()), json.loads(arms_path.read_text())
    for key in ("base_model_dir", "identity_words", "mode"):
        if doc["config"][key] != other["config"][key]:
            raise SystemExit(f"cannot assemble: {key} differs between {base_path} and {arms_path}")
    if doc["models"]["base"]["test"]["pred"] != other["models"]["base"]["test"]["pred"]:
        raise SystemExit("cannot assemble: the two base models predict the test posts differently")
    doc["models"].update({k: v for k, v in other["models"].items() if k != "base"})
    for key in ("not_run", "complete", "retrain_epochs"):
        if key in other["config"]:
            doc["config"][key] = other["config"][key]
    doc["config"]["base_fine_tune"] = (
        f"{other['config']['base_fine_tune']} (arms run), {doc['config']['base_fine_tune']} (base run)"
    )
    doc["config"]["assembled_from"] = f"{base_path.name} (base, controls) and {arms_path.name} (arms)"
    doc["config"]["arms_environment"] = other["environment"]
    doc["config"]["arms_wall_seconds"] = other["config"].get("wall_seconds")
    doc["summary"] = ceiling_summary(doc["models"])
    return doc


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="real_data.py's quick mode (a small subsample)")
    p.add_argument("--arms", nargs="*", default=["lambda0", "remove"], help="retrained arms to erase too")
    p.add_argument("--seeds", nargs="+", type=int, default=None, help="seeds of the arms (real_data.py's mode)")
    p.add_argument("--draws", type=int, default=5, help="random-deletion control draws")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--device", default="auto")
    p.add_argument("--time-budget-s", type=float, default=None, help="start no arm that would end past this")
    p.add_argument("--first-arm-s", type=float, default=300.0, help="the first arm's expected seconds (budget check)")
    p.add_argument("--note", default=None)
    p.add_argument(
        "--reference",
        type=Path,
        default=rd.HERE / "results" / "real_data_gpu.json",
        help="a real_data.py result whose base test predictions this run's base is compared with",
    )
    p.add_argument("--out", type=Path, default=rd.HERE / "results" / "real_data_ceiling.json")
    p.add_argument("--assemble", nargs=2, type=Path, metavar=("BASE_RESULT", "ARMS_RESULT"), default=None)
    args = p.parse_args()
    if args.assemble:
        doc = assemble(*args.assemble)
        args.out.write_text(json.dumps(doc, indent=2) + "\n")
        print(json.dumps(doc["summary"], indent=2))
        return
    main_args = rd.parse_args(["--quick"] if args.quick else [])
    name = "quick" if args.quick else "cpu"
    mode = dict(rd.MODES[name])
    if args.seeds:
        mode["seeds"] = args.seeds
    for arm in args.arms:
        rd.parse_spec(arm, main_args)
    set_threads(args.threads)
    device = resolve_device(args.device)
    loadavg_start = load_average()
    t_start = time.perf_counter()
    ctx = rd.build_context(main_args, mode)
    ctx["workdir"] = main_args.workdir
    before = {q.parent for q in ctx["workdir"].glob("base-*/xmd.json")}
    t0 = time.perf_counter()
    base_dir = rd.base_model(ctx, mode, str(device))
    base_seconds = time.perf_counter() - t0
    cached = base_dir in before
    loaded = load_model(base_dir, device=device)
    rs.prepare_measurement(ctx, mode)
    ml = mode["max_length"]
    doc: dict = {
        "benchmark": "real_data_ceiling",
        "environment": environment(device, loadavg_start),
        "config": {
            "mode": name,
            "protocol": "bench/real_data/real_data.py (same data, splits, identity words, base fine-tune, arms)",
            "splits": {k: f"{len(ctx[k])} posts" for k in ("train", "dev", "test")},
            "base_model_dir": str(base_dir.relative_to(rd.ROOT)) if base_dir.is_relative_to(rd.ROOT) else str(base_dir),
            "base_train": ctx["base_config"],
            "base_fine_tune": "reused from the cache" if cached else f"trained here in {base_seconds:.0f} s",
            "retrain_epochs": mode["epochs"],
            "identity_words": ctx["words"],
            "variants": {
                "delete": "identity words deleted (xmd.core.deletion.delete_positions)",
                "mask": "each identity word replaced by the tokenizer's mask token",
                "person": f"each identity word replaced by '{PERSON}'",
                "random_delete": "as many random other words (not punctuation, identity or placeholder) deleted",
                "random_mask": "as many random other words replaced by the mask token (base only)",
                "random_person": f"as many random other words replaced by '{PERSON}' (base only)",
            },
            "random_draws": args.draws,
            "attribution": "grad_x_input toward toxic, over the false positives (base model only)",
            "arms": "placeholders and attribution on the base only; the arms get deletion and the random control",
            "note": args.note,
        },
        "models": {},
    }

    def save() -> None:
        doc["summary"] = ceiling_summary(doc["models"])
        doc["environment"]["loadavg_end"] = load_average()
        doc["config"]["wall_seconds"] = time.perf_counter() - t_start
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, indent=2) + "\n")

    base = {s: analyse(loaded, ctx, s, ml, draws=args.draws, attribution=True) for s in ("dev", "test")}
    doc["models"]["base"] = {**base, "loadavg_end": load_average()}
    doc["config"]["reference"] = reference_agreement(base["test"]["pred"], args.reference)
    save()
    log(f"base: {json.dumps(doc['summary'])}")
    not_run, walls = [], []
    if args.arms:
        rd.prepare(ctx, mode, loaded, base=False)  # the base weights and the remove targets every arm starts from
    for seed in mode["seeds"]:
        for arm in args.arms:
            expected = float(np.mean(walls)) if walls else args.first_arm_s
            if args.time_budget_s is not None and time.perf_counter() - t_start + expected > args.time_budget_s:
                not_run.append({"arm": arm, "seed": seed})
                continue
            t0 = time.perf_counter()
            r = rd.run_arm(arm, seed, ctx, mode, main_args, full=False)
            res = {
                s: analyse(loaded, ctx, s, ml, draws=args.draws, attribution=False, placeholders=False)
                for s in ("dev", "test")
            }
            walls.append(time.perf_counter() - t0)
            doc["models"].setdefault(arm, {})[str(seed)] = {
                **res,
                "train_seconds": r["train_seconds"],
                "epoch_dev": r["epoch_dev"],
                "seconds": walls[-1],
                "loadavg_end": load_average(),
            }
            t = res["test"]
            log(
                f"{arm} seed {seed} ({walls[-1]:.0f} s): test FPR id {t['fpr_identity']:.3f} -> deleted "
                f"{t['erasure']['delete']['fpr_identity']:.3f}"
            )
            doc["config"]["not_run"] = not_run
            save()
    doc["config"]["not_run"] = not_run
    doc["config"]["complete"] = not not_run
    save()
    log(json.dumps(doc["summary"], indent=2))
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
