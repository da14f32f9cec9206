"""Feedback records and their expansion into per-position training targets.

People give feedback at two levels: on one word position of one example (*instance*), or on a
word across the task (*task*), optionally restricted to one gold label and to the examples the
model currently gets right or wrong (*scope*). Training needs neither: it needs, per example, the
word positions whose share should go to 0 (REMOVE) or up (ADD). :func:`expand_feedback` does that
translation, with one precedence rule everywhere: **later feedback wins, and instance feedback
wins over task feedback** (it is the more specific statement about that position).

Feedback is addressed by word position (see :mod:`xmd.core.words`), which does not depend on the
tokenizer; the optional ``"word"`` stored with instance feedback in JSON is there for people
reading the file and to detect a dataset whose texts changed under the feedback.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from xmd.core.types import Action, Example, FeedbackError, InstanceFeedback, Scope, TaskFeedback
from xmd.core.words import split_words, word_key

_ACTIONS = ", ".join(a.value for a in Action)
_SCOPES = ", ".join(s.value for s in Scope)


def parse_action(value: Any) -> Action:
    """``Action`` from an enum or its string value; FeedbackError naming the allowed values."""
    if isinstance(value, Action):
        return value
    try:
        return Action(str(value).strip().lower())
    except ValueError:
        raise FeedbackError(f"unknown action {value!r}; allowed: {_ACTIONS}") from None


def parse_scope(value: Any) -> Scope:
    """``Scope`` from an enum or its string value; FeedbackError naming the allowed values."""
    if isinstance(value, Scope):
        return value
    try:
        return Scope(str(value).strip().lower())
    except ValueError:
        raise FeedbackError(f"unknown scope {value!r}; allowed: {_SCOPES}") from None


def task_key(word: str) -> str:
    """Word key a task feedback matches on; FeedbackError unless ``word`` is exactly one word."""
    if not isinstance(word, str) or not word.strip():
        raise FeedbackError("task feedback needs a non-empty word")
    parts, _ = split_words(word)
    if len(parts) != 1:
        raise FeedbackError(f"task feedback is given on single words, but {word!r} splits into {len(parts)}: {parts}")
    return word_key(parts[0])


def resolve_instance(instance: Iterable[InstanceFeedback]) -> dict[tuple[str, int], Action]:
    """Apply the list in order: later entries win, RESET deletes; the result has no RESET."""
    out: dict[tuple[str, int], Action] = {}
    for fb in instance:
        key = (fb.example_id, fb.word_index)
        action = parse_action(fb.action)
        out.pop(key, None)  # re-insert at the end so dict order is "last set"
        if action is not Action.RESET:
            out[key] = action
    return out


def resolve_task(task: Iterable[TaskFeedback]) -> dict[tuple[str, int | None, Scope], Action]:
    """Like :func:`resolve_instance`, keyed by (word key, label, scope).

    Entries with different keys can still hit the same position ("the" everywhere, and "the" in
    label 1); the dict keeps them in the order they were last set so that applying it in order
    makes the later one win there too.
    """
    out: dict[tuple[str, int | None, Scope], Action] = {}
    for fb in task:
        key = (task_key(fb.word), fb.label, parse_scope(fb.scope))
        action = parse_action(fb.action)
        out.pop(key, None)
        if action is not Action.RESET:
            out[key] = action
    return out


def _check_label(label: int | None, num_labels: int | None, what: str) -> None:
    if label is None:
        return
    if not isinstance(label, int) or isinstance(label, bool):
        raise FeedbackError(f"{what}: label must be an integer class index, got {label!r}")
    if label < 0 or (num_labels is not None and label >= num_labels):
        top = f"0..{num_labels - 1}" if num_labels is not None else "a non-negative index"
        raise FeedbackError(f"{what}: label {label} is out of range (expected {top})")


def expand_feedback(
    examples: Sequence[Example],
    instance: Sequence[InstanceFeedback],
    task: Sequence[TaskFeedback],
    predictions: Mapping[str, int] | None = None,
    *,
    num_labels: int | None = None,
) -> dict[str, dict[int, Action]]:
    """Example id → {word position → ADD or REMOVE} for the given examples.

    Task feedback hits every occurrence of its word key in every example whose gold label matches
    ``label`` (if set) and whose prediction matches ``scope``: CORRECT = predicted the gold label,
    INCORRECT = did not, ALL = any example. Unlabelled examples never match CORRECT/INCORRECT (they
    have no right answer). Instance feedback is applied last, so it overrides task feedback on the
    same position. Examples without any target are left out of the result.
    """
    texts = {ex.id: ex for ex in examples}
    words_of: dict[str, list[str]] = {}

    def words(eid: str) -> list[str]:
        w = words_of.get(eid)
        if w is None:
            w = words_of[eid] = split_words(texts[eid].text)[0]
        return w

    inst = resolve_instance(instance)
    # Validate every instance entry, RESET ones included: a typo in a reset is still a typo.
    for fb in instance:
        if fb.example_id not in texts:
            raise FeedbackError(f"instance feedback refers to unknown example id {fb.example_id!r}")
        n = len(words(fb.example_id))
        if not isinstance(fb.word_index, int) or isinstance(fb.word_index, bool):
            raise FeedbackError(f"word_index must be an integer, got {fb.word_index!r}")
        if not 0 <= fb.word_index < n:
            raise FeedbackError(
                f"word_index {fb.word_index} is out of range for example {fb.example_id!r}, "
                f"which has {n} words (valid: 0..{n - 1})"
            )

    for fb in task:
        _check_label(fb.label, num_labels, f"task feedback on {fb.word!r}")
    tasks = resolve_task(task)
    if predictions is None:
        scoped = [k for k in tasks if k[2] is not Scope.ALL]
        if scoped:
            word, _, scope = scoped[0]
            raise FeedbackError(f"task feedback on {word!r} with scope {scope.value!r} needs the model's predictions")

    out: dict[str, dict[int, Action]] = {}
    if tasks:
        # Positions of each feedback word, built once per example (one pass over the data).
        wanted = {k[0] for k in tasks}
        positions: dict[str, list[tuple[Example, list[int]]]] = {w: [] for w in wanted}
        keys: dict[str, str] = {}  # word -> word key; NFKC + casefold per token is the slow part
        for ex in examples:
            hits: dict[str, list[int]] = {}
            for i, w in enumerate(words(ex.id)):
                k = keys.get(w)
                if k is None:
                    k = keys[w] = word_key(w)
                if k in wanted:
                    hits.setdefault(k, []).append(i)
            for k, idx in hits.items():
                positions[k].append((ex, idx))
        for (key, label, scope), action in tasks.items():
            for ex, idx in positions[key]:
                if label is not None and ex.label != label:
                    continue
                if scope is not Scope.ALL:
                    if ex.label is None:
                        continue
                    assert predictions is not None
                    if ex.id not in predictions:
                        raise FeedbackError(
                            f"task feedback on {key!r} with scope {scope.value!r} needs a prediction "
                            f"for example {ex.id!r}, and there is none"
                        )
                    correct = predictions[ex.id] == ex.label
                    if correct != (scope is Scope.CORRECT):
                        continue
                target = out.setdefault(ex.id, {})
                for i in idx:
                    target[i] = action

    for (eid, i), action in inst.items():
        out.setdefault(eid, {})[i] = action
    return out


@dataclass
class FeedbackSet:
    """All feedback of a task, in the order it was given (order matters: later entries win).

    ``words`` maps (example id, word index) to the word the person saw, when known; it is written
    to JSON for readability and checked by :meth:`expand` against the current texts.
    """

    instance: list[InstanceFeedback] = field(default_factory=list)
    task: list[TaskFeedback] = field(default_factory=list)
    words: dict[tuple[str, int], str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.instance) + len(self.task)

    def with_task_scope(self, scope: Scope | str) -> FeedbackSet:
        """A copy whose task feedback of scope ALL takes ``scope`` (a retrain's ``task_scope``): the
        same rule as a task feedback's own scope, by the model's predictions before training. Entries
        that carry their own scope keep it (a person's explicit choice wins); instance feedback is untouched."""
        scope = parse_scope(scope)
        if scope is Scope.ALL:
            return self
        task = [replace(t, scope=scope) if parse_scope(t.scope) is Scope.ALL else t for t in self.task]
        return FeedbackSet(instance=list(self.instance), task=task, words=dict(self.words))

    def expand(
        self,
        examples: Sequence[Example],
        predictions: Mapping[str, int] | None = None,
        *,
        num_labels: int | None = None,
    ) -> dict[str, dict[int, Action]]:
        """:func:`expand_feedback`, after checking the recorded words still match the texts."""
        texts = {ex.id: ex.text for ex in examples}
        for (eid, i), word in self.words.items():
            if eid not in texts:
                continue  # expand_feedback reports unknown ids for live entries
            ws = split_words(texts[eid])[0]
            if 0 <= i < len(ws) and word_key(ws[i]) != word_key(word):
                raise FeedbackError(
                    f"feedback on word {i} of example {eid!r} was given on {word!r}, but that word is "
                    f"now {ws[i]!r}; the text changed since the feedback was recorded"
                )
        return expand_feedback(examples, self.instance, self.task, predictions, num_labels=num_labels)

    # ------------------------------------------------------------------ JSON

    def to_dict(self, examples: Sequence[Example] | None = None) -> dict[str, Any]:
        """JSON-ready dict; with ``examples``, each instance entry also records its word."""
        words_of: dict[str, list[str]] = {}
        texts = {ex.id: ex.text for ex in examples} if examples is not None else {}
        inst = []
        for fb in self.instance:
            row: dict[str, Any] = {
                "example_id": fb.example_id,
                "word_index": fb.word_index,
                "action": parse_action(fb.action).value,
            }
            word = self.words.get((fb.example_id, fb.word_index))
            if fb.example_id in texts:
                if fb.example_id not in words_of:
                    words_of[fb.example_id] = split_words(texts[fb.example_id])[0]
                ws = words_of[fb.example_id]
                if 0 <= fb.word_index < len(ws):
                    word = ws[fb.word_index]
            if word is not None:
                row["word"] = word
            if fb.source is not None:
                row["source"] = fb.source
            inst.append(row)
        task = []
        for tf in self.task:
            trow: dict[str, Any] = {
                "word": tf.word,
                "action": parse_action(tf.action).value,
                "label": tf.label,
                "scope": parse_scope(tf.scope).value,
            }
            if tf.source is not None:
                trow["source"] = tf.source
            task.append(trow)
        return {"instance": inst, "task": task}

    def to_json(self, examples: Sequence[Example] | None = None, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(examples), indent=indent, ensure_ascii=False)

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> FeedbackSet:
        """Parse JSON text or an already-decoded dict; FeedbackError says which entry is wrong."""
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as e:
                raise FeedbackError(f"feedback is not valid JSON: {e}") from None
        if not isinstance(data, Mapping):
            raise FeedbackError("feedback JSON must be an object with 'instance' and 'task' lists")
        unknown = set(data) - {"instance", "task"}
        if unknown:
            raise FeedbackError(f"unknown keys in feedback JSON: {sorted(unknown)}")
        out = cls()
        for i, row in enumerate(_list(data, "instance")):
            where = f"instance feedback #{i}"
            _require(row, ("example_id", "word_index", "action"), where)
            eid, idx = row["example_id"], row["word_index"]
            if not isinstance(eid, (str, int)) or isinstance(eid, bool):
                raise FeedbackError(f"{where}: example_id must be a string, got {eid!r}")
            if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
                raise FeedbackError(f"{where}: word_index must be a non-negative integer, got {idx!r}")
            fb = InstanceFeedback(str(eid), idx, parse_action(row["action"]), _source(row, where))
            out.instance.append(fb)
            word = row.get("word")
            if word is not None:
                if not isinstance(word, str):
                    raise FeedbackError(f"{where}: word must be a string, got {word!r}")
                out.words[(fb.example_id, fb.word_index)] = word
        for i, row in enumerate(_list(data, "task")):
            where = f"task feedback #{i}"
            _require(row, ("word", "action"), where)
            task_key(row["word"])
            label = row.get("label")
            _check_label(label, None, where)
            out.task.append(
                TaskFeedback(
                    word=row["word"],
                    action=parse_action(row["action"]),
                    label=label,
                    scope=parse_scope(row.get("scope", Scope.ALL.value)),
                    source=_source(row, where),
                )
            )
        return out

    # ------------------------------------------------------------------ summary

    def sources(self) -> dict[str, dict[str, int]]:
        """Effective entries (after resets and overrides) per source, e.g.
        ``{"simulated:rationales:r": {"instance": 120, "task": 0}}``; entries without a source
        count under ``"unmarked"``. Empty when no entry carries a source."""
        last_i: dict[tuple[str, int], InstanceFeedback] = {}
        for fb in self.instance:
            last_i.pop((fb.example_id, fb.word_index), None)
            if parse_action(fb.action) is not Action.RESET:
                last_i[(fb.example_id, fb.word_index)] = fb
        last_t: dict[tuple[str, int | None, Scope], TaskFeedback] = {}
        for tf in self.task:
            key = (task_key(tf.word), tf.label, parse_scope(tf.scope))
            last_t.pop(key, None)
            if parse_action(tf.action) is not Action.RESET:
                last_t[key] = tf
        if all(f.source is None for f in (*last_i.values(), *last_t.values())):
            return {}
        out: dict[str, dict[str, int]] = {}
        for level, entries in (("instance", last_i.values()), ("task", last_t.values())):
            for f in entries:
                c = out.setdefault(f.source or "unmarked", {"instance": 0, "task": 0})
                c[level] += 1
        return out

    def counts(self, examples: Sequence[Example] | None = None, top: int = 10) -> dict[str, Any]:
        """Effective feedback (after resets and overrides) by level and action, and the words most
        often removed or added, for the model card. Instance words come from ``examples`` or from
        the words recorded in JSON; positions whose word is unknown count but are not named."""
        inst = resolve_instance(self.instance)
        tasks = resolve_task(self.task)
        texts = {ex.id: ex.text for ex in examples} if examples is not None else {}
        words_of: dict[str, list[str]] = {}
        by_action: dict[Action, Counter[str]] = {Action.ADD: Counter(), Action.REMOVE: Counter()}
        for (eid, i), action in inst.items():
            word = None
            if eid in texts:
                if eid not in words_of:
                    words_of[eid] = split_words(texts[eid])[0]
                if 0 <= i < len(words_of[eid]):
                    word = words_of[eid][i]
            word = word if word is not None else self.words.get((eid, i))
            if word is not None:
                by_action[action][word_key(word)] += 1
        for (key, _, _), action in tasks.items():
            by_action[action][key] += 1

        def level(actions: Iterable[Action]) -> dict[str, int]:
            c = Counter(a.value for a in actions)
            return {a.value: c.get(a.value, 0) for a in (Action.ADD, Action.REMOVE)}

        def ranked(c: Counter[str]) -> list[dict[str, Any]]:
            return [{"word": w, "count": n} for w, n in sorted(c.items(), key=lambda x: (-x[1], x[0]))[:top]]

        return {
            "instance": level(inst.values()),
            "task": level(tasks.values()),
            "total": len(inst) + len(tasks),
            "sources": self.sources(),
            "examples_with_instance_feedback": len({eid for eid, _ in inst}),
            "top_removed": ranked(by_action[Action.REMOVE]),
            "top_added": ranked(by_action[Action.ADD]),
        }


def _source(row: Mapping[str, Any], where: str) -> str | None:
    src = row.get("source")
    if src is not None and (not isinstance(src, str) or not src.strip()):
        raise FeedbackError(f"{where}: source must be a non-empty string, got {src!r}")
    return src


def _list(data: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    rows = data.get(key, [])
    if rows is None:
        return []
    if not isinstance(rows, list):
        raise FeedbackError(f"feedback JSON: {key!r} must be a list")
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise FeedbackError(f"{key} feedback #{i} must be an object, got {row!r}")
    return rows


def _require(row: Mapping[str, Any], keys: Sequence[str], where: str) -> None:
    missing = [k for k in keys if k not in row]
    if missing:
        raise FeedbackError(f"{where} is missing {', '.join(repr(k) for k in missing)}")


def load_feedback(path: str | Path) -> FeedbackSet:
    """Read a feedback JSON file (see :meth:`FeedbackSet.from_json` for the format)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise FeedbackError(f"cannot read feedback file {str(p)!r}: {e.strerror or e}") from None
    return FeedbackSet.from_json(text)


def save_feedback(feedback: FeedbackSet, path: str | Path, examples: Sequence[Example] | None = None) -> Path:
    """Write ``feedback`` as JSON (with the clicked words when ``examples`` are given)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(feedback.to_json(examples) + "\n", encoding="utf-8")
    tmp.replace(p)  # atomic: a crash mid-write leaves the old file, not half a file
    return p
