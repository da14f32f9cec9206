"""A retrain's plan and its pricing: the phases it will run (:func:`retrain_plan`) and the seconds per
example each kind of its work is expected to take before any retrain ran, from the calibration that a
project's first explain job times (:func:`calibrated_rates`, :mod:`xmd.retrain.calibration`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from xmd.core.pipeline import EFFECT_MAX_EXAMPLES
from xmd.core.retrain import ERConfig
from xmd.jobs.phases import Phase

SHARE_METHODS = ("grad_x_input", "occlusion")
"""Attribution methods the retrain measures the corrected words' share with (``pipeline.debug``'s default)."""


MAX_SHARE_EXAMPLES = EFFECT_MAX_EXAMPLES
"""``pipeline.debug``'s ``max_share_examples``: the share phases explain at most this many examples."""


def retrain_plan(
    *,
    parent: int,
    child: int,
    eval_sizes: Mapping[str, int],
    eval_cap: int,
    total_steps: int,
    examples_per_step: int,
    n_share: int,
    n_predict: int = 0,
    runs: int = 1,
) -> list[Phase]:
    """The phases of a retrain from v``parent`` to v``child``, in the order ``pipeline.debug`` runs them.

    ``n_predict``: training examples the parent predicts first, because task feedback is scoped to its
    correct or incorrect predictions (:func:`needs_predictions`); forward passes like measuring, so the
    same kind of work. ``runs``: a comparison with controls (``controls.run_comparison``) measures the
    parent once and then trains, measures and saves every arm × seed: the per-run phases count ``runs``
    times their work, so the expected duration is the comparison's, not one run's."""
    measure = [(name, min(n, eval_cap)) for name, n in eval_sizes.items()]
    shares = min(n_share, MAX_SHARE_EXAMPLES)
    phases: list[Phase] = []
    if n_predict:
        phases.append(Phase("predict", f"predicting v{parent} on the training set (scoped task feedback)", n_predict))
    phases += [Phase(f"measure_before:{s}", f"measuring v{parent} on {s}", n) for s, n in measure]
    phases += [
        Phase(f"shares_before:{m}", f"explaining v{parent} on the corrected examples ({m})", shares, kind=f"shares_{m}")
        for m in SHARE_METHODS
    ]
    each = "" if runs == 1 else f" ({runs} runs: every arm × seed)"
    after = f"v{child}" if runs == 1 else "each run"
    phases.append(
        Phase("train", f"training{each}", total_steps * runs, unit="steps", kind="train", scale=examples_per_step)
    )
    phases += [Phase(f"measure_after:{s}", f"measuring {after} on {s}", n * runs) for s, n in measure]
    phases += [
        Phase(
            f"shares_after:{m}",
            f"explaining {after} on the corrected examples ({m})",
            shares * runs,
            kind=f"shares_{m}",
        )
        for m in SHARE_METHODS
    ]
    phases.append(Phase("save", f"saving v{child}{each}", runs, unit="model", kind="save", minor=True))
    return phases


def needs_predictions(task_scopes: Iterable[Any], task_scope: str) -> bool:
    """Whether a retrain predicts its training set before anything else (``pipeline.feedback_targets``):
    some task feedback is scoped to correct or incorrect predictions, by its own scope or, for the
    unscoped ones (``all``), by the retrain's ``task_scope``. ``task_scopes``: the task feedback's scopes
    (``Scope`` members or their values)."""
    own = [str(getattr(s, "value", s)).lower() for s in task_scopes]
    return any((task_scope if s == "all" else s) != "all" for s in own)


CALIBRATION_LABELS = {
    "train_plain": "timing training steps without feedback",
    "train_feedback": "timing training steps with feedback on every row",
    "train_erasure": "timing training steps with the erasure term alone",
    "train_plain_bf16": "timing bf16 training steps without feedback",
    "train_feedback_bf16": "timing bf16 training steps with feedback on every row",
    "train_plain_fp32": "timing float32 training steps without feedback",
    "train_feedback_fp32": "timing float32 training steps with feedback on every row",
    "train_plain_graphs": "timing training steps without feedback as CUDA graphs",
    "train_feedback_graphs": "timing training steps with feedback on every row as CUDA graphs",
    "measure": "timing a forward pass (measuring)",
    "shares_grad_x_input": "timing the explanation of corrected examples (grad_x_input)",
    "shares_occlusion": "timing the explanation of corrected examples (occlusion)",
}
"""What the UI says while ``xmd.core.calibrate`` times each kind of a retrain's work."""


