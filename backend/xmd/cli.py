"""The ``xmd`` command line: explain, rank words, train, debug and evaluate without a server.

Progress bars go to stderr; ``--json`` prints one JSON document on stdout so the commands compose
with ``jq`` and scripts. Errors meant for users (bad files, unknown labels, missing models) print
one line and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _add_data_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--text-column", default="text", help="column holding the text (default: text)")
    p.add_argument("--label-column", default="label", help="column holding the gold label (default: label)")
    p.add_argument("--id-column", default=None, help="column with unique example ids (default: row number)")
    p.add_argument("--split", default="train", help="split name stored on the examples / DatasetDict split")
    p.add_argument("--limit", type=int, default=None, help="use only the first N examples")


def _add_common(p: argparse.ArgumentParser, *, training: bool = False) -> None:
    p.add_argument("--device", default="auto", help="auto (GPU if present), cpu, cuda, cuda:1 …")
    if not training:  # training commands take these from the settings dataclasses (_add_train_args)
        p.add_argument("--batch-size", type=int, default=32)
        p.add_argument("--max-length", type=int, default=128, help="truncate inputs to this many tokens")
    p.add_argument("--json", action="store_true", help="print a JSON document instead of a table")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def _add_train_args(p: argparse.ArgumentParser, *settings: type, defaults: dict[str, Any] | None = None) -> None:
    """Flags of every field of the settings dataclasses (``xmd.core.options``), plus the eval sets."""
    from xmd.core.options import add_arguments

    add_arguments(p, *settings, defaults=defaults)
    p.add_argument(
        "--eval",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="named evaluation set, repeatable (e.g. --eval clean=test.jsonl --eval ood=ood.csv)",
    )


def build_parser() -> argparse.ArgumentParser:
    from xmd.core.from_data import FINE_TUNE_DEFAULTS
    from xmd.core.retrain import RETRAIN_SETTINGS, TrainConfig

    parser = argparse.ArgumentParser(
        prog="xmd", description="Explanation-based debugging of NLP classifiers with people in the loop."
    )
    parser.add_argument("--version", action="version", version=f"xmd {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    from xmd.cli_explain import add_parsers as add_explain_parsers

    add_explain_parsers(sub)

    p = sub.add_parser("train", help="plain fine-tune of a base model (builds the classifier to debug)")
    p.add_argument("base", help="base model directory or Hub id (use 'minilm' for the bundled demo model)")
    p.add_argument("data")
    p.add_argument("--out", required=True, help="new model directory (must not exist or be empty)")
    p.add_argument(
        "--labels", default=None, help="comma-separated class names in order (default: read off the label column)"
    )
    _add_train_args(p, TrainConfig, defaults=FINE_TUNE_DEFAULTS)
    _add_data_args(p)
    _add_common(p, training=True)

    p = sub.add_parser("debug", help="retrain a model with feedback: L = L_task + λ·L_ER")
    p.add_argument("model", help="the fine-tuned model to debug (never modified)")
    p.add_argument("data", help="its training data")
    p.add_argument("feedback", help="feedback JSON ({'instance': [...], 'task': [...]})")
    p.add_argument("--out", required=True, help="new model directory for the debugged model")
    _add_train_args(p, *RETRAIN_SETTINGS)
    _add_data_args(p)
    _add_common(p, training=True)
    # Controls (issue 14; --controls/--seeds come from ControlOptions): --out becomes a folder with one
    # model per arm and seed + comparison.json.
    p.add_argument("--base-model", default=None, help="base model of the deletion_base control")
    p.add_argument("--positive-label", default=None, help="flagged class of the word false-positive rate")
    p.add_argument("--bootstrap", type=int, default=1000, help="paired bootstrap resamples")

    p = sub.add_parser("evaluate", help="accuracy / macro-F1 on named eval sets, optional faithfulness")
    p.add_argument("model")
    p.add_argument("--faithfulness", action="store_true", help="also AOPC comprehensiveness / sufficiency")
    p.add_argument("--method", default="grad_x_input", help="attribution method for faithfulness")
    p.add_argument("--faithfulness-limit", type=int, default=200, help="examples per set for faithfulness")
    p.add_argument(
        "--rationale-column",
        default=None,
        help="column with human rationales (0/1 per word, word positions or words): adds AUPRC and token-F1",
    )
    p.add_argument("--eval", action="append", default=[], metavar="NAME=PATH", required=True)
    p.add_argument("--words", default=None, help="word list (one a line): adds the word false-positive rate")
    p.add_argument("--feedback", default=None, help="feedback JSON whose task-level remove words give --words")
    p.add_argument("--positive-label", default=None, help="flagged class of the word FPR (default: word lift)")
    _add_data_args(p)
    _add_common(p)

    p = sub.add_parser("demo-data", help="write the demo dataset with a planted shortcut word")
    p.add_argument("out", help="directory for train.jsonl, test_clean.jsonl, test_anti.jsonl")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n-train", type=int, default=2000)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("demo", help="the whole story on the demo data: train, find the shortcut, debug it")
    p.add_argument("--workdir", default="runs/demo", help="where data and models go (default: runs/demo)")
    p.add_argument("--n-train", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--device", default="auto")
    from xmd.cli_admin import add_parsers as add_admin_parsers
    from xmd.cli_agreement import add_parsers as add_agreement_parsers
    from xmd.cli_feedback import add_parser as add_feedback_parser
    from xmd.cli_forecast import add_parsers as add_forecast_parsers

    add_admin_parsers(sub)
    add_feedback_parser(sub)
    add_forecast_parsers(sub)
    add_agreement_parsers(sub)
    return parser


class XMDUsageError(ValueError):
    """A command-line argument is missing or refers to nothing."""


def _version() -> str:
    from xmd import __version__

    return __version__


def _resolve_model(name: str) -> str:
    if name == "minilm":
        from xmd.core.modeling import minilm_path

        return str(minilm_path())
    return name


def _load_data(args, path: str, labels: list[str] | None, split: str | None = None):
    from xmd.core.data import load_examples

    examples = load_examples(
        path,
        text_column=args.text_column,
        label_column=args.label_column,
        id_column=args.id_column,
        labels=labels,
        split=split or args.split,
        require_labels=False,
    )
    return examples[: args.limit] if args.limit else examples


def _eval_sets(args, labels: list[str]) -> dict[str, list]:
    sets = {}
    for spec in args.eval:
        if "=" not in spec:
            raise SystemExit(f"xmd: error: --eval expects NAME=PATH, got {spec!r}")
        name, path = spec.split("=", 1)
        sets[name] = _load_data(args, path, labels, split=name)
    return sets


def _print(args, payload: Any, table: str) -> None:
    if args.json:
        print(json.dumps(payload, indent=2, default=str))
    else:
        print(table)


def _metrics_table(before: dict | None, after: dict | None) -> str:
    names = list((after or before or {}).keys())
    lines = [f"{'eval set':<16}{'n':>6}{'acc before':>12}{'acc after':>11}{'F1 before':>11}{'F1 after':>10}"]
    for n in names:
        b, a = (before or {}).get(n, {}), (after or {}).get(n, {})

        def f(x):
            return f"{x:.3f}" if isinstance(x, float) else "-"

        lines.append(
            f"{n:<16}{a.get('n', b.get('n', 0)):>6}{f(b.get('accuracy')):>12}{f(a.get('accuracy')):>11}"
            f"{f(b.get('macro_f1')):>11}{f(a.get('macro_f1')):>10}"
        )
    return "\n".join(lines)


def _train_config(args, cls: type | None = None):
    from xmd.core.options import build
    from xmd.core.retrain import TrainConfig

    return build(cls or TrainConfig, args)


def cmd_train(args) -> None:
    """The fine-tune a project started from a CSV runs too (:func:`xmd.core.from_data.fine_tune_from`);
    without ``--labels`` the classes are read off the data's label column, as there."""
    from xmd.core.from_data import fine_tune_from, read_labelled

    config = _train_config(args)
    if args.labels:
        labels = [x.strip() for x in args.labels.split(",")]
        train = _load_data(args, args.data, labels)
    else:
        train, labels = read_labelled(
            args.data,
            text_column=args.text_column,
            label_column=args.label_column,
            id_column=args.id_column,
            split=args.split,
        )
        train = train[: args.limit] if args.limit else train
    result = fine_tune_from(
        _resolve_model(args.base),
        train,
        args.out,
        labels=labels,
        config=config,
        eval_sets=_eval_sets(args, labels),
        device=args.device,
        progress=not args.quiet,
    )
    _print(
        args,
        result.to_dict(),
        f"saved {result.out_dir}\n" + _metrics_table(None, result.metrics_after),
    )


