"""``xmd forecast``: what ignoring the feedback's words would change, before a retrain is paid for."""

from __future__ import annotations

from typing import Any

from xmd.cli import _add_common, _add_data_args, _eval_sets, _load_data, _print, _resolve_model


def add_parsers(sub: Any) -> None:
    """Register ``forecast`` on the main subparsers."""
    p = sub.add_parser(
        "forecast",
        help="predict the eval sets with the feedback's remove words erased, and with as many random words",
    )
    p.add_argument("model", help="the model the feedback is about (never modified)")
    p.add_argument("feedback", help="feedback JSON ({'instance': [...], 'task': [...]})")
    p.add_argument("--eval", action="append", default=[], metavar="NAME=PATH", required=True)
    p.add_argument("--data", default=None, help="training data: picks the flagged class and the marked words")
    p.add_argument("--positive-label", default=None, help="flagged class of the word FPR (default: word lift)")
    p.add_argument("--max-examples", type=int, default=None, help="examples per eval set (default: 2000)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples of each interval")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample, the random words and the bootstrap")
    _add_data_args(p)
    _add_common(p)


def cmd_forecast(args) -> None:
    from xmd.core.feedback import load_feedback
    from xmd.core.forecast import MAX_EXAMPLES, feedback_words, forecast
    from xmd.core.modeling import load_model

    loaded = load_model(_resolve_model(args.model), device=args.device)
    train = _load_data(args, args.data, loaded.labels) if args.data else []
    words = feedback_words(load_feedback(args.feedback), train)
    given = None if args.positive_label is None else loaded.label_index(args.positive_label)
    result = forecast(
        loaded,
        _eval_sets(args, loaded.labels),
        words,
        positive=given,
        reference=train,
        max_examples=args.max_examples or MAX_EXAMPLES,
        n_resamples=args.bootstrap,
        seed=args.seed,
        batch_size=args.batch_size,
        max_length=args.max_length,
        progress=not args.quiet,
    )
    lines = [f"words erased: {', '.join(result['words'])}"]
    lines += [r["sentence"] for r in result["sets"].values()]
    _print(args, result, "\n".join(lines))


COMMANDS = {"forecast": cmd_forecast}
