"""A job's phases, each with its own progress, and the time left estimated from measured rates.

A retrain used to sit at "running, 1 %" through minutes of measurement before training and at 90 %
after it. Now its body declares a plan (:func:`retrain_plan`: measuring v1 on each eval set, explaining
the corrected examples, training, measuring and explaining v2, saving) and reports each phase's
``done / total``. The :class:`Tracker` turns that into the phase log stored on the job row, an overall
progress and an ETA: every phase's remaining units times the seconds per unit measured for its kind
(in this job, else in the last finished job of the same kind — the "expected duration" shown before a
job starts, :func:`expected`). Before any retrain has run, a project's first explain job times a few
batches of each kind of a retrain's work (``xmd.core.calibrate``, :func:`calibrated_rates`). No rate
measured yet means no ETA, never a guess.

The ETA shown is smoothed (:meth:`Tracker.eta`): a rate measured on a phase's first units, or a phase
ending, can move the raw estimate from 7 to 16 to 5 minutes within seconds; the shown one counts down
with the clock and moves toward the raw one with a time constant of :data:`ETA_TAU_S` seconds.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

ETA_TAU_S = 20.0
"""Time constant of the shown ETA: it closes 1 - exp(-dt / tau) of its gap to a new raw estimate in dt
seconds (5 % a second, 95 % in a minute), so a noisy rate cannot move it by more than that."""


@dataclass
class Phase:
    """One phase: ``done`` of ``total`` units; a unit stands for ``scale`` examples of work of ``kind``."""

    name: str
    label: str
    total: int
    unit: str = "examples"
    kind: str = "measure"
    scale: float = 1.0
    minor: bool = False
    """A short phase (saving) that the ETA leaves out until a job has measured its kind."""
    done: int = 0
    seconds: float | None = None
    started: float | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("started")
        return out


def _kind(name: str) -> str:
    return name.split(":", 1)[0].removesuffix("_before").removesuffix("_after")


def rates(phases: Iterable[Phase | Mapping[str, Any]]) -> dict[str, float]:
    """Seconds per example of work for each kind, from phases that measured some (finished ones first)."""
    out: dict[str, float] = {}
    for p in phases:
        d = p if isinstance(p, Mapping) else p.to_dict()
        work = float(d.get("done") or 0) * float(d.get("scale") or 1.0)
        if d.get("seconds") is not None and work > 0:
            out.setdefault(str(d.get("kind") or _kind(str(d["name"]))), float(d["seconds"]) / work)
    return out


def expected(phases: list[Phase], prior: Mapping[str, float]) -> float | None:
    """Seconds the phases should take at the ``prior`` rates; None when a kind was never measured."""
    total = 0.0
    for p in phases:
        if p.kind not in prior and p.minor:
            continue
        if p.kind not in prior:
            return None
        total += prior[p.kind] * p.total * p.scale
    return total


class Tracker:
    """The phases of a running job: which one runs, how far each got, how long the rest should take."""

    def __init__(
        self,
        phases: list[Phase],
        prior: Mapping[str, float] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.phases = {p.name: p for p in phases}
        self.prior = dict(prior or {})
        self.current: Phase | None = None
        self.clock = clock
        self.started = clock()
        self._eta: float | None = None
        self._eta_at = self.started

    def update(self, name: str, done: int, total: int | None = None) -> Phase:
        """Phase ``name`` is at ``done`` (of ``total``); the phase before it is finished."""
        phase = self.phases.get(name)
        if phase is None:  # a phase the plan did not foresee (e.g. predicting for scoped feedback)
            phase = self.phases[name] = Phase(name, name.replace("_", " "), total or 1, kind=_kind(name))
        now = self.clock()
        if self.current is not phase:
            if self.current is not None:
                self.finish(self.current.name)
            phase.started = now
            self.current = phase
        if total is not None:
            phase.total = int(total)
        phase.done = int(done)
        return phase

    def finish(self, name: str) -> None:
        phase = self.phases.get(name)
        if phase is None or phase.seconds is not None:
            return
        if phase.done > 0:  # a phase may end early (training's early stop): its total is what it did
            phase.total = phase.done
        else:
            phase.done = phase.total
        phase.seconds = self.clock() - (phase.started or self.clock())
        if self.current is phase:
            self.current = None

    def _rate(self, kind: str) -> float | None:
        own = rates(self.phases.values()).get(kind)
        if own is not None:
            return own
        cur = self.current
        if cur is not None and cur.kind == kind and cur.done > 0 and cur.started is not None:
            return (self.clock() - cur.started) / (cur.done * cur.scale)
        return self.prior.get(kind)

    def raw_eta(self) -> float | None:
        """Seconds left: each unfinished phase's remaining work at its kind's rate; None if one is unknown."""
        left = 0.0
        for p in self.phases.values():
            if p.seconds is not None:
                continue
            rate = self._rate(p.kind)
            if rate is None and p.minor:
                continue
            if rate is None:
                return None
            left += rate * max(0, p.total - p.done) * p.scale
        return left

    def eta(self) -> float | None:
        """The ETA to show: the last one counted down by the seconds since, moved toward :meth:`raw_eta` by
        1 - exp(-dt / :data:`ETA_TAU_S`) of the gap; None while the raw one is unknown."""
        raw, now = self.raw_eta(), self.clock()
        if raw is None or self._eta is None:
            self._eta, self._eta_at = raw, now
            return raw
        dt = max(0.0, now - self._eta_at)
        clocked = max(0.0, self._eta - dt)
        self._eta = clocked + (1.0 - math.exp(-dt / ETA_TAU_S)) * (raw - clocked)
        self._eta_at = now
        return self._eta

    def progress(self) -> float | None:
        """Share of the job done (0–100) as elapsed / (elapsed + ETA); None without an ETA."""
        eta = self.eta()
        if eta is None:
            return None
        elapsed = self.clock() - self.started
        return 100.0 * elapsed / max(elapsed + eta, 1e-9)

    def log(self) -> list[dict[str, Any]]:
        return [p.to_dict() for p in self.phases.values()]
