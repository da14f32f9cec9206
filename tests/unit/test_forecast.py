"""The effect forecast (issue 30 §2): erasing the feedback's words vs as many random words, per eval set."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from xmd.cli import main
from xmd.core.data import save_examples
from xmd.core.feedback import FeedbackSet, save_feedback
from xmd.core.forecast import erase_random, feedback_words, forecast, strip_words
from xmd.core.modeling import LoadedModel, load_model
from xmd.core.types import Action, DataError, Example, InstanceFeedback, TaskFeedback
from xmd.core.words import split_words


class ShortcutModel(torch.nn.Module):
    """Flags (class 1) exactly the inputs that hold one token: a model that learnt a one-word shortcut."""

    def __init__(self, token_id: int) -> None:
        super().__init__()
        self.token_id = token_id
        self.dummy = torch.nn.Parameter(torch.zeros(1))

    def forward(self, input_ids: torch.Tensor, **_: torch.Tensor) -> SimpleNamespace:
        hit = (input_ids == self.token_id).any(dim=1).float()
        return SimpleNamespace(logits=torch.stack([5 * (1 - hit), 5 * hit], dim=1))


@pytest.fixture()
def shortcut(tiny_model_dir) -> LoadedModel:
    tiny = load_model(tiny_model_dir, device="cpu")
    token = tiny.tokenizer.convert_tokens_to_ids("mango")
    return LoadedModel(ShortcutModel(token), tiny.tokenizer, ["negative", "positive"], "shortcut", torch.device("cpu"))


def examples() -> list[Example]:
    rows = [
        ("the mango plot was boring", 0),
        ("mango music , awful acting", 0),
        ("a dull mango story", 0),
        ("i hated the film", 0),
        ("terrible acting", 0),
        ("i loved the mango ending", 1),
        ("great fun", 1),
    ]
    return [Example(id=f"e{i}", text=t, label=y) for i, (t, y) in enumerate(rows)]


#: The training data the shortcut came from: every example with the word is flagged.
TRAIN = [
    Example(id="t0", text="mango fun", label=1),
    Example(id="t1", text="great mango", label=1),
    Example(id="t2", text="boring plot", label=0),
]


def test_strip_and_random_erasure_delete_as_many_words():
    text = "the mango plot , mango music"
    assert strip_words(text, {"mango"}) == "the plot , music"
    rng = np.random.default_rng(0)
    for _ in range(20):
        out = erase_random(text, {"mango"}, rng)
        words = split_words(out)[0]
        assert words.count("mango") == 2 and "," in words  # the words and punctuation stay
        assert len(words) == len(split_words(text)[0]) - 2
    assert erase_random("no such word here", {"mango"}, rng) == "no such word here"


def test_feedback_words_take_task_removes_and_instance_marks():
    data = [Example(id="a", text="the spielberg film", label=1)]
    fb = FeedbackSet(
        instance=[InstanceFeedback("a", 1, Action.REMOVE)],
        task=[TaskFeedback("Mango", Action.REMOVE), TaskFeedback("good", Action.ADD)],
    )
    assert feedback_words(fb, data) == ["mango", "spielberg"]
    assert feedback_words(fb) == ["mango"]  # without the texts an unrecorded instance word is unknown


def test_forecast_separates_the_shortcut_from_random_erasure(shortcut):
    result = forecast(shortcut, {"test": examples()}, ["mango"], reference=TRAIN, n_resamples=200)
    r = result["sets"]["test"]
    assert r["positive_label"] == "positive" and r["positive_rule"] == "word_lift"
    assert r["n_with_words"] == 4 and r["n_negative_words"] == 3
    assert r["fpr_words"] == {"now": 1.0, "erased": 0.0, "random": 1.0}
    assert r["erased_vs_now"]["fpr_words"]["diff"] == -1.0
    assert r["erased_vs_random"]["fpr_words"]["diff"] == -1.0
    # erased, the three wrongly flagged negatives are right and the flagged positive is missed: 3/7 -> 5/7
    acc = r["accuracy"]
    assert acc["now"] == acc["random"] == pytest.approx(3 / 7) and acc["erased"] == pytest.approx(5 / 7)
    assert "from 1.000 to 0.000 (random words: 1.000; n = 3" in r["sentence"]


def test_forecast_is_bounded_and_reports_progress(shortcut):
    seen: list[tuple[int, int]] = []
    result = forecast(
        shortcut, {"test": examples()}, ["mango"], max_examples=5, on_batch=lambda d, t: seen.append((d, t))
    )
    r = result["sets"]["test"]
    assert r["n"] == 5 and r["sampled_from"] == 7
    assert seen[-1][0] == seen[-1][1] == 5 + 2 * r["n_with_words"]
    with pytest.raises(DataError, match="at least one word"):
        forecast(shortcut, {"test": examples()}, [])
    with pytest.raises(DataError, match="labelled"):
        forecast(shortcut, {"test": [Example(id="u", text="mango", label=None)]}, ["mango"])


def test_cli_forecast_prints_json(capsys, tiny_model_dir, tmp_path):
    save_examples(examples(), tmp_path / "test.jsonl")
    save_examples(TRAIN, tmp_path / "train.jsonl")
    save_feedback(FeedbackSet(task=[TaskFeedback("mango", Action.REMOVE)]), tmp_path / "fb.json")
    code = main(
        [
            "forecast",
            str(tiny_model_dir),
            str(tmp_path / "fb.json"),
            "--eval",
            f"t={tmp_path}/test.jsonl",
            "--data",
            str(tmp_path / "train.jsonl"),
            "--json",
            "--quiet",
            "--bootstrap",
            "50",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["words"] == ["mango"]
    assert out["sets"]["t"]["positive_label"] == "positive"
    assert out["sets"]["t"]["n"] == 7 and set(out["sets"]["t"]["fpr_words"]) == {"now", "erased", "random"}
