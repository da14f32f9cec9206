"""``xmd agreement``: several people's feedback files → their agreement, and the consensus by a policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xmd.cli import XMDUsageError, _add_data_args, _load_data, _print


def add_parsers(sub: Any) -> None:
    """Register ``agreement`` on the main subparsers."""
    p = sub.add_parser(
        "agreement",
        help="agreement of several annotators' feedback files (Cohen's κ, Fleiss' κ, α) and their consensus",
    )
    p.add_argument("feedback", nargs="+", help="one feedback JSON per annotator: PATH or NAME=PATH (name: file stem)")
    p.add_argument("--data", required=True, help="the data the feedback is about (word counts and words)")
    p.add_argument(
        "--seen-all",
        action="store_true",
        help="every annotator saw every example of --data (default: each saw the examples they marked)",
    )
    p.add_argument("--policy", default="majority", help="union, majority, at_least_k or reviewed (default: majority)")
    p.add_argument("--k", type=int, default=None, help="the k of --policy at_least_k")
    p.add_argument("--review", default=None, help="the reviewer's feedback JSON (--policy reviewed)")
    p.add_argument("--out", default=None, help="write the consensus feedback JSON here")
    p.add_argument("--top-words", type=int, default=10, help="most disputed words to list (default: 10)")
    p.add_argument("--json", action="store_true", help="print a JSON document instead of a table")
    _add_data_args(p)


def _named(specs: list[str]) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep:
            name, path = Path(spec).stem, spec
        if not name or not path:
            raise XMDUsageError(f"feedback {spec!r}: expected PATH or NAME=PATH")
        if name in out:
            raise XMDUsageError(f"annotator name {name!r} given twice; use NAME=PATH to tell the files apart")
        out[name] = Path(path)
    if len(out) < 2:
        raise XMDUsageError("agreement needs two or more feedback files (one per annotator)")
    return out


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _table(res: dict[str, Any], summary: dict[str, Any], out: str | None) -> str:
    lines = [f"{res['n_examples']} shared examples, {res['n_tokens']} words compared"]
    if res["note"]:
        lines.append(f"note: {res['note']}")
    lines.append(f"Krippendorff's α: {_fmt(res['alpha'])}   Fleiss' κ: {_fmt(res['fleiss_kappa'])}")
    lines.append(f"{'pair':<32}{'words':>8}{'agree':>8}{'κ':>8}")
    for p in res["pairs"]:
        agree = "–" if p["observed"] is None else f"{100 * p['observed']:.1f}%"
        lines.append(f"{p['a'] + ' – ' + p['b']:<32}{p['n_tokens']:>8}{agree:>8}{_fmt(p['kappa']):>8}")
    if res["per_word"]:
        lines.append("most disputed words: " + ", ".join(f"{w['word']} ({w['disputed']})" for w in res["per_word"]))
    task = res["task"]
    if task["n_words"]:
        lines.append(f"task-level words: {task['n_words']}, α {_fmt(task['alpha'])}")
    where = f" → {out}" if out else ""
    lines.append(
        f"consensus ({summary['policy']}): {summary['instance']} instance, {summary['task']} task entries, "
        f"{summary['conflicts']} conflicts{where}"
    )
    return "\n".join(lines)


def cmd_agreement(args) -> None:
    from xmd.core.agreement import agreement, annotator_marks
    from xmd.core.consensus import consensus
    from xmd.core.feedback import load_feedback, save_feedback
    from xmd.core.words import split_words

    files = _named(args.feedback)
    feedbacks = {name: load_feedback(path) for name, path in files.items()}
    review = load_feedback(args.review) if args.review else None
    examples = _load_data(args, args.data, None)
    texts = {ex.id: ex.text for ex in examples}
    for name, fs in feedbacks.items():
        unknown = sorted({f.example_id for f in fs.instance} - set(texts))
        if unknown:
            raise XMDUsageError(f"{name}: {len(unknown)} example id(s) not in --data, e.g. {unknown[0]!r}")
    n_words = {eid: len(split_words(t)[0]) for eid, t in texts.items()}
    seen = {name: list(texts) for name in feedbacks} if args.seen_all else None
    people = [annotator_marks(n, fs, seen[n] if seen else None) for n, fs in feedbacks.items()]
    res = agreement(people, n_words, texts=texts, top_words=args.top_words)
    result = consensus(feedbacks, args.policy, k=args.k, review=review, seen=seen)
    if args.out:
        save_feedback(result.feedback, args.out, examples)
    payload = {**res, "consensus": {**result.summary(), "out": args.out, "conflict_list": result.conflicts[:100]}}
    _print(args, payload, _table(res, result.summary(), args.out))


COMMANDS = {"agreement": cmd_agreement}
