"""Evaluation mode: feedback made from files instead of clicks, marked with where it came from.

Two sources reproduce the XMD paper's experiments on real data: human **rationales** become
instance-level *add* feedback on the words annotators marked (optionally *remove* on the rest),
restricted to examples the model gets right / wrong / all and to a seeded budget that simulates
limited annotation time; a **word list** (identity terms, a lexicon) becomes task-level feedback.
Every entry carries ``source`` (``simulated:rationales:<column>``, ``simulated:words:<file>``) and
every import returns an :class:`ImportSummary` saying what it touches and what it skipped and why.
Nothing here writes files: callers save the returned :class:`FeedbackSet` only when no error
was raised, so a bad column imports nothing.
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from xmd.core.feedback import FeedbackSet, expand_feedback, parse_action, parse_scope, task_key
from xmd.core.rationales import align_rationales
from xmd.core.types import Action, Example, FeedbackError, InstanceFeedback, Progress, Scope, TaskFeedback
from xmd.core.words import split_words, word_key

_SHOW = 5  # example ids kept per skip reason


@dataclass
class ImportSummary:
    """What one import touches: examples, distinct words, entries by action, and skipped rows.

    ``skipped`` counts rows (rationales) or lines (word lists) left out per reason;
    ``skipped_examples`` keeps the first few ids or lines of each reason so they can be looked up.
    """

    source: str
    level: str
    n_rows: int = 0
    n_examples: int = 0
    n_words: int = 0
    n_add: int = 0
    n_remove: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    skipped_examples: dict[str, list[str]] = field(default_factory=dict)
    top_words: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def skip(self, reason: str, ids: Sequence[str]) -> None:
        if ids:
            self.skipped[reason] = self.skipped.get(reason, 0) + len(ids)
            self.skipped_examples.setdefault(reason, []).extend(list(ids)[:_SHOW])
            del self.skipped_examples[reason][_SHOW:]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        """Plain-text lines for a terminal."""
        what = "examples" if self.level == "instance" else "examples contain the words"
        out = [
            f"{self.source}: {self.n_add} add, {self.n_remove} remove ({self.level}-level) on "
            f"{self.n_words} distinct words; {self.n_examples} {what} (of {self.n_rows} "
            f"{'rows' if self.level == 'instance' else 'lines'})"
        ]
        for reason, n in sorted(self.skipped.items(), key=lambda x: -x[1]):
            ids = ", ".join(self.skipped_examples.get(reason, []))
            out.append(f"  skipped {n}: {reason}" + (f" (e.g. {ids})" if ids else ""))
        if self.top_words:
            out.append("  top words: " + ", ".join(f"{w['word']} ({w['count']})" for w in self.top_words[:10]))
        return out


def _top(counter: Counter[str], n: int = 20) -> list[dict[str, Any]]:
    return [{"word": w, "count": c} for w, c in sorted(counter.items(), key=lambda x: (-x[1], x[0]))[:n]]


def predict_labels(
    model: Any,
    examples: Sequence[Example],
    *,
    batch_size: int = 64,
    max_length: int = 256,
    progress: bool = False,
) -> dict[str, int]:
    """Example id → predicted class index with a loaded model (progress bar on stderr)."""
    from xmd.core.predict import predict_proba

    if not examples:
        return {}
    probs = predict_proba(
        model, [ex.text for ex in examples], batch_size=batch_size, max_length=max_length, progress=progress
    )
    return {ex.id: int(p.argmax()) for ex, p in zip(examples, probs, strict=True)}


def feedback_from_rationales(
    examples: Sequence[Example],
    column: str,
    *,
    tokens_column: str | None = None,
    format: str = "auto",
    min_agreement: float = 0.5,
    only: str | Scope = Scope.ALL,
    predictions: Mapping[str, int] | None = None,
    model: Any = None,
    budget: int | None = None,
    seed: int = 0,
    remove_others: bool = False,
    source: str | None = None,
    batch_size: int = 64,
    max_length: int = 256,
    progress: bool = False,
    on_batch: Progress | None = None,
) -> tuple[FeedbackSet, ImportSummary]:
    """Instance feedback from the human rationales in ``column`` (see :func:`align_rationales`).

    *add* on every word the annotators agree on; with ``remove_others`` also *remove* on every
    other word of those examples. ``only`` = correct / incorrect keeps examples the model
    predicts right / wrong (from ``predictions``, else computed with ``model`` for the candidate
    rows only; unlabelled rows are skipped). ``budget`` keeps N of the remaining examples, drawn
    with ``seed``, in dataset order. Raises DataError / FeedbackError before building anything.
    """
    scope = parse_scope(only)
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 1):
        raise FeedbackError(f"budget must be a positive number of examples, got {budget!r}")
    if scope is not Scope.ALL and predictions is None and model is None:
        raise FeedbackError(f"only={scope.value!r} needs the model's predictions: pass predictions= or model=")
    aligned = align_rationales(
        examples, column, tokens_column=tokens_column, format=format, min_agreement=min_agreement, on_batch=on_batch
    )
    src = source or f"simulated:rationales:{column}"
    summary = ImportSummary(source=src, level="instance", n_rows=len(examples))
    summary.details = {
        "format": aligned.format,
        "units": aligned.units,
        "min_agreement": min_agreement,
        "annotators": {str(k): v for k, v in sorted(aligned.annotators.items())},
        "only": scope.value,
        "budget": budget,
        "seed": seed,
        "remove_others": remove_others,
        **aligned.notes,
    }
    for reason, ids in aligned.skipped.items():
        summary.skip(reason, ids)
    by_id = {ex.id: ex for ex in examples}
    chosen = [by_id[eid] for eid in aligned.masks]
    if scope is not Scope.ALL:
        summary.skip("no gold label", [ex.id for ex in chosen if ex.label is None])
        chosen = [ex for ex in chosen if ex.label is not None]
        if predictions is None:
            predictions = predict_labels(model, chosen, batch_size=batch_size, max_length=max_length, progress=progress)
        missing = [ex.id for ex in chosen if ex.id not in predictions]
        if missing:
            raise FeedbackError(f"no prediction for {len(missing)} examples, e.g. {missing[:_SHOW]}")
        want = scope is Scope.CORRECT
        keep = [ex for ex in chosen if (int(predictions[ex.id]) == ex.label) == want]
        other = "predicted incorrectly" if want else "predicted correctly"
        summary.skip(other, [ex.id for ex in chosen if (int(predictions[ex.id]) == ex.label) != want])
        chosen = keep
    if budget is not None and len(chosen) > budget:
        picked = set(random.Random(seed).sample(range(len(chosen)), budget))
        summary.skip("over budget", [ex.id for i, ex in enumerate(chosen) if i not in picked])
        chosen = [ex for i, ex in enumerate(chosen) if i in picked]

    fs = FeedbackSet()
    added: Counter[str] = Counter()
    for ex in chosen:
        words = split_words(ex.text)[0]
        for i, flag in enumerate(aligned.masks[ex.id]):
            if not flag and not remove_others:
                continue
            action = Action.ADD if flag else Action.REMOVE
            fs.instance.append(InstanceFeedback(ex.id, i, action, src))
            fs.words[(ex.id, i)] = words[i]
            if flag:
                added[word_key(words[i])] += 1
    summary.n_examples = len(chosen)
    summary.n_add = sum(1 for f in fs.instance if f.action is Action.ADD)
    summary.n_remove = len(fs.instance) - summary.n_add
    summary.n_words = len({word_key(w) for w in fs.words.values()})
    summary.top_words = _top(added)
    return fs, summary


# --------------------------------------------------------------------------------------------------
# Word lists

_SPLIT = re.compile(r"\t|,")


def read_word_list(
    source: str | os.PathLike | Iterable[str],
) -> tuple[list[tuple[str, float | None]], dict[str, list[str]]]:
    """Words (with optional weights) from a file path or an iterable of lines.

    One word per line, optionally followed by a tab or comma and a numeric weight; blank lines and
    lines starting with ``#`` are ignored, and a first line whose weight is not a number
    (``word<TAB>weight``) is a header. Returns the entries and, per problem, the lines left out
    ("line 7: 'african american' is 2 words"). FeedbackError for a weight that is not a number.
    """
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        try:
            lines = path.read_text(encoding="utf-8-sig").splitlines()
        except OSError as e:
            raise FeedbackError(f"cannot read word list {str(path)!r}: {e.strerror or e}") from None
        except UnicodeDecodeError:
            raise FeedbackError(f"word list {path.name!r} is not UTF-8 encoded; re-save it as UTF-8") from None
    else:
        lines = [str(x) for x in source]
    entries: list[tuple[str, float | None]] = []
    skipped: dict[str, list[str]] = {}
    seen_content = False
    for n, raw in enumerate(lines, start=1):
        line = raw.strip().lstrip("\ufeff").strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in _SPLIT.split(line, maxsplit=1)]
        word, weight = parts[0], None
        if len(parts) == 2 and parts[1]:
            try:
                weight = float(parts[1])
            except ValueError:
                if not seen_content:
                    seen_content = True
                    continue  # header row
                raise FeedbackError(f"word list line {n}: weight {parts[1]!r} is not a number") from None
        seen_content = True
        pieces = split_words(word)[0]
        if len(pieces) != 1:
            shown = f"line {n}: {word!r}" + (f" → {' | '.join(pieces)}" if pieces else "")
            skipped.setdefault("not a single word" if pieces else "empty word", []).append(shown)
            continue
        entries.append((word, weight))
    return entries, skipped


def feedback_from_words(
    words: str | os.PathLike | Iterable[str],
    *,
    action: str | Action = Action.REMOVE,
    scope: str | Scope = Scope.ALL,
    label: int | None = None,
    min_weight: float | None = None,
    top: int | None = None,
    examples: Sequence[Example] | None = None,
    predictions: Mapping[str, int] | None = None,
    source: str | None = None,
) -> tuple[FeedbackSet, ImportSummary]:
    """Task feedback, one entry per distinct word of a word list (a path or lines, see
    :func:`read_word_list`), tagged ``source`` (default ``simulated:words:<file name>``).

    Case and Unicode variants ("Muslims", "MUSLIMS", full-width letters) are one word, as in the
    aggregates; the first spelling is kept. Weights select words (``min_weight``, then the ``top``
    heaviest); the ER loss has no per-word weight. With ``examples`` the summary counts the
    examples the feedback reaches (scope applied when ``predictions`` are given).
    """
    act = parse_action(action)
    if act is Action.RESET:
        raise FeedbackError("a word list can add or remove words, not reset them")
    sc = parse_scope(scope)
    name = Path(words).name if isinstance(words, str | os.PathLike) else "list"
    src = source or f"simulated:words:{name}"
    entries, skipped = read_word_list(words)
    summary = ImportSummary(source=src, level="task", n_rows=len(entries) + sum(len(v) for v in skipped.values()))
    for reason, where in skipped.items():
        summary.skip(reason, where)
    kept: dict[str, tuple[str, float | None]] = {}
    dups = []
    for word, weight in entries:
        key = task_key(word)
        if key in kept:
            dups.append(word)
            prev = kept[key][1]
            if weight is not None and (prev is None or weight > prev):
                kept[key] = (kept[key][0], weight)  # keep the first spelling, the largest weight
        else:
            kept[key] = (word, weight)
    summary.skip("duplicate of an earlier word (case/Unicode variant)", dups)
    chosen = list(kept.values())
    if min_weight is not None:
        low = [w for w, wt in chosen if wt is None or wt < min_weight]
        summary.skip(f"weight below {min_weight} or missing", low)
        chosen = [(w, wt) for w, wt in chosen if wt is not None and wt >= min_weight]
    if top is not None and len(chosen) > top:
        order = sorted(range(len(chosen)), key=lambda i: (-(chosen[i][1] or 0.0), i))
        cut = set(order[:top])
        summary.skip(f"not among the top {top} by weight", [w for i, (w, _) in enumerate(chosen) if i not in cut])
        chosen = [c for i, c in enumerate(chosen) if i in cut]
    if not chosen:
        raise FeedbackError(f"word list {name!r} gives no word to import (see what was skipped: {summary.skipped})")
    fs = FeedbackSet(task=[TaskFeedback(w, act, label, sc, src) for w, _ in chosen])
    summary.n_words = len(chosen)
    summary.n_add = len(chosen) if act is Action.ADD else 0
    summary.n_remove = len(chosen) if act is Action.REMOVE else 0
    summary.details = {"action": act.value, "scope": sc.value, "label": label, "min_weight": min_weight, "top": top}
    if examples is not None:
        reach_scope = sc if predictions is not None else Scope.ALL
        reach = [TaskFeedback(t.word, t.action, t.label, reach_scope) for t in fs.task]
        hit = expand_feedback(examples, [], reach, predictions)
        summary.n_examples = len(hit)
        counts: Counter[str] = Counter()
        keys = {task_key(w) for w, _ in chosen}
        for ex in examples:
            if ex.id in hit:
                counts.update({word_key(w) for w in split_words(ex.text)[0]} & keys)
        summary.top_words = _top(counts)
        summary.details["scope_applied"] = reach_scope is sc
    return fs, summary


def merge_feedback(base: FeedbackSet, new: FeedbackSet, *, replace_source: bool = True) -> tuple[FeedbackSet, int]:
    """``base`` followed by ``new`` (later entries win). With ``replace_source``, entries of
    ``base`` from a source that ``new`` also uses are dropped first, so re-running an import
    replaces its earlier result instead of stacking on it. Returns the set and how many went."""
    sources = {f.source for f in (*new.instance, *new.task) if f.source is not None}
    out = FeedbackSet()
    dropped = 0
    for fb in base.instance:
        if replace_source and fb.source in sources:
            dropped += 1
            continue
        out.instance.append(fb)
        if (fb.example_id, fb.word_index) in base.words:
            out.words[(fb.example_id, fb.word_index)] = base.words[(fb.example_id, fb.word_index)]
    for tf in base.task:
        if replace_source and tf.source in sources:
            dropped += 1
            continue
        out.task.append(tf)
    out.instance.extend(new.instance)
    out.task.extend(new.task)
    out.words.update(new.words)
    return out, dropped


__all__ = [
    "ImportSummary",
    "feedback_from_rationales",
    "feedback_from_words",
    "merge_feedback",
    "predict_labels",
    "read_word_list",
]
