"""``xmd feedback …``: evaluation mode on the command line, feedback JSON made from files.

``from-rationales`` turns a dataset's human rationales into instance feedback, ``from-words`` a word
list into task feedback; both write the JSON that ``xmd debug`` reads (or merge into an existing
one) and print what the import touches and what it skipped. Everything is computed before the file
is written, and the write is atomic, so a bad column or word list leaves no file behind.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    """Register ``feedback from-rationales`` and ``feedback from-words`` on the main subparsers."""
    from xmd.cli import _add_data_args

    p = sub.add_parser("feedback", help="evaluation mode: feedback JSON from rationale columns or word lists")
    fsub = p.add_subparsers(dest="feedback_command", required=True)

    r = fsub.add_parser("from-rationales", help="instance feedback from a column of human rationales")
    r.add_argument("data", help="CSV, TSV, JSONL, JSON, Parquet or a saved datasets directory")
    r.add_argument("--rationale-column", required=True, help="column with the rationales")
    r.add_argument("--tokens-column", default=None, help="token-list column that flags/positions refer to")
    r.add_argument("--format", default="auto", choices=["auto", "binary", "positions", "words", "spans"])
    r.add_argument(
        "--min-agreement",
        default="0.5",
        help="with several annotators: a count (2 = at least two) or a fraction (0.5, 2/3); default 0.5",
    )
    r.add_argument("--only", default="all", choices=["all", "correct", "incorrect"], help="by the model's prediction")
    r.add_argument("--model", default=None, help="model whose predictions --only uses (and whose labels map names)")
    r.add_argument("--predictions", default=None, help="JSON {example id: label} instead of running --model")
    r.add_argument("--labels", default=None, help="comma-separated class names (without --model)")
    r.add_argument("--budget", type=int, default=None, help="keep N examples, drawn with --seed")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--remove-others", action="store_true", help="also 'remove' on the words not in the rationale")
    r.add_argument("--device", default="auto")
    r.add_argument("--batch-size", type=int, default=64)
    r.add_argument("--max-length", type=int, default=128)
    _add_out_args(r)
    _add_data_args(r)

    w = fsub.add_parser("from-words", help="task feedback from a word list (one word per line, optional weight)")
    w.add_argument("words", help="text file: one word per line, optional tab/comma weight, # comments")
    w.add_argument("--action", default="remove", choices=["remove", "add"])
    w.add_argument("--scope", default="all", choices=["all", "correct", "incorrect"])
    w.add_argument("--label", default=None, help="only examples of this gold label (name or index)")
    w.add_argument("--labels", default=None, help="comma-separated class names, to give --label by name")
    w.add_argument("--min-weight", type=float, default=None, help="keep words whose weight is at least this")
    w.add_argument("--top", type=int, default=None, help="keep the N heaviest words")
    w.add_argument("--data", default=None, help="dataset to count the examples the words reach (optional)")
    _add_out_args(w)
    _add_data_args(w)


def _add_out_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="feedback JSON to write")
    p.add_argument(
        "--merge",
        default=None,
        help="existing feedback JSON to add to (earlier entries of the same source are replaced)",
    )
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument(
        "--source", default=None, help="source tag (default simulated:rationales:<column> / simulated:words:<file>)"
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> None:
    """Entry point for ``xmd feedback``; XMDError / ValueError propagate to ``xmd.cli.main``."""
    out = Path(args.out)
    merge = Path(args.merge) if args.merge else None
    if out.exists() and not args.force and (merge is None or merge.resolve() != out.resolve()):
        raise ValueError(f"{str(out)!r} exists; pass --merge {out} to add to it or --force to overwrite it")
    base = None
    if merge is not None:
        from xmd.core.feedback import load_feedback

        base = load_feedback(merge)  # read (and validated) before any work is done
    if args.feedback_command == "from-rationales":
        fs, summary, examples = _from_rationales(args)
    else:
        fs, summary, examples = _from_words(args)
    replaced = 0
    if base is not None:
        from xmd.core.simulate import merge_feedback

        fs, replaced = merge_feedback(base, fs)
    from xmd.core.feedback import save_feedback

    save_feedback(fs, out, examples)
    payload = {"written": str(out), "entries": len(fs), "replaced": replaced, "summary": summary.to_dict()}
    if args.json:
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        lines = summary.lines()
        if replaced:
            lines.append(f"replaced {replaced} earlier entries from {summary.source}")
        lines.append(f"wrote {len(fs)} feedback entries to {out}")
        print("\n".join(lines))


def _labels(args: argparse.Namespace) -> list[str] | None:
    return [x.strip() for x in args.labels.split(",")] if args.labels else None


def _load(args: argparse.Namespace, path: str, labels: list[str] | None, *, need_labels: bool) -> list:
    """The dataset; gold labels are read only when something uses them (label names need --labels/--model)."""
    from xmd.core.data import load_examples

    examples = load_examples(
        path,
        text_column=args.text_column,
        label_column=args.label_column if need_labels or labels is not None else None,
        id_column=args.id_column,
        labels=labels,
        split=args.split,
        require_labels=False,
    )
    return examples[: args.limit] if args.limit else examples


def parse_agreement(value: str) -> float:
    """``"2"`` → 2 annotators, ``"0.5"`` → half, ``"2/3"`` → two thirds."""
    s = str(value).strip()
    try:
        if "/" in s:
            a, b = s.split("/", 1)
            return float(a) / float(b)
        return int(s) if s.isdigit() else float(s)
    except (ValueError, ZeroDivisionError):
        raise ValueError(
            f"--min-agreement must be a count (2), a fraction (0.5) or a ratio (2/3), got {value!r}"
        ) from None


def _from_rationales(args: argparse.Namespace):
    from xmd.cli import _resolve_model
    from xmd.core.simulate import feedback_from_rationales

    if args.only != "all" and not args.model and not args.predictions:
        raise ValueError(f"--only {args.only} needs --model or --predictions")
    loaded = None
    labels = _labels(args)
    if args.model:
        from xmd.core.modeling import load_model

        loaded = load_model(_resolve_model(args.model), device=args.device)
        labels = loaded.labels
    examples = _load(args, args.data, labels, need_labels=args.only != "all")
    if args.only != "all" and not any(ex.label is not None for ex in examples):
        raise ValueError(f"--only {args.only} needs gold labels, and column {args.label_column!r} holds none")
    predictions = _read_predictions(args.predictions, labels) if args.predictions else None
    fs, summary = feedback_from_rationales(
        examples,
        args.rationale_column,
        tokens_column=args.tokens_column,
        format=args.format,
        min_agreement=parse_agreement(args.min_agreement),
        only=args.only,
        predictions=predictions,
        model=loaded,
        budget=args.budget,
        seed=args.seed,
        remove_others=args.remove_others,
        source=args.source,
        batch_size=args.batch_size,
        max_length=args.max_length,
        progress=not args.quiet,
    )
    return fs, summary, examples


def _read_predictions(path: str, labels: list[str] | None) -> dict[str, int]:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read predictions {path!r}: {e}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"predictions {path!r} must be a JSON object {{example id: label}}")
    names = {n.lower(): i for i, n in enumerate(labels or [])}
    out = {}
    for k, v in raw.items():
        if isinstance(v, int) and not isinstance(v, bool):
            out[str(k)] = v
        elif isinstance(v, str) and v.strip().lower() in names:
            out[str(k)] = names[v.strip().lower()]
        else:
            raise ValueError(f"predictions {path!r}: label {v!r} of {k!r} is not a class index or a known name")
    return out


def _from_words(args: argparse.Namespace):
    from xmd.core.simulate import feedback_from_words

    labels = _labels(args)
    label = None
    if args.label is not None:
        if args.label.strip().isdigit():
            label = int(args.label)
        elif labels and args.label.strip().lower() in [x.lower() for x in labels]:
            label = [x.lower() for x in labels].index(args.label.strip().lower())
        else:
            raise ValueError(f"--label {args.label!r} is not a class index; pass --labels to give it by name")
    examples = _load(args, args.data, labels, need_labels=label is not None) if args.data else None
    fs, summary = feedback_from_words(
        args.words,
        action=args.action,
        scope=args.scope,
        label=label,
        min_weight=args.min_weight,
        top=args.top,
        examples=examples,
        source=args.source,
    )
    return fs, summary, None


if __name__ == "__main__":  # pragma: no cover
    from xmd.cli import main

    sys.exit(main(["feedback", *sys.argv[1:]]))
