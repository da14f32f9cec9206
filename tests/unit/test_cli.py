"""The xmd command line, driven in-process on the tiny BERT: each command's JSON output and errors."""

from __future__ import annotations

import json

import pytest
from xmd.cli import main
from xmd.core.data import save_examples
from xmd.core.types import Example

TEXTS = [
    ("the movie was great fun", "positive"),
    ("boring and awful plot", "negative"),
    ("i loved the mango music", "positive"),
    ("terrible acting , dull story", "negative"),
    ("wonderful ending , really good", "positive"),
    ("i hated the film", "negative"),
]


@pytest.fixture()
def data(tmp_path):
    import csv

    path = tmp_path / "train.csv"
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["text", "label"])
        writer.writerows(TEXTS)
    return path


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_json(capsys, tiny_model_dir, data):
    code, out, _ = run(capsys, "explain", tiny_model_dir, data, "--json", "--quiet", "--method", "occlusion")
    assert code == 0
    rows = json.loads(out)
    assert [r["example_id"] for r in rows] == [str(i) for i in range(len(TEXTS))]
    assert rows[0]["words"] == ["the", "movie", "was", "great", "fun"]
    assert abs(sum(rows[0]["shares"]) - 1) < 1e-6
    assert rows[0]["label"] == "positive" and rows[0]["method"] == "occlusion"


def test_explain_writes_jsonl(capsys, tiny_model_dir, data, tmp_path):
    out_file = tmp_path / "exp.jsonl"
    code, _, _ = run(capsys, "explain", tiny_model_dir, data, "--out", out_file, "--quiet", "--target", "negative")
    assert code == 0
    lines = [json.loads(x) for x in out_file.read_text().splitlines()]
    assert len(lines) == len(TEXTS) and all(x["target"] == 0 for x in lines)


def test_words_ranking(capsys, tiny_model_dir, data):
    code, out, _ = run(
        capsys, "words", tiny_model_dir, data, "--json", "--quiet", "--min-count", "1", "--sort", "count"
    )
    assert code == 0
    ranking = json.loads(out)
    assert ranking[0]["word"] == "the" and ranking[0]["count"] == 3
    assert set(ranking[0]["label_counts"]) == {"negative", "positive"}


def test_train_debug_evaluate(capsys, tiny_model_dir, data, tmp_path):
    code, out, _ = run(
        capsys,
        "train",
        tiny_model_dir,
        data,
        "--out",
        tmp_path / "base",
        "--epochs",
        "1",
        "--batch-size",
        "4",
        "--eval",
        f"dev={data}",
        "--json",
        "--quiet",
    )
    assert code == 0
    trained = json.loads(out)
    assert trained["metrics_after"]["dev"]["n"] == len(TEXTS)
    fb = tmp_path / "fb.json"
    fb.write_text(
        json.dumps(
            {
                "task": [{"word": "mango", "action": "remove"}],
                "instance": [{"example_id": "0", "word_index": 3, "action": "add"}],
            }
        )
    )
    code, out, _ = run(
        capsys,
        "debug",
        tmp_path / "base",
        data,
        fb,
        "--out",
        tmp_path / "v1",
        "--json",
        "--quiet",
        "--objective",
        "attribution",
        "--lam",
        "2",
        "--eval",
        f"dev={data}",
    )
    assert code == 0
    result = json.loads(out)
    assert result["er"]["objective"] == "attribution" and result["er"]["lam"] == 2
    assert result["n_feedback_positions"] == 2
    assert set(result["metrics_before"]) == {"dev"}
    assert result["parent"]["kind"] == "fine_tune"  # lineage: debugged from a model xmd fine-tuned
    assert "originally fine-tuned from" in (tmp_path / "v1" / "README.md").read_text()
    cues = ("great", "awful", "terrible", "wonderful", "hated", "loved")
    rat = tmp_path / "rationales.jsonl"
    rat.write_text(
        "\n".join(json.dumps({"text": t, "label": lab, "why": [w for w in t.split() if w in cues]}) for t, lab in TEXTS)
    )
    code, out, _ = run(
        capsys,
        "evaluate",
        tmp_path / "v1",
        "--eval",
        f"dev={rat}",
        "--faithfulness",
        "--json",
        "--quiet",
        "--rationale-column",
        "why",
    )
    assert code == 0
    metrics = json.loads(out)["dev"]
    assert 0 <= metrics["accuracy"] <= 1 and "aopc_comprehensiveness" in metrics
    assert metrics["plausibility"]["n"] == 6 and 0 <= metrics["plausibility"]["auprc"] <= 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["explain", "/nonexistent/model", "{data}"], "is not a directory"),
        (["explain", "{model}", "/nonexistent.csv"], "not found"),
        (["explain", "{model}", "{data}", "--text-column", "body"], "body"),
        (["explain", "{model}", "{data}", "--target", "neutral"], "unknown label"),
        (["explain", "{model}", "{data}", "--method", "shap"], "unknown attribution method"),
    ],
)
def test_user_errors_exit_2_with_one_line(capsys, tiny_model_dir, data, args, message):
    args = [a.format(model=tiny_model_dir, data=data) for a in args]
    code, _, err = run(capsys, *args, "--quiet")
    assert code == 2
    assert err.startswith("xmd: error:") and message in err


def test_bad_label_in_data(capsys, tiny_model_dir, tmp_path):
    bad = tmp_path / "bad.jsonl"
    save_examples([Example(id="a", text="fine", label=0)], bad)
    bad.write_text(bad.read_text().replace('"label": 0', '"label": "meh"'))
    code, _, err = run(capsys, "words", tiny_model_dir, bad, "--quiet")
    assert code == 2 and "meh" in err


def test_serve_refuses_a_demo_model_that_is_no_model_folder(tmp_path, monkeypatch):
    """``--demo-model`` is checked before anything starts: a wrong path is one clear line, and no data
    directory, database or worker comes into being."""
    monkeypatch.setenv("XMD_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "empty").mkdir()
    for wrong in (tmp_path / "nowhere", tmp_path / "empty"):
        with pytest.raises(SystemExit, match=r"--demo-model: .* is not a model folder"):
            main(["serve", "--demo", "--demo-model", str(wrong), "--port", "1"])
    assert not (tmp_path / "data").exists()