def cmd_debug(args) -> None:
    from xmd.core.feedback import load_feedback
    from xmd.core.modeling import load_model
    from xmd.core.options import build
    from xmd.core.pipeline import debug
    from xmd.core.retrain import ControlOptions, ERConfig, RetrainConfig

    probe = load_model(_resolve_model(args.model), device="cpu")
    train = _load_data(args, args.data, probe.labels)
    eval_sets = _eval_sets(args, probe.labels)
    del probe
    feedback = load_feedback(args.feedback)
    er = build(ERConfig, args)
    chosen = build(ControlOptions, args)
    if chosen.controls:
        from xmd.core.controls import ControlsConfig, run_comparison

        ctl = ControlsConfig(
            arms=chosen.controls, seeds=chosen.seeds, base_model=args.base_model, n_resamples=args.bootstrap
        )
        ctl.positive_label = args.positive_label
        cmp = run_comparison(
            _resolve_model(args.model), train, feedback, args.out, config=_train_config(args, RetrainConfig), er=er,
            eval_sets=eval_sets, controls=ctl, device=args.device, progress=not args.quiet,
        )  # fmt: skip
        _print(args, cmp.to_dict(), cmp.table())
        return
    result = debug(
        _resolve_model(args.model),
        train,
        feedback,
        args.out,
        config=_train_config(args, RetrainConfig),
        er=er,
        eval_sets=eval_sets,
        device=args.device,
        progress=not args.quiet,
    )
    lines = [f"saved {result.out_dir}", _metrics_table(result.metrics_before, result.metrics_after)]
    for m, b in (result.shares_before or {}).items():
        a = result.shares_after[m]
        for kind in ("remove", "add"):
            if b[kind]["n"]:
                lines.append(
                    f"share of {kind}d words ({m}): {b[kind]['mean_share']:.3f} -> {a[kind]['mean_share']:.3f}"
                    f" over {b[kind]['n']} examples"
                )
    lines += (result.meta.get("vs_parent") or {}).get("sentences", [])  # against the parent, in words
    _print(args, result.to_dict(), "\n".join(lines))


