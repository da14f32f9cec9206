"""What a version predicted for an example, read from its stored explanation (the explanation's target is the
predicted class): the reader and the correct/incorrect filter. They live here, with the table, and are
registered at import in :data:`xmd.datasets.service.PREDICTED`, so ``datasets/`` imports nothing of this
domain (the feedback import, a domain below, reads predictions through it too).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, exists, select
from sqlalchemy.orm import Session

from xmd.datasets import service as datasets_service
from xmd.datasets.models import Example
from xmd.explanations.models import Explanation


def stored_predictions(
    *, db_session: Session, example_ids: Sequence[int], version_id: int | None, method: str | None
) -> dict[int, tuple[int, list[float]]]:
    """Predicted class and probabilities per example id, from the stored explanations of a version."""
    if not example_ids or version_id is None or not method:
        return {}
    stmt = select(Explanation.example_id, Explanation.target, Explanation.probs).where(
        Explanation.example_id.in_(example_ids),
        Explanation.model_version_id == version_id,
        Explanation.method == method,
    )
    return {eid: (t, list(p)) for eid, t, p in db_session.execute(stmt)}


def agreement(*, correct: bool, version_id: int, method: str) -> ColumnElement[bool]:
    """A condition on ``Example``: the version's stored prediction is (``correct``) or is not its gold label.
    Examples not explained yet match neither."""
    agree = Explanation.target == Example.label if correct else Explanation.target != Example.label
    return exists().where(
        Explanation.example_id == Example.id,
        Explanation.model_version_id == version_id,
        Explanation.method == method,
        agree,
    )


datasets_service.PREDICTED["read"] = stored_predictions
datasets_service.PREDICTED["agree"] = agreement
