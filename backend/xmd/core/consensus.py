"""The project's feedback from several people's: a consensus by a stated policy.

Policies (votes are counted per word position among the annotators who *saw* the example; task-level
words per (word key, label, scope) among all annotators):

- ``union``: any mark counts (one annotator's behaviour today: their marks, unchanged);
- ``majority``: an action chosen by more than half of those who saw it;
- ``at_least_k``: an action chosen by at least ``k`` people;
- ``reviewed``: only what a reviewer decided (their ADD/REMOVE accepts or edits; their RESET rejects).

When people pick opposite actions (add vs remove) on one position and the policy admits both, the one
with more votes wins; a tie keeps neither and is listed in ``conflicts`` for a reviewer. These are pure
functions: nobody's marks change, and a different policy is a different call on the same input.
The output is an ordinary :class:`~xmd.core.feedback.FeedbackSet`, so a retrain consumes it unchanged.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xmd.core.agreement import annotator_marks
from xmd.core.feedback import FeedbackSet, resolve_instance, resolve_task
from xmd.core.types import Action, FeedbackError, InstanceFeedback, TaskFeedback


class Policy(str, enum.Enum):
    """How the consensus is drawn from the annotators' marks (see the module docstring)."""

    UNION = "union"
    MAJORITY = "majority"
    AT_LEAST_K = "at_least_k"
    REVIEWED = "reviewed"


def parse_policy(value: Any) -> Policy:
    """``Policy`` from an enum or its string value; FeedbackError naming the allowed values."""
    if isinstance(value, Policy):
        return value
    try:
        return Policy(str(value).strip().lower().replace("-", "_"))
    except ValueError:
        allowed = ", ".join(p.value for p in Policy)
        raise FeedbackError(f"unknown consensus policy {value!r}; allowed: {allowed}") from None