def cmd_evaluate(args) -> None:
    from xmd.core.attribution import explain
    from xmd.core.evaluate import aopc, evaluate_sets, plausibility, rationale_mask
    from xmd.core.modeling import load_model
    from xmd.core.types import DataError

    loaded = load_model(_resolve_model(args.model), device=args.device)
    sets = _eval_sets(args, loaded.labels)
    metrics = evaluate_sets(loaded, sets, batch_size=args.batch_size, max_length=args.max_length)
    lines = [_metrics_table(None, metrics)]
    if args.words or args.feedback:
        from xmd.core.measures import word_fpr_sets

        fpr = word_fpr_sets(loaded, sets, args.words, args.feedback, args.positive_label, args.max_length)
        for name, m in fpr.items():
            metrics[name].update(m)
            rates = ", ".join("-" if m[k] is None else f"{m[k]:.3f}" for k in ("fpr_words", "fpr_other"))
            lines.append(f"{name}: false-positive rate of {m['positive_label']} with the words / others: {rates}")
    if args.faithfulness or args.rationale_column:
        for name, exs in sets.items():
            chosen = exs[: args.faithfulness_limit]
            texts = [ex.text for ex in chosen]
            exps = explain(loaded, texts, method=args.method, max_length=args.max_length, progress=not args.quiet)
            if args.faithfulness:
                f = aopc(loaded, texts, exps, batch_size=args.batch_size, max_length=args.max_length)
                metrics[name]["aopc_comprehensiveness"] = f["comprehensiveness"]
                metrics[name]["aopc_sufficiency"] = f["sufficiency"]
                lines.append(
                    f"{name}: AOPC comprehensiveness {f['comprehensiveness']:.3f}, "
                    f"sufficiency {f['sufficiency']:.3f} ({args.method}, {len(chosen)} examples)"
                )
            if args.rationale_column:
                col = args.rationale_column
                if not any(col in ex.meta for ex in chosen):
                    raise DataError(f"eval set {name!r} has no column {col!r} with rationales")
                masks = [rationale_mask(ex.text, ex.meta.get(col)) for ex in chosen]
                pl = plausibility(exps, masks)
                metrics[name]["plausibility"] = pl
                auprc_s = "-" if pl["auprc"] is None else f"{pl['auprc']:.3f}"
                f1_s = "-" if pl["token_f1"] is None else f"{pl['token_f1']:.3f}"
                lines.append(f"{name}: plausibility AUPRC {auprc_s}, token-F1 {f1_s} over {pl['n']} rationales")
    _print(args, metrics, "\n".join(lines))


def cmd_demo_data(args) -> None:
    from xmd.core.demo import write_demo_dataset

    paths = write_demo_dataset(args.out, seed=args.seed, n_train=args.n_train)
    _print(args, {k: str(v) for k, v in paths.items()}, "\n".join(f"{k}: {v}" for k, v in paths.items()))


def cmd_demo(args) -> None:
    from xmd.core.demo_story import run_demo

    report = run_demo(
        Path(args.workdir), n_train=args.n_train, seed=args.seed, device=args.device, progress=not args.quiet
    )
    _print(args, report, report.get("summary", ""))


def cmd_feedback(args) -> None:
    from xmd.cli_feedback import run

    run(args)


def _commands() -> dict[str, Any]:
    """Every subcommand's function; the groups live in ``cli_<group>.py`` (entry points like this file)."""
    from xmd import cli_admin, cli_agreement, cli_explain, cli_forecast

    return {**COMMANDS, **cli_explain.COMMANDS, **cli_admin.COMMANDS, **cli_forecast.COMMANDS, **cli_agreement.COMMANDS}


COMMANDS = {
    "train": cmd_train,
    "debug": cmd_debug,
    "evaluate": cmd_evaluate,
    "demo-data": cmd_demo_data,
    "demo": cmd_demo,
    "feedback": cmd_feedback,
}


def _quiet_libraries() -> None:
    """Keep stderr for xmd's own progress bars and errors: silence library load bars and notices."""
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()


def main(argv: list[str] | None = None) -> int:
    from xmd.core.types import XMDError
    from xmd.files import private_files

    args = build_parser().parse_args(argv)
    _quiet_libraries()
    private_files()  # models, databases, uploads written by any command: owner only
    try:
        _commands()[args.command](args)
    except (XMDError, ValueError, FileNotFoundError) as exc:
        print(f"xmd: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
