"""The shown ETA (``Tracker.eta``) on a synthetic step sequence whose measured rate jumps: it counts down
with the clock, changes by a bounded share per second whatever the raw estimate does, and catches up with
a rate that stays (issue 30 §6: "7 → 16 → 5 min within seconds")."""

from __future__ import annotations

import math
from itertools import pairwise

from xmd.jobs.phases import ETA_TAU_S, Phase, Tracker


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _run(seconds_per_step: list[float]) -> tuple[list[float], list[float]]:
    """Train 600 steps at a prior of 0.7 s a step (7 min); step i takes ``seconds_per_step[i]``.
    Returns the shown and the raw ETA read once a second."""
    clock = Clock()
    tr = Tracker([Phase("training", "training", 600, unit="steps", kind="train")], {"train": 0.7}, clock=clock)
    ends = [sum(seconds_per_step[: i + 1]) for i in range(len(seconds_per_step))]
    start, shown, raw = clock.t, [], []
    tr.update("training", 0, 600)
    for _ in range(900):
        clock.t += 1.0
        tr.update("training", sum(1 for e in ends if e <= clock.t - start), 600)
        raw.append(tr.raw_eta() or 0.0)
        shown.append(tr.eta() or 0.0)
    return shown, raw


def _jumpy() -> list[float]:
    # a slow first 10 steps (model warm-up: 16 min at that rate), then fast (5 min), then the prior's 0.7 s
    return [1.6] * 10 + [0.5] * 200 + [0.7] * 400


def test_raw_estimate_jumps_on_this_sequence() -> None:
    """The sequence is jumpy: the unsmoothed ETA moves by minutes within seconds (what the walk saw)."""
    _, raw = _run(_jumpy())
    worst = max(abs(b - (a - 1.0)) for a, b in pairwise(raw))
    assert worst > 60.0


def test_shown_eta_moves_a_bounded_share_per_second() -> None:
    shown, raw = _run(_jumpy())
    step = 1.0 - math.exp(-1.0 / ETA_TAU_S)
    for i in range(1, len(shown)):
        counted = max(0.0, shown[i - 1] - 1.0)  # what the clock alone would show
        assert abs(shown[i] - counted) <= step * abs(raw[i] - counted) + 1e-6
        # so at most ~5 % of the gap per second: never 7 -> 16 -> 5 min within seconds
        assert abs(shown[i] - counted) <= 0.06 * max(counted, raw[i]) + 1e-6


def test_shown_eta_never_freezes_and_catches_up() -> None:
    shown, raw = _run([0.7] * 600)  # the rate is the prior's: raw and shown count down together
    assert all(b < a for a, b in pairwise(shown[:300]))
    shown, raw = _run(_jumpy())
    # 60 s after the last jump the shown ETA is within 10 % of the raw one
    at = 10 * 2 + 200 // 2 + 60
    assert abs(shown[at] - raw[at]) <= 0.1 * raw[at]


def test_unknown_rate_gives_no_eta() -> None:
    clock = Clock()
    tr = Tracker([Phase("training", "training", 10, kind="train")], {}, clock=clock)
    assert tr.eta() is None
    tr.update("training", 0, 10)
    clock.t += 5
    assert tr.eta() is None
    tr.update("training", 2, 10)
    assert tr.eta() == tr.raw_eta() == 20.0  # the first estimate is shown as measured
