"""``xmd explain`` and ``xmd words``: instance and task explanations of a dataset from the shell."""

from __future__ import annotations

import json
from typing import Any

from xmd.cli import _add_common, _add_data_args, _load_data, _print, _resolve_model


def add_parsers(sub: Any) -> None:
    """Register ``explain`` and ``words`` on the main subparsers."""
    p = sub.add_parser("explain", help="word-level attributions for every example of a dataset")
    p.add_argument("model", help="model directory or Hub id")
    p.add_argument("data", help="CSV, TSV, JSONL, JSON, Parquet or a saved datasets directory")
    p.add_argument(
        "--method", default="grad_x_input", help="grad_x_input | saliency | integrated_gradients | occlusion"
    )
    p.add_argument("--target", default=None, help="class name or index to explain (default: the prediction)")
    p.add_argument("--n-steps", type=int, default=20, help="integrated gradients steps")
    p.add_argument("--out", default=None, help="write one JSON line per example to this file")
    p.add_argument("--top", type=int, default=3, help="words shown per example in the table")
    _add_data_args(p)
    _add_common(p)

    p = sub.add_parser("words", help="task-level ranking: which words the model relies on across the data")
    p.add_argument("model")
    p.add_argument("data")
    p.add_argument("--method", default="grad_x_input")
    p.add_argument("--sort", default="suspicion", choices=["importance", "count", "suspicion"])
    p.add_argument("--min-count", type=int, default=5)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--label-filter", default=None, help="only words that occur in examples of this label")
    _add_data_args(p)
    _add_common(p)


def cmd_explain(args) -> None:
    from xmd.core.attribution import explain
    from xmd.core.modeling import load_model

    loaded = load_model(_resolve_model(args.model), device=args.device)
    examples = _load_data(args, args.data, loaded.labels)
    target = None if args.target is None else loaded.label_index(args.target)
    exps = explain(
        loaded,
        [ex.text for ex in examples],
        method=args.method,
        target=target,
        batch_size=args.batch_size,
        max_length=args.max_length,
        n_steps=args.n_steps,
        example_ids=[ex.id for ex in examples],
        progress=not args.quiet,
    )
    rows = []
    for ex, e in zip(examples, exps, strict=True):
        d = e.to_dict()
        d["label"] = loaded.labels[ex.label] if ex.label is not None else None
        d["target_name"] = loaded.labels[e.target]
        rows.append(d)
    if args.out:
        with open(args.out, "w") as fh:
            for d in rows:
                fh.write(json.dumps(d) + "\n")
    lines = []
    for d in rows[:50]:
        top = sorted(range(len(d["words"])), key=lambda i: -d["shares"][i])[: args.top]
        words = ", ".join(f"{d['words'][i]} {d['shares'][i]:.2f}" for i in top)
        lines.append(f"{d['example_id']:>8}  {d['target_name']:<12} {words}")
    if len(rows) > 50:
        lines.append(f"… {len(rows) - 50} more" + (f" (all in {args.out})" if args.out else ""))
    _print(args, rows if not args.out else {"written": args.out, "n": len(rows)}, "\n".join(lines))


def cmd_words(args) -> None:
    from xmd.core.aggregate import TaskAggregate
    from xmd.core.attribution import explain
    from xmd.core.modeling import load_model

    loaded = load_model(_resolve_model(args.model), device=args.device)
    examples = _load_data(args, args.data, loaded.labels)
    exps = explain(
        loaded,
        [ex.text for ex in examples],
        method=args.method,
        batch_size=args.batch_size,
        max_length=args.max_length,
        progress=not args.quiet,
    )
    agg = TaskAggregate(loaded.num_labels, label_names=loaded.labels)
    for ex, e in zip(examples, exps, strict=True):
        agg.add(ex.id, ex.label, e)
    label = None if args.label_filter is None else loaded.label_index(args.label_filter)
    ranking = agg.ranking(sort=args.sort, label=label, min_count=args.min_count, limit=args.top)
    payload = []
    lines = [f"{'word':<18}{'importance':>11}{'count':>7}{'skew':>7}{'suspicion':>10}  label counts"]
    for w in ranking:
        counts = dict(zip(loaded.labels, w.label_counts, strict=True))
        payload.append(
            {
                "word": w.word,
                "mean_importance": w.mean_importance,
                "count": w.count,
                "label_counts": counts,
                "skew": w.skew,
                "suspicion": w.suspicion,
                "suspicious": w.suspicious,
            }
        )
        lines.append(f"{w.word:<18}{w.mean_importance:>11.3f}{w.count:>7}{w.skew:>7.2f}{w.suspicion:>10.3f}  {counts}")
    _print(args, payload, "\n".join(lines))


COMMANDS = {"explain": cmd_explain, "words": cmd_words}
