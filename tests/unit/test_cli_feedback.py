"""``xmd feedback from-rationales / from-words`` end to end on the tiny BERT and real HateXplain rows."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from xmd.cli import main
from xmd.core.feedback import load_feedback

HATEXPLAIN = Path(os.environ["XMD_HATEXPLAIN_DIR"]) / "val.csv"  # set by tests/conftest.py

ROWS = [
    ("the movie was great fun", "positive", "[0, 0, 0, 1, 1]"),
    ("boring and awful plot", "negative", "[0, 0, 1, 0]"),
    ("i loved the mango music", "positive", "[0, 1, 0, 0, 0]"),
    ("terrible acting , dull story", "negative", "[1, 0, 0, 1, 0]"),
    ("wonderful ending , really good", "positive", "[1, 0, 0, 0, 1]"),
    ("i hated the film", "negative", "[]"),
]


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def data(tmp_path) -> Path:
    path = tmp_path / "train.csv"
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["text", "label", "why"])
        writer.writerows(ROWS)
    return path


def test_only_correct_with_the_model_then_debug(capsys, tiny, tiny_model_dir, data, tmp_path):
    from xmd.core.predict import predict_proba

    pred = predict_proba(tiny, [t for t, _, _ in ROWS]).argmax(axis=1)
    gold = [tiny.labels.index(lab) for _, lab, _ in ROWS]
    with_rationale = [i for i, (_, _, r) in enumerate(ROWS) if r != "[]"]
    correct = [str(i) for i in with_rationale if pred[i] == gold[i]]
    assert 0 < len(correct) < len(with_rationale)  # the tiny model gets some right, some wrong

    out = tmp_path / "fb.json"
    code, stdout, err = run(
        capsys, "feedback", "from-rationales", data, "--rationale-column", "why", "--model", tiny_model_dir,
        "--only", "correct", "--out", out, "--json",
    )  # fmt: skip
    assert code == 0, err
    assert "predict" in err  # progress bar of the prediction step, on stderr
    payload = json.loads(stdout)
    summary = payload["summary"]
    assert summary["source"] == "simulated:rationales:why" and summary["n_examples"] == len(correct)
    assert summary["skipped"] == {"no rationale": 1, "predicted incorrectly": len(with_rationale) - len(correct)}
    fs = load_feedback(out)
    assert sorted({f.example_id for f in fs.instance}) == correct
    assert all(f.source == "simulated:rationales:why" and f.action.value == "add" for f in fs.instance)
    assert payload["entries"] == len(fs.instance) == summary["n_add"]

    code, stdout, err = run(
        capsys, "debug", tiny_model_dir, data, out, "--out", tmp_path / "v1", "--epochs", "1",
        "--batch-size", "4", "--json", "--quiet",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(stdout)["n_feedback_positions"] == len(fs.instance)
    card = (tmp_path / "v1" / "README.md").read_text()
    assert f"- From `simulated:rationales:why`: {len(fs.instance)} instance-level, 0 task-level" in card


def test_bad_input_writes_nothing(capsys, data, tmp_path):
    out = tmp_path / "fb.json"
    code, _, err = run(capsys, "feedback", "from-rationales", data, "--rationale-column", "nope", "--out", out)
    assert code == 2 and "rationale column 'nope' not found" in err and not out.exists()
    code, _, err = run(
        capsys, "feedback", "from-rationales", data, "--rationale-column", "why", "--format", "positions", "--out", out
    )
    assert code == 2 and "rows that cannot be read as positions" in err and not out.exists()
    code, _, err = run(
        capsys, "feedback", "from-rationales", data, "--rationale-column", "why", "--only", "correct", "--out", out
    )
    assert code == 2 and "needs --model or --predictions" in err and not out.exists()
    # an existing file is neither overwritten nor lost
    out.write_text('{"instance": [], "task": [{"word": "plot", "action": "remove"}]}')
    before = out.read_text()
    code, _, err = run(capsys, "feedback", "from-rationales", data, "--rationale-column", "why", "--out", out)
    assert code == 2 and "--merge" in err and out.read_text() == before
    words = tmp_path / "w.txt"
    words.write_text("ok\nthis\theavy\n")
    code, _, err = run(capsys, "feedback", "from-words", words, "--merge", out, "--out", out)
    assert code == 2 and "weight 'heavy' is not a number" in err and out.read_text() == before


def test_merge_and_words(capsys, data, tmp_path):
    out = tmp_path / "fb.json"
    out.write_text('{"instance": [], "task": [{"word": "plot", "action": "remove"}]}')
    code, stdout, err = run(
        capsys, "feedback", "from-rationales", data, "--rationale-column", "why", "--merge", out, "--out", out,
        "--predictions", _write(tmp_path / "p.json", {str(i): 0 for i in range(6)}), "--only", "incorrect",
        "--labels", "negative,positive", "--remove-others",
    )  # fmt: skip
    assert code == 0, err
    assert "simulated:rationales:why" in stdout and f"to {out}" in stdout
    fs = load_feedback(out)
    assert fs.task[0].word == "plot" and fs.task[0].source is None  # the person's entry is kept
    assert sorted({f.example_id for f in fs.instance}) == ["0", "2", "4"]  # gold positive, predicted 0
    assert {f.action.value for f in fs.instance} == {"add", "remove"}

    words = tmp_path / "identity terms.txt"
    words.write_text("# terms\nMango\t2\nMANGO\t1\nplot,0.5\ndon't\n", encoding="utf-8")
    code, stdout, err = run(
        capsys, "feedback", "from-words", words, "--scope", "all", "--data", data, "--merge", out, "--out", out,
        "--json", "--min-weight", "1",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(stdout)["summary"]
    assert summary["source"] == "simulated:words:identity terms.txt"
    assert summary["n_words"] == 1 and summary["n_examples"] == 1  # only "i loved the mango music"
    assert summary["skipped"] == {
        "duplicate of an earlier word (case/Unicode variant)": 1,
        "weight below 1.0 or missing": 2,
    }
    fs = load_feedback(out)
    assert [(t.word, t.source) for t in fs.task] == [("plot", None), ("Mango", "simulated:words:identity terms.txt")]
    assert len(fs.instance) > 0  # the rationale import is still there


def test_hatexplain_rows_through_the_cli(capsys, tmp_path):
    with HATEXPLAIN.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = [next(reader) for _ in range(40)]
    path = tmp_path / "hx.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    out = tmp_path / "fb.json"
    code, stdout, err = run(
        capsys, "feedback", "from-rationales", path, "--text-column", "unmasked_sentence", "--id-column", "id",
        "--label-column", "none", "--rationale-column", "rationales", "--tokens-column", "post_tokens",
        "--min-agreement", "2/3", "--out", out, "--json",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(stdout)["summary"]
    no_rationale = sum(1 for r in rows if r["rationales"] == "[]")
    assert summary["skipped"].get("no rationale") == no_rationale
    assert summary["n_examples"] + sum(summary["skipped"].values()) == len(rows)
    assert summary["details"]["format"] == "binary" and summary["details"]["units"] == "tokens"
    fs = load_feedback(out)
    ids = {r["id"] for r in rows}
    assert fs.instance and all(f.example_id in ids for f in fs.instance)
    assert all(f.source == "simulated:rationales:rationales" for f in fs.instance)


def _write(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj))
    return path
