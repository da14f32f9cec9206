"""The training texts of the deletion controls: the words marked *remove* deleted, nothing else.

Deletion is the first thing anyone tries instead of explanation regularisation, so it is the
baseline a debug run must beat (issue 14). It deletes exactly the positions the ER term regularises
(``FeedbackSet.expand``: task-level words where their label / scope puts them, instance-level words
in their example, instance *add* overriding a task *remove*), using xmd's own word segmentation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from xmd.core.types import Action, Example
from xmd.core.words import split_words


def delete_positions(text: str, positions: set[int] | Sequence[int]) -> str:
    """``text`` without the words at ``positions`` (xmd word positions), every other word intact.

    The span of a deleted word is cut out; if that would glue its neighbours together (``anti-x``
    minus ``-``) a space takes its place, and if it leaves two spaces side by side one goes. So
    :func:`split_words` of the result is exactly the kept words, in order.
    """
    drop = set(positions)
    if not drop:
        return text
    _, spans = split_words(text)
    out = ""
    cursor = 0
    for i, (s, e) in enumerate(spans):
        if i not in drop:
            continue
        out += text[cursor:s]
        left, right = out[-1:], text[e : e + 1]
        if left and right and not left.isspace() and not right.isspace():
            out += " "
        elif left.isspace() and (right.isspace() or not right):
            out = out[:-1]
        elif not left and right.isspace():
            e += 1  # a deleted first word takes the following space with it
        cursor = e
    return out + text[cursor:]


def delete_feedback_words(
    examples: Sequence[Example], targets: Mapping[str, Mapping[int, Action]]
) -> tuple[list[Example], int]:
    """The training set of the deletion arms: the *remove* positions of ``targets`` deleted.

    Same examples, ids, labels and order; returns ``(examples, number of words deleted)``.
    """
    out, n = [], 0
    for ex in examples:
        drop = {i for i, a in targets.get(ex.id, {}).items() if a == Action.REMOVE}
        n += len(drop)
        out.append(replace(ex, text=delete_positions(ex.text, drop)) if drop else ex)
    return out, n
