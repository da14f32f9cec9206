"""``xmd agreement``: three feedback files → the agreement table, and the consensus JSON a retrain reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from xmd.cli import main
from xmd.core.feedback import load_feedback


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, *marks: tuple[str, int, str]) -> Path:
    rows = [{"example_id": e, "word_index": i, "action": a} for e, i, a in marks]
    path.write_text(json.dumps({"instance": rows, "task": []}))
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, list[Path]]:
    data = tmp_path / "d.csv"
    data.write_text("id,text,label\ne1,the cat sat down,0\ne2,a dull dull film,1\ne3,nice film,1\n")
    ann = write(tmp_path / "ann.json", ("e1", 0, "remove"), ("e2", 1, "remove"))
    bob = write(tmp_path / "bob.json", ("e1", 0, "remove"), ("e2", 2, "remove"))
    cat = write(tmp_path / "cat.json", ("e1", 1, "add"))
    return data, [ann, bob, cat]


def test_table_json_and_consensus_file(capsys, files, tmp_path: Path) -> None:
    data, (ann, bob, cat) = files
    out = tmp_path / "consensus.json"
    code, text, _ = run(capsys, "agreement", ann, bob, f"C={cat}", "--data", data, "--id-column", "id", "--out", out)
    assert code == 0 and "ann – bob" in text and "consensus (majority): 1 instance" in text
    # ann and bob on e1 + e2 (8 words): agree on 6; both "remove" on 2 of 8 -> pe = (36 + 4) / 64, κ = 1/3.
    code, text, _ = run(capsys, "agreement", ann, bob, cat, "--data", data, "--id-column", "id", "--json")
    doc = json.loads(text)
    assert doc["pairs"][0]["kappa"] == pytest.approx(1 / 3) and doc["n_tokens"] == 8
    # (e1, 0): ann and bob of the three who saw e1 -> kept; (e2, 1) 1 of 2 -> not.
    fs = load_feedback(out)
    assert [(f.example_id, f.word_index, f.action.value) for f in fs.instance] == [("e1", 0, "remove")]
    assert fs.words == {("e1", 0): "the"}
    run(capsys, "agreement", ann, bob, cat, "--data", data, "--id-column", "id", "--policy", "union", "--out", out)
    assert len(load_feedback(out).instance) == 4


def test_bad_input_is_a_usage_error(capsys, files, tmp_path: Path) -> None:
    data, (ann, bob, _) = files
    code, _, err = run(capsys, "agreement", ann, "--data", data, "--id-column", "id")
    assert code == 2 and "two or more" in err
    code, _, err = run(capsys, "agreement", ann, bob, "--data", data, "--id-column", "id", "--policy", "vote")
    assert code == 2 and "allowed: union" in err
    code, _, err = run(capsys, "agreement", ann, bob, "--data", data, "--policy", "at_least_k", "--id-column", "id")
    assert code == 2 and "k ≥ 1" in err
    code, _, err = run(capsys, "agreement", ann, bob, "--data", data)  # row numbers as ids: e1 is unknown
    assert code == 2 and "not in --data" in err
    assert not (tmp_path / "consensus.json").exists()
