"""Timing a retrain's kinds of work before any retrain ran (xmd.core.calibrate) and the rates it gives
(xmd.retrain.plan): every kind is timed through the retrain's own code on a copy of the model, the model
given is left as it was, and training is priced by the share of rows with feedback."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from xmd.core import calibrate
from xmd.core.calibrate import (
    BF16_KINDS,
    FP32_KINDS,
    GRAPH_KINDS,
    KINDS,
    _length_groups,
    _one_bucket,
    sample_size,
    time_retrain_work,
)
from xmd.core.retrain import ERConfig, RetrainConfig, token_lengths
from xmd.core.retrain.steps import graphed as graphs
from xmd.core.retrain.steps import static
from xmd.core.types import Example
from xmd.jobs.phases import rates
from xmd.retrain.plan import calibrated_rates, calibration_log

from tests.unit.test_training import shortcut_data

SMALL = RetrainConfig(batch_size=4, max_length=32)


@pytest.mark.parametrize(
    ("native", "auto_bf16", "other"),
    [(False, False, ()), (True, False, BF16_KINDS), (True, True, FP32_KINDS)],
    ids=["no-bf16", "gpu-like", "cpu-with-bf16"],
)
def test_every_kind_is_timed_on_a_copy_and_the_model_is_left_as_it_was(tiny, monkeypatch, native, auto_bf16, other):
    """Training steps in the default's precision always; where the device computes bf16, the other precision
    too: bf16 steps where the default trains float32 (a GPU), float32 steps where it trains bf16 (a CPU with
    bf16). ``native_bf16`` and the default's choice are set here so every branch runs on any CPU."""
    monkeypatch.setattr(calibrate, "native_bf16", lambda device: native)
    monkeypatch.setattr(calibrate, "use_bf16", lambda requested, device: auto_bf16 if requested is None else requested)
    before = {k: v.clone() for k, v in tiny.model.state_dict().items()}
    impl = getattr(tiny.model.config, "_attn_implementation", None)
    seen: list[str] = []
    loops: list[ERConfig | None] = []
    real_loop = calibrate.train_loop
    monkeypatch.setattr(
        calibrate, "train_loop", lambda *a, er=None, **kw: (loops.append(er), real_loop(*a, er=er, **kw))[1]
    )
    out = time_retrain_work(tiny, shortcut_data(80), config=SMALL, er=ERConfig(), on_kind=seen.append)
    # the ER step is timed at its dearest (every feedback row, every batch), whatever the retrain's speed settings
    assert {(e.objective, e.attribution_rows, e.attribution_every) for e in loops if e} == {
        ("both", 0, 1),
        ("erasure", 0, 1),
    }
    assert [t.kind for t in out] == list(KINDS[:3]) + list(other) + list(KINDS[3:])
    assert all(t.seconds > 0 for t in out)
    by_kind = {t.kind: t for t in out}
    # three length groups of a batch each are trained; measuring takes three random batches
    assert by_kind["train_plain"].examples == by_kind["train_feedback"].examples == 3 * 4
    assert by_kind["train_erasure"].examples == 3 * 4
    assert by_kind["measure"].examples == 12 and by_kind["shares_occlusion"].examples == 8
    assert set(seen) == set(KINDS) | set(other)
    for kind in other:
        assert by_kind[kind].examples == 3 * 4
    after = tiny.model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before), "the calibration trained the given model"
    assert getattr(tiny.model.config, "_attn_implementation", None) == impl
    assert not tiny.model.training


def test_a_cancel_raised_by_the_hook_stops_the_timing(tiny):
    class Stop(Exception):
        pass

    def hook(kind: str) -> None:
        if kind == "measure":
            raise Stop

    with pytest.raises(Stop):
        time_retrain_work(tiny, shortcut_data(40), config=SMALL, on_kind=hook)


def test_nothing_is_timed_without_labelled_examples(tiny):
    unlabelled = [Example(id=str(i), text="a fine film", label=None) for i in range(10)]
    assert time_retrain_work(tiny, unlabelled, config=SMALL) == []


