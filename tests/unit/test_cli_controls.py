"""``xmd debug --controls`` and ``xmd evaluate --words``, driven in-process on the tiny BERT."""

from __future__ import annotations

import csv
import json

import pytest
from xmd.cli import main

TEXTS = [
    ("the mango movie was great fun", "positive"),
    ("boring and awful plot", "negative"),
    ("i loved the mango music", "positive"),
    ("terrible mango acting , dull story", "negative"),
    ("wonderful ending , really good", "positive"),
    ("i hated the film", "negative"),
    ("mango and the plot", "negative"),
    ("good mango story", "positive"),
]


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def files(tmp_path):
    data = tmp_path / "train.csv"
    with data.open("w", newline="") as fh:
        csv.writer(fh).writerows([("text", "label"), *TEXTS])
    fb = tmp_path / "fb.json"
    fb.write_text(json.dumps({"task": [{"word": "mango", "action": "remove"}]}))
    words = tmp_path / "words.txt"
    words.write_text("# identity terms\nMango\t2.0\n\n")
    return data, fb, words


def test_debug_with_controls_and_seeds(capsys, tiny_model_dir, files, tmp_path):
    data, fb, _ = files
    common = ["--epochs", "1", "--batch-size", "4", "--eval", f"dev={data}", "--quiet", "--bootstrap", "100"]
    code, out, err = run(
        capsys, "debug", tiny_model_dir, data, fb, "--out", tmp_path / "cmp", "--controls", "lambda0,deletion",
        "--seeds", "2", "--positive-label", "negative", "--json", *common,
    )  # fmt: skip
    assert code == 0, err
    d = json.loads(out)
    assert d["arms"] == ["debug", "lambda0", "deletion"] and d["seeds"] == [0, 1]
    assert d["positive"] == {"index": 0, "label": "negative", "rule": "given"}
    dev = d["sets"]["dev"]
    rated = {"accuracy", "macro_f1", "fpr_words", "fpr_gap"}  # and the words' FNR where the slice has positives
    assert rated <= set(dev["verdicts"]) <= rated | {"fnr_words"}
    assert sorted(p.name for p in (tmp_path / "cmp").iterdir()) == [
        "comparison.json", "debug-seed0", "debug-seed1", "deletion-seed0", "deletion-seed1",
        "lambda0-seed0", "lambda0-seed1",
    ]  # fmt: skip
    code, out, _ = run(
        capsys, "debug", tiny_model_dir, data, fb, "--out", tmp_path / "t", "--controls", "lambda0", *common
    )
    assert code == 0
    assert "Δ vs lambda0" in out and "fpr_words" in out and "flagged class for the word FPR: positive" in out
    # --controls is derived from ControlOptions: argparse refuses an unknown arm like any bad flag value
    with pytest.raises(SystemExit) as exit_:
        run(capsys, "debug", tiny_model_dir, data, fb, "--out", tmp_path / "bad", "--controls", "lambda9")
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--controls: 'lambda9'" in err.strip().splitlines()[-1]
    assert not (tmp_path / "bad").exists()


def test_evaluate_reports_per_class_f1_and_the_word_fpr(capsys, tiny_model_dir, files):
    data, fb, words = files
    base = ["evaluate", tiny_model_dir, "--eval", f"dev={data}", "--json", "--quiet"]
    code, out, err = run(capsys, *base, "--words", words, "--positive-label", "positive")
    assert code == 0, err
    dev = json.loads(out)["dev"]
    assert set(dev["per_class_f1"]) == {"negative", "positive"}
    assert dev["words"] == ["mango"] and dev["positive_label"] == "positive" and dev["positive_rule"] == "given"
    # Negative posts with "mango": 2 (rows 3 and 6); without: 2.
    assert dev["n_negative_words"] == 2 and dev["n_negative_other"] == 2
    assert dev["fpr_words"] in (0.0, 0.5, 1.0) and dev["fpr_gap"] == dev["fpr_words"] - dev["fpr_other"]
    code, out, _ = run(capsys, *base, "--feedback", fb)
    assert code == 0 and json.loads(out)["dev"]["positive_rule"] == "word_lift"
    empty = words.with_name("empty.txt")
    empty.write_text("# nothing\n")
    code, _, err = run(capsys, *base, "--words", empty)
    assert code == 2 and "holds no word" in err