def calibration_log(timings: Iterable[Any]) -> list[dict[str, Any]]:
    """A phase log of ``xmd.core.calibrate.Timing`` items, which :func:`rates` reads like a job's."""
    return [
        Phase(
            f"calibrate:{t.kind}",
            CALIBRATION_LABELS.get(t.kind, t.kind),
            t.examples,
            kind=t.kind,
            done=t.examples,
            seconds=t.seconds,
        ).to_dict()
        for t in timings
    ]


def calibrated_rates(
    calibration: Mapping[str, float],
    feedback_share: float,
    er: ERConfig | None = None,
    batch_size: int = 32,
    mixed_precision: bool | None = None,
    cuda_graphs: bool = False,
) -> dict[str, float]:
    """A retrain's rates from a calibration's (:func:`rates` of :func:`calibration_log`): measuring and
    explaining as timed; training between the step without feedback and the step where every row has
    feedback, in proportion to the share of training rows with feedback (0–1), because only those rows
    take the ER term's extra passes.

    With the retrain's ``er`` (an ``ERConfig``) and a timed erasure-only step, the extra splits into the
    erasure term's and the attribution term's, the latter scaled by the share of feedback rows that take it
    (``attribution_every``, ``attribution_rows`` of ``share x batch_size`` rows a batch), the objective
    keeping only its own terms and λ = 0 none. The calibration timed training in the precision a default
    retrain runs (auto);
    ``mixed_precision`` true or false scales the training rate by what the calibration's steps in that
    precision cost against those, where it timed them (a device that computes bf16; elsewhere float32 runs
    whatever is asked, as priced). ``cuda_graphs`` scales it likewise by the calibration's graphed steps, where
    it timed them (a device and model that take them; elsewhere a retrain runs eager steps, as priced)."""
    out = {k: v for k, v in calibration.items() if not k.startswith("train_")}
    if "train_plain" not in calibration or "train_feedback" not in calibration:
        return out
    share = min(1.0, max(0.0, feedback_share))
    plain, full = calibration["train_plain"], calibration["train_feedback"]
    erasure = calibration.get("train_erasure")
    if er is None or erasure is None:
        out["train"] = _mix(calibration, share) * _factors(calibration, share, mixed_precision, cuda_graphs)
        return out
    erasure_part = max(0.0, erasure - plain) if er.objective in ("erasure", "both") else 0.0
    attribution_part = max(0.0, full - erasure) if er.objective in ("attribution", "both") else 0.0
    taken = 1.0 / er.attribution_every
    if er.attribution_rows > 0:
        taken *= min(1.0, er.attribution_rows / max(1.0, share * batch_size))
    extra = erasure_part + taken * attribution_part if er.lam > 0 else 0.0
    out["train"] = (plain + share * extra) * _factors(calibration, share, mixed_precision, cuda_graphs)
    return out


def graphs_priced(calibration: Mapping[str, float]) -> bool:
    """Whether a calibration timed graphed training steps (``cuda_graphs`` is priced by them)."""
    return "train_plain_graphs" in calibration and "train_feedback_graphs" in calibration


def _factors(calibration: Mapping[str, float], share: float, mixed_precision: bool | None, cuda_graphs: bool) -> float:
    """The precision's factor (:func:`_precision_factor`) times graphed steps over eager ones at ``share``
    where ``cuda_graphs`` is asked and the calibration timed both."""
    factor = _precision_factor(calibration, share, mixed_precision)
    if cuda_graphs and graphs_priced(calibration):
        default, graphed = _mix(calibration, share), _mix(calibration, share, "_graphs")
        factor *= graphed / default if default > 0 and graphed > 0 else 1.0
    return factor


def _mix(calibration: Mapping[str, float], share: float, suffix: str = "") -> float:
    """Training per example at ``share`` of rows with feedback: between the plain and the every-row step."""
    plain = calibration[f"train_plain{suffix}"]
    return plain + share * (calibration[f"train_feedback{suffix}"] - plain)


def _precision_factor(calibration: Mapping[str, float], share: float, mixed_precision: bool | None) -> float:
    """Training in the precision ``mixed_precision`` asks for over training in the default's, at ``share``,
    as the calibration timed them (``_bf16`` kinds where the default is float32 but bf16 is native, ``_fp32``
    kinds where the default is bf16); 1 for the default, or where the other precision was not timed."""
    if mixed_precision is None:
        return 1.0
    suffix = "_bf16" if mixed_precision else "_fp32"
    if f"train_plain{suffix}" not in calibration or f"train_feedback{suffix}" not in calibration:
        return 1.0
    default, asked = _mix(calibration, share), _mix(calibration, share, suffix)
    return asked / default if default > 0 and asked > 0 else 1.0
