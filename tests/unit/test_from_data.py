"""Classes read off a label column (issue 30 §1), as a project started from a CSV and ``xmd train`` without
``--labels`` both read them: a stable order, numbers as their text, every refusal with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from xmd.cli import main
from xmd.core.from_data import MAX_CLASSES, check_base, class_names, read_labelled
from xmd.core.types import DataError, ModelLoadError, TooLargeError


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_class_names_are_stable_and_skip_missing_cells():
    assert class_names(["pos", "neg", "Pos", None, "", "NA", float("nan")]) == ["neg", "pos"]
    assert class_names([1, 0, 2.0, "10"]) == ["0", "1", "2", "10"]  # numbers numerically
    assert class_names(["b", "A", "c"]) == ["A", "b", "c"]
    assert class_names([0, 1], given=["neg", "pos"]) == ["neg", "pos"]  # a ClassLabel's own names


def test_integer_labels_of_any_values_map_to_their_names(tmp_path: Path):
    path = _write(tmp_path / "d.jsonl", [{"text": f"t{i}", "label": [2, 7][i % 2]} for i in range(6)])
    examples, names = read_labelled(path)
    assert names == ["2", "7"] and [ex.label for ex in examples] == [0, 1, 0, 1, 0, 1]


def test_a_csv_with_names(tmp_path: Path):
    path = tmp_path / "d.csv"
    path.write_text("review,sentiment\ngood film,positive\nbad film,negative\nfine,neutral\n")
    examples, names = read_labelled(path, text_column="review", label_column="sentiment")
    assert names == ["negative", "neutral", "positive"] and [ex.label for ex in examples] == [2, 0, 1]


@pytest.mark.parametrize(
    ("rows", "kw", "error", "says"),
    [
        ([{"text": "a", "y": "p"}], {}, DataError, "no label column 'label'"),
        ([{"text": "a", "label": "p"}, {"text": "b", "label": "p"}], {}, DataError, "only the class 'p'"),
        ([{"text": "a", "label": ""}], {}, DataError, "no label at all"),
        ([{"text": f"t{i}", "label": f"c{i}"} for i in range(MAX_CLASSES + 1)], {}, DataError, "51 different values"),
        (
            [{"text": "a", "label": "p"}, {"text": "b", "label": ""}, {"text": "c", "label": "q"}],
            {},
            DataError,
            "no label",
        ),
        (
            [{"text": "a", "label": "p"}, {"text": "b", "label": "q"}, {"text": "c", "label": "p"}],
            {"max_rows": 2},
            TooLargeError,
            "3 rows",
        ),
    ],
)
def test_refusals_say_why(tmp_path: Path, rows, kw, error, says):
    with pytest.raises(error, match=says):
        read_labelled(_write(tmp_path / "d.jsonl", rows), **kw)


def test_a_base_classifier_must_have_as_many_classes(tiny_model_dir: Path, tmp_path: Path):
    check_base(tiny_model_dir, ["neg", "pos"])
    with pytest.raises(ModelLoadError, match="classifier with 2 classes, but the data has 3"):
        check_base(tiny_model_dir, ["a", "b", "c"])
    with pytest.raises(ModelLoadError, match=r"no usable config\.json"):
        check_base(tmp_path, ["a", "b"])


def test_xmd_train_reads_the_classes_off_the_data(capsys, tiny_model_dir: Path, tmp_path: Path):
    rows = [{"text": f"great film {i}" if i % 2 else f"dull plot {i}", "y": ["bad", "good"][i % 2]} for i in range(8)]
    data = _write(tmp_path / "d.jsonl", rows)
    out = tmp_path / "model"
    args = ["train", str(tiny_model_dir), str(data), "--out", str(out), "--label-column", "y", "--epochs", "1"]
    assert main([*args, "--batch-size", "4", "--json", "--quiet"]) == 0
    meta = json.loads((out / "config.json").read_text())
    assert [meta["id2label"][k] for k in sorted(meta["id2label"])] == ["bad", "good"]
    assert json.loads(capsys.readouterr().out)["kind"] == "fine_tune"
    assert main(["train", str(tiny_model_dir), str(data), "--out", str(tmp_path / "m2"), "--quiet"]) == 2
    assert "no label column 'label'" in capsys.readouterr().err