def test_length_groups_are_batches_of_similar_length_spread_over_the_lengths(tiny):
    data = [Example(id=str(i), text=" ".join(["word"] * (1 + i % 30)), label=i % 2) for i in range(300)]
    groups = _length_groups(tiny, data, batch_size=10, steps=3, max_length=64)
    assert len(groups) == 30 and len({ex.id for ex in groups}) == 30
    lengths = token_lengths(tiny, groups, 64)
    batches = [lengths[i : i + 10] for i in range(0, 30, 10)]
    spread = max(token_lengths(tiny, data, 64)) - min(token_lengths(tiny, data, 64))
    # a retrain's bucketed batches pad little: each batch spans a sliver of the lengths ...
    assert all(max(b) - min(b) <= spread / 10 for b in batches), batches
    # ... and the batches are short, middle and long texts
    assert max(batches[0]) <= min(batches[1]) and max(batches[1]) <= min(batches[2])
    assert min(batches[0]) < min(batches[1]) < min(batches[2])
    assert sample_size(SMALL) == 4 * 16


def test_training_is_priced_by_the_share_of_rows_with_feedback():
    timings = [
        dataclasses.make_dataclass("T", ["kind", "examples", "seconds"])(k, n, s)
        for k, n, s in [
            ("train_plain", 10, 1.0),
            ("train_feedback", 10, 3.0),
            ("measure", 20, 1.0),
            ("shares_grad_x_input", 10, 0.5),
            ("shares_occlusion", 2, 1.0),
        ]
    ]
    log = calibration_log(timings)
    assert [p["name"] for p in log] == [f"calibrate:{t.kind}" for t in timings]
    cal = rates(log)
    want = {"train_plain": 0.1, "train_feedback": 0.3, "measure": 0.05}
    assert cal == pytest.approx({**want, "shares_grad_x_input": 0.05, "shares_occlusion": 0.5})
    none, half, every = (calibrated_rates(cal, s) for s in (0.0, 0.5, 1.0))
    assert none["train"] == pytest.approx(0.1) and every["train"] == pytest.approx(0.3)
    assert half["train"] == pytest.approx(0.2)
    assert calibrated_rates(cal, 7.0)["train"] == pytest.approx(0.3)  # an over-count is capped at every row
    assert half["measure"] == 0.05 and "train_plain" not in half and "train_feedback" not in half


def test_training_is_priced_for_the_retrains_er_settings():
    """Per example: plain 0.1 s, erasure term alone 0.14 s, the whole ER step 0.3 s (every row with feedback);
    the attribution term's 0.16 is paid by the share of feedback rows that take it."""
    cal = {"train_plain": 0.1, "train_feedback": 0.3, "train_erasure": 0.14, "measure": 0.05}
    price = lambda share, **kw: calibrated_rates(cal, share, ERConfig(**kw), batch_size=32)["train"]  # noqa: E731
    every = {"attribution_rows": 0}  # every feedback row takes the attribution term: the step as timed
    assert price(0.5, **every) == pytest.approx(calibrated_rates(cal, 0.5)["train"]) == pytest.approx(0.2)
    # the defaults: 16 feedback rows a batch at share 0.5, at most 8 of them with the attribution term
    assert ERConfig().attribution_rows == 8
    assert price(0.5) == pytest.approx(0.1 + 0.5 * (0.04 + 0.16 * 8 / 16))
    assert price(0.5, attribution_every=4, **every) == pytest.approx(0.1 + 0.5 * (0.04 + 0.16 / 4))
    assert price(0.5, attribution_rows=4) == pytest.approx(0.1 + 0.5 * (0.04 + 0.16 * 4 / 16))
    assert price(0.1, attribution_rows=4) == pytest.approx(0.1 + 0.1 * 0.2)  # 3.2 rows a batch: all of them
    assert price(0.5, objective="erasure") == pytest.approx(0.1 + 0.5 * 0.04)
    assert price(0.5, objective="attribution", **every) == pytest.approx(0.1 + 0.5 * 0.16)
    assert price(0.5, lam=0.0) == pytest.approx(0.1)
    # a calibration from before the erasure step was timed prices every setting like the default
    old = {k: v for k, v in cal.items() if k != "train_erasure"}
    assert calibrated_rates(old, 0.5, ERConfig(attribution_every=4))["train"] == pytest.approx(0.2)


