"""The retrain settings have one home: the core's dataclasses. ``xmd debug``'s flags, the API's
``RetrainIn`` (and so the OpenAPI schema the frontend is typed from) and the retrain worker's
configuration are derived from their fields, so a field added there appears everywhere at once."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field

import pytest
from pydantic import ValidationError, create_model
from xmd.cli import build_parser
from xmd.core import options
from xmd.core.options import add_arguments, build, opt
from xmd.core.retrain import RETRAIN_SETTINGS, ControlOptions, ERConfig, RetrainConfig, TrainConfig
from xmd.http.fields import settings_fields
from xmd.retrain.schemas import RetrainIn


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {a.dest: a for a in parser._actions}


def _subparser(name: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


def test_every_retrain_field_is_a_cli_flag_an_api_field_and_reaches_the_worker():
    from xmd.app import create_app
    from xmd.retrain.flows import _configs

    names = [f.name for cls in RETRAIN_SETTINGS for f in dataclasses.fields(cls)]
    assert {"epochs", "lr", "lam", "objective", "attribution_weight", "attribution_every", "warmup_ratio"} <= set(names)
    assert len(names) <= 25  # pruned by evidence (docs/settings.md)
    assert {"controls", "seeds"} <= set(names)  # issue 14's options, added in ControlOptions only

    flags = _flags(_subparser("debug"))
    schema = create_app(serve_ui=False).openapi()["components"]["schemas"]["RetrainIn"]["properties"]
    defaults = {**dataclasses.asdict(RetrainConfig()), **dataclasses.asdict(ERConfig())}
    defaults.update(dataclasses.asdict(ControlOptions()))
    for name in names:
        assert flags[name].default == defaults[name], name  # the CLI's default is the dataclass's
        api_default = schema[name].get("default")  # and so is the API's (a tuple is a JSON list; None: absent)
        assert (tuple(api_default) if isinstance(api_default, list) else api_default) == defaults[name], name
        assert schema[name].get("description"), name  # with the help text of the field
    # The worker takes every field from the job's params; missing ones keep the defaults.
    changed = {"epochs": 3, "lr": 1e-4, "lam": 2.5, "objective": "erasure", "attribution_every": 2, "warmup_ratio": 0.1}
    changed.update(controls=("lambda0", "deletion"), seeds=3)
    train, er, ctl = _configs({**RetrainIn(**changed).model_dump(), "version_id": 1})
    got = {**dataclasses.asdict(train), **dataclasses.asdict(er), **dataclasses.asdict(ctl)}
    assert {k: got[k] for k in changed} == changed
    assert got["batch_size"] == RetrainConfig().batch_size and got["attribution_rows"] == ERConfig().attribution_rows


def test_the_retrain_defaults_are_the_dataclass_defaults():
    # The API used to carry its own copy (epochs 2, lr 3e-5) next to the core's (epochs 1, lr 2e-5).
    assert RetrainIn().epochs == RetrainConfig().epochs == 2 and RetrainIn().lr == RetrainConfig().lr == 3e-5
    assert TrainConfig().epochs == 1  # the library's fine-tune default is a separate, named choice
    args = build_parser().parse_args(["debug", "m", "d", "f.json", "--out", "o"])
    assert build(RetrainConfig, args) == RetrainConfig() and build(ERConfig, args) == ERConfig()


def test_a_boolean_left_to_the_worker_has_three_states_in_every_front_end():
    """``mixed_precision`` unset is auto (the worker's device decides): the CLI's neither flag, the API's
    null or absence, and the worker's None; ``--mixed-precision`` / ``--no-mixed-precision`` and true / false
    force it either way."""
    from xmd.retrain.flows import _configs

    base = ["debug", "m", "d", "f.json", "--out", "o"]
    for extra, want in (([], None), (["--mixed-precision"], True), (["--no-mixed-precision"], False)):
        assert build(RetrainConfig, build_parser().parse_args(base + extra)).mixed_precision is want
    for body, want in (({}, None), ({"mixed_precision": None}, None), ({"mixed_precision": False}, False)):
        train, _, _ = _configs({**RetrainIn(**body).model_dump(), "version_id": 1})
        assert train.mixed_precision is want
    with pytest.raises(ValidationError):
        RetrainIn(mixed_precision="sometimes")


def test_bounds_and_choices_are_enforced_by_every_front_end():
    with pytest.raises(ValidationError):
        RetrainIn(epochs=0)
    with pytest.raises(ValidationError):
        RetrainIn(objective="nonsense")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["debug", "m", "d", "f", "--out", "o", "--lam", "-1"])
    with pytest.raises(SystemExit):
        build_parser().parse_args(["debug", "m", "d", "f", "--out", "o", "--objective", "nonsense"])
    with pytest.raises(ValueError, match="objective"):
        build(ERConfig, {"objective": "nonsense"})  # the worker validates what it reads from a job row
    with pytest.raises(ValueError, match="attribution_every"):
        build(ERConfig, {"attribution_every": 0})  # bounds from the field metadata, as the API and the CLI
    with pytest.raises(SystemExit):  # a removed setting (docs/settings.md) is no flag
        build_parser().parse_args(["debug", "m", "d", "f", "--out", "o", "--early-stop"])
    with pytest.raises(ValidationError):
        RetrainIn(controls=["lambda9"])
    with pytest.raises(SystemExit):
        build_parser().parse_args(["debug", "m", "d", "f", "--out", "o", "--controls", "lambda0,lambda0"])
    with pytest.raises(ValueError, match="distinct"):
        build(ControlOptions, {"controls": ["lambda0", "lambda0"]})
    args = build_parser().parse_args(["debug", "m", "d", "f", "--out", "o", "--controls", "lambda0, deletion"])
    assert build(ControlOptions, args) == ControlOptions(controls=("lambda0", "deletion"))


def test_a_new_field_appears_in_cli_api_and_worker_with_no_other_edit():
    """Add a field to (a copy of) the retrain dataclass: the same derivations pick it up."""

    @dataclass
    class WithControl(RetrainConfig):
        control_runs: int = field(default=0, metadata=opt("plain continued-training runs to compare with", ge=0, le=8))

    settings = (WithControl, ERConfig)
    parser = argparse.ArgumentParser()
    add_arguments(parser, *settings)
    assert parser.parse_args([]).control_runs == 0 and parser.parse_args(["--control-runs", "3"]).control_runs == 3
    with pytest.raises(SystemExit):
        parser.parse_args(["--control-runs", "9"])

    model = create_model("RetrainInWithControl", **settings_fields(*settings))
    prop = model.model_json_schema()["properties"]["control_runs"]
    assert prop["default"] == 0 and prop["maximum"] == 8 and "continued-training" in prop["description"]
    with pytest.raises(ValidationError):
        model(control_runs=-1)

    assert build(WithControl, model(control_runs=2).model_dump()).control_runs == 2


def test_an_option_defined_twice_is_refused():
    @dataclass
    class Clash:
        lam: float = 0.0

    with pytest.raises(TypeError, match="lam"):
        options.options(ERConfig, Clash)
