"""The stored suspicion bound (``xmd.explanations.aggregates``) bounds the core's suspicion for every
prior at or above its floor, and the floor follows the prior."""

from __future__ import annotations

import random

import pytest
from xmd.core.suspicion import label_skew
from xmd.explanations.aggregates import BAND, next_floor, prior_of, suspicion_bound


@pytest.mark.parametrize("num_labels", [2, 3, 5])
def test_bound_holds_for_every_prior_above_the_floor(num_labels: int) -> None:
    rng = random.Random(num_labels)
    tight = 0
    for _ in range(3000):
        counts = [rng.choice([0, 0, 1, 2, 5, 40, 900]) for _ in range(num_labels)]
        raw = [rng.random() + 1e-3 for _ in range(num_labels)]
        prior = [r / sum(raw) for r in raw]
        floor = [max(0.0, p - rng.random() * 0.1) for p in prior]
        importance = rng.random()
        bound = suspicion_bound(importance, counts, floor)
        assert (
            importance * label_skew(counts, prior)[0] <= bound + 1e-12
        )  # float rounding; the scan stops only BOUND_MARGIN (1e-9) below
        # At the floor itself the bound is reached (it is the skew there, for the picked label).
        skew_at_floor = importance * label_skew(counts, floor)[0] if sum(floor) else None
        tight += skew_at_floor is not None and bound - skew_at_floor < 1e-12
        # Floor 0 gives the prior-independent bound of the first schema, never tighter (up to float
        # rounding: both are the core's skew formula, whose last bits depend on the floor).
        assert bound <= suspicion_bound(importance, counts) + 1e-12
    assert tight > 0


def test_floor_follows_the_prior_and_refreshes_only_outside_the_band() -> None:
    floor, refresh = next_floor(None, [50, 50])
    assert refresh and floor == pytest.approx([0.5 - BAND, 0.5 - BAND])
    # Inside [floor, floor + 2 BAND]: kept.
    assert next_floor(floor, [51, 49]) == (floor, False)
    # Below the floor for one label: the bounds would not hold, so every row is recomputed.
    low, refresh = next_floor(floor, [60, 40])
    assert refresh and low == pytest.approx([0.6 - BAND, 0.4 - BAND])
    assert all(f <= p for f, p in zip(low, prior_of([60, 40]), strict=True))
    # Nothing labelled: nothing to refresh; a single label: the floor stays below 1.
    assert next_floor(low, [0, 0]) == (low, False)
    one, _ = next_floor(None, [10, 0])
    assert one[0] < 1.0 and one[1] == 0.0