def test_a_precision_other_than_the_default_is_priced_by_the_steps_the_calibration_timed_in_it():
    """The default (auto) trains at the calibration's own training rates. Where the calibration also timed
    the other precision, asking for it scales the training rate: steps at 0.05 s (plain) / 0.17 s (every row)
    per example against the default's 0.1 / 0.3 cost, at share 0.5, 0.11 / 0.2 of the default's price,
    whatever the ER settings; bf16 kinds where the default is float32 (a GPU), float32 kinds where it is bf16
    (a CPU with bf16). Asking for the precision the default already runs, or one never timed (a device
    without bf16, where float32 runs whatever is asked), keeps the default's price."""
    cal = {"train_plain": 0.1, "train_feedback": 0.3, "train_erasure": 0.14, "measure": 0.05}
    factor = (0.05 + 0.5 * 0.12) / 0.2
    for suffix, asked in (("_bf16", True), ("_fp32", False)):
        other = {**cal, f"train_plain{suffix}": 0.05, f"train_feedback{suffix}": 0.17}
        for er in (None, ERConfig(), ERConfig(attribution_every=4)):
            default = calibrated_rates(other, 0.5, er)["train"]
            assert calibrated_rates(other, 0.5, er, mixed_precision=asked)["train"] == pytest.approx(default * factor)
            assert calibrated_rates(other, 0.5, er, mixed_precision=not asked)["train"] == pytest.approx(default)
            assert calibrated_rates(cal, 0.5, er, mixed_precision=asked)["train"] == pytest.approx(
                calibrated_rates(cal, 0.5, er)["train"]
            )
        assert calibrated_rates(other, 0.5, mixed_precision=asked)["measure"] == 0.05  # measuring stays float32


def test_where_a_retrain_would_take_graphed_steps_the_calibration_times_their_replays(tiny, monkeypatch):
    """On a CPU a retrain asking for cuda_graphs takes eager steps, so nothing graphed is timed. Forced onto the
    static step (as a GPU runs it, here eagerly), the calibration times it too: one batch of texts from one
    length bucket, repeated, the steps after each graph's warm-up and capture."""
    kinds = [t.kind for t in time_retrain_work(tiny, shortcut_data(80), config=SMALL)]
    assert not set(GRAPH_KINDS) & set(kinds)
    monkeypatch.setattr(graphs, "wanted", lambda config, device: config.cuda_graphs)
    before = {k: v.clone() for k, v in tiny.model.state_dict().items()}
    seen: list[str] = []
    out = {t.kind: t for t in time_retrain_work(tiny, shortcut_data(80), config=SMALL, steps=2, on_kind=seen.append)}
    for kind in GRAPH_KINDS:
        assert out[kind].examples == 2 * 4 and out[kind].seconds > 0
        assert kind in seen
    assert all(torch.equal(before[k], v) for k, v in tiny.model.state_dict().items())


def test_the_graphed_timing_batch_is_one_length_bucket_near_the_median(tiny):
    pool = [Example(id=str(i), text=" ".join(["word"] * n), label=0) for i, n in enumerate((2, 5, 9, 12, 14, 20, 40))]
    lengths = dict(zip([ex.id for ex in pool], token_lengths(tiny, pool, 64), strict=True))
    group = _one_bucket(tiny, pool, 4, 64)
    assert len(group) == 4
    assert len({static.bucket(lengths[ex.id], 64) for ex in group}) == 1
    assert static.bucket(lengths["3"], 64) == static.bucket(lengths[group[0].id], 64)  # the median text's bucket


def test_graphed_steps_are_priced_by_the_calibrations_graphed_steps_where_it_timed_them():
    cal = {"train_plain": 0.1, "train_feedback": 0.3, "train_erasure": 0.14}
    graphed = {**cal, "train_plain_graphs": 0.04, "train_feedback_graphs": 0.12}
    for er in (None, ERConfig(), ERConfig(attribution_every=4)):
        default = calibrated_rates(graphed, 0.5, er)["train"]
        assert calibrated_rates(graphed, 0.5, er, cuda_graphs=True)["train"] == pytest.approx(default * 0.08 / 0.2)
        assert calibrated_rates(cal, 0.5, er, cuda_graphs=True)["train"] == pytest.approx(default)
