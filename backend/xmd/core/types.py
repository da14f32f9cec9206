"""Plain data types shared by every part of the core.

They are dataclasses (not ORM rows, not pydantic models) so that the core stays a library: the
service layer converts them to and from its own tables and schemas.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class XMDError(Exception):
    """Base class for errors that carry a message meant for the user, not a stack trace."""


class DataError(XMDError):
    """Input data is malformed: missing columns, empty texts, unknown labels, bad files."""


class ModelLoadError(XMDError):
    """A model or tokenizer could not be loaded (missing path, unreachable Hub, wrong format)."""


class FeedbackError(XMDError):
    """Feedback refers to something that does not exist (unknown example, word position, label)."""


@dataclass(frozen=True)
class Example:
    """One labelled text. ``label`` is the class index in the model's label space (or None)."""

    id: str
    text: str
    label: int | None = None
    split: str = "train"
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Explanation:
    """Word-level attribution of one text toward one class.

    ``words`` and ``spans`` cover the whole text (so word positions do not depend on the
    tokenizer or on ``max_length``); only the first ``n_seen`` words fitted in the model's input,
    the rest carry a score of 0.0. ``scores`` are raw signed values (positive = supports
    ``target``); :func:`xmd.core.normalize.normalize_scores` turns them into the shares the UI shows
    and the loss uses.
    """

    words: list[str]
    spans: list[tuple[int, int]]
    scores: list[float]
    target: int
    probs: list[float]
    method: str
    n_seen: int
    delta: float | None = None
    example_id: str | None = None

    @property
    def truncated(self) -> bool:
        return self.n_seen < len(self.words)

    @property
    def prediction(self) -> int:
        return max(range(len(self.probs)), key=self.probs.__getitem__)

    def to_dict(self) -> dict[str, Any]:
        from xmd.core.normalize import normalize_scores

        return {
            "example_id": self.example_id,
            "words": self.words,
            "spans": [list(s) for s in self.spans],
            "scores": self.scores,
            "shares": normalize_scores(self.scores),
            "target": self.target,
            "prediction": self.prediction,
            "probs": self.probs,
            "method": self.method,
            "n_seen": self.n_seen,
            "truncated": self.truncated,
            "delta": self.delta,
        }


class Action(str, enum.Enum):
    """What a person asks of a word: the model should rely on it (add) or not (remove)."""

    ADD = "add"
    REMOVE = "remove"
    RESET = "reset"


class Scope(str, enum.Enum):
    """Which training examples a task-level feedback applies to, by the model's prediction."""

    CORRECT = "correct"
    INCORRECT = "incorrect"
    ALL = "all"


@dataclass(frozen=True)
class InstanceFeedback:
    """Feedback on one word position of one example.

    ``source`` says where it came from when not a person clicking (e.g.
    ``simulated:rationales:<column>``), so simulated and human feedback are never confused.
    """

    example_id: str
    word_index: int
    action: Action
    source: str | None = None


@dataclass(frozen=True)
class TaskFeedback:
    """Feedback on a word across the task; ``label`` restricts it to examples of that gold class.

    ``source`` as for :class:`InstanceFeedback` (e.g. ``simulated:words:<file name>``).
    """

    word: str
    action: Action
    label: int | None = None
    scope: Scope = Scope.ALL
    source: str | None = None