@dataclass
class Consensus:
    """The consensus feedback and what it left out."""

    policy: Policy
    k: int | None
    feedback: FeedbackSet
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    contributors: dict[str, int] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Counts for a version record or a model card (no marks, no texts)."""
        return {
            "policy": self.policy.value,
            "k": self.k,
            "instance": len(self.feedback.instance),
            "task": len(self.feedback.task),
            "conflicts": len(self.conflicts),
            "contributors": dict(self.contributors),
        }


def _decide(votes: Mapping[Action, int], n: int, policy: Policy, k: int | None) -> Action | str | None:
    """The action kept for one unit from its votes among ``n`` raters; "tie" for an add/remove tie."""
    if policy is Policy.UNION:
        need = 1
    elif policy is Policy.AT_LEAST_K:
        assert k is not None
        need = k
    else:  # majority: strictly more than half of those who saw it
        need = n // 2 + 1
    ok = {a: v for a, v in votes.items() if v >= need}
    if not ok:
        return None
    if len(ok) == 2 and ok[Action.ADD] == ok[Action.REMOVE]:
        return "tie"
    return max(ok, key=lambda a: ok[a])


Unit = tuple[Any, ...]


def _vote(
    units: Mapping[Unit, dict[Action, int]],
    raters: Mapping[Unit, int],
    policy: Policy,
    k: int | None,
) -> tuple[dict[Unit, Action], list[Unit]]:
    kept: dict[Unit, Action] = {}
    ties: list[Unit] = []
    for unit in sorted(units, key=repr):
        d = _decide(units[unit], raters[unit], policy, k)
        if d == "tie":
            ties.append(unit)
        elif isinstance(d, Action):
            kept[unit] = d
    return kept, ties


def consensus(
    feedbacks: Mapping[str, FeedbackSet],
    policy: Policy | str = Policy.MAJORITY,
    *,
    k: int | None = None,
    review: FeedbackSet | None = None,
    seen: Mapping[str, Sequence[str]] | None = None,
) -> Consensus:
    """The consensus of the annotators' ``feedbacks`` (name → their set) under ``policy``.

    ``seen`` (name → example ids) says who saw what; a person's marked examples always count as seen,
    and by default nothing else does. ``k`` is required by (and only by) ``at_least_k``; ``review`` by
    ``reviewed``. Instance entries come out sorted by (example id, position), task entries by key,
    all with ``source="consensus:<policy>"``; task words as their word key (people may spell one word
    differently); the recorded words of kept positions are carried over.
    """
    policy = parse_policy(policy)
    if policy is Policy.AT_LEAST_K:
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise FeedbackError(f"policy at_least_k needs k ≥ 1, got {k!r}")
    elif k is not None:
        raise FeedbackError(f"k is only used by policy at_least_k, not {policy.value}")
    if (policy is Policy.REVIEWED) != (review is not None):
        raise FeedbackError("a review is required by, and only by, policy 'reviewed'")
    seen = seen or {}
    unknown = sorted(set(seen) - set(feedbacks))
    if unknown:
        raise FeedbackError(f"'seen' names people without feedback: {unknown}")
    people = [annotator_marks(name, fs, seen.get(name)) for name, fs in feedbacks.items()]
    contributors = {
        a.name: sum(len(m) for m in a.marks.values()) + len(resolve_task(fs.task))
        for a, fs in zip(people, feedbacks.values(), strict=True)
    }
    source = f"consensus:{policy.value}" + (f":{k}" if k is not None else "")
    words: dict[tuple[str, int], str] = {}
    for fs in feedbacks.values():
        words.update(fs.words)

    if policy is Policy.REVIEWED:
        assert review is not None
        words.update(review.words)
        inst_kept = {(e, i): a for (e, i), a in resolve_instance(review.instance).items()}
        task_kept: dict[Unit, Action] = dict(resolve_task(review.task))
        inst_ties: list[Unit] = []
        task_ties: list[Unit] = []
        inst_votes: dict[Unit, dict[Action, int]] = {}
        task_votes: dict[Unit, dict[Action, int]] = {}
    else:
        seen_by: dict[str, int] = {}
        for a in people:
            for eid in a.seen:
                seen_by[eid] = seen_by.get(eid, 0) + 1
        inst_votes, inst_raters = {}, {}
        for a in people:
            for eid, marks in a.marks.items():
                for i, action in marks.items():
                    inst_votes.setdefault((eid, i), {Action.ADD: 0, Action.REMOVE: 0})[action] += 1
                    inst_raters[(eid, i)] = seen_by[eid]
        task_votes = {}
        for fs in feedbacks.values():
            for key, action in resolve_task(fs.task).items():
                task_votes.setdefault(key, {Action.ADD: 0, Action.REMOVE: 0})[action] += 1
        inst_kept, inst_ties = _vote(inst_votes, inst_raters, policy, k)
        task_kept, task_ties = _vote(task_votes, dict.fromkeys(task_votes, len(people)), policy, k)

    out = FeedbackSet(
        instance=[InstanceFeedback(u[0], u[1], a, source) for u, a in sorted(inst_kept.items())],
        task=[TaskFeedback(u[0], a, u[1], u[2], source) for u, a in sorted(task_kept.items(), key=repr)],
        words={key: w for key, w in words.items() if key in inst_kept},
    )
    conflicts = [{"example_id": u[0], "word_index": u[1], **_named(inst_votes[u])} for u in inst_ties]
    conflicts += [{"word": u[0], "label": u[1], "scope": u[2].value, **_named(task_votes[u])} for u in task_ties]
    return Consensus(policy, k, out, conflicts, contributors)


def _named(votes: Mapping[Action, int]) -> dict[str, int]:
    return {a.value: n for a, n in votes.items()}


def mask_sizes(result: Consensus) -> dict[str, int]:
    """Instance marks by action in a consensus (the size of the training mask it gives)."""
    out = {Action.ADD.value: 0, Action.REMOVE.value: 0}
    for fb in result.feedback.instance:
        out[Action(fb.action).value] += 1
    return out
