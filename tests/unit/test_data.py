"""load_examples / save_examples on real files of every supported kind, and every error message."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from xmd.core.data import load_examples, save_examples
from xmd.core.types import DataError, Example

LABELS = ["negative", "positive"]
ROWS = [
    {"text": "a wonderful film", "label": "positive", "source": "imdb", "stars": 5},
    {"text": "dull and far too long", "label": "negative", "source": "imdb", "stars": 1},
    {"text": "I loved the ending", "label": "Positive", "source": "sst", "stars": 4},
]


def _texts_labels(examples: list[Example]) -> list[tuple[str, int | None]]:
    return [(e.text, e.label) for e in examples]


EXPECTED = [("a wonderful film", 1), ("dull and far too long", 0), ("I loved the ending", 1)]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _error(source, **kwargs) -> str:
    with pytest.raises(DataError) as info:
        load_examples(source, **kwargs)
    return str(info.value)


# ------------------------------------------------------------------------------------------------
# Formats


@pytest.mark.parametrize("ext", [".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet"])
def test_every_file_format_loads_the_same_examples(tmp_path, ext):
    df = pd.DataFrame(ROWS)
    path = tmp_path / f"data{ext}"
    if ext == ".csv":
        df.to_csv(path, index=False)
    elif ext == ".tsv":
        df.to_csv(path, sep="\t", index=False)
    elif ext in (".jsonl", ".ndjson"):
        _write_jsonl(path, ROWS)
    elif ext == ".json":
        path.write_text(json.dumps(ROWS), encoding="utf-8")
    else:
        df.to_parquet(path)
    examples = load_examples(path, labels=LABELS, split="dev")
    assert _texts_labels(examples) == EXPECTED
    assert [e.id for e in examples] == ["0", "1", "2"]
    assert {e.split for e in examples} == {"dev"}
    assert examples[0].meta == {"source": "imdb", "stars": 5}
    assert type(examples[0].meta["stars"]) is int  # a plain int, not numpy: JSON-friendly
    json.dumps([e.meta for e in examples])
    # A str path works as well as a Path.
    assert _texts_labels(load_examples(str(path), labels=LABELS)) == EXPECTED


def test_in_memory_sources(tmp_path):
    import datasets

    for source in (ROWS, pd.DataFrame(ROWS), datasets.Dataset.from_list(ROWS)):
        examples = load_examples(source, labels=LABELS)
        assert _texts_labels(examples) == EXPECTED
        assert examples[2].meta == {"source": "sst", "stars": 4}


def test_saved_dataset_and_dataset_dict_directories(tmp_path):
    import datasets

    ds = datasets.Dataset.from_list(ROWS)
    ds.save_to_disk(str(tmp_path / "single"))
    assert _texts_labels(load_examples(tmp_path / "single", labels=LABELS)) == EXPECTED

    dsd = datasets.DatasetDict({"train": ds, "validation": ds.select([1])})
    dsd.save_to_disk(str(tmp_path / "dict"))
    val = load_examples(tmp_path / "dict", labels=LABELS, split="validation")
    assert _texts_labels(val) == [("dull and far too long", 0)]
    assert val[0].split == "validation"
    assert len(load_examples(tmp_path / "dict", labels=LABELS)) == 3  # default split "train"

    msg = _error(tmp_path / "dict", labels=LABELS, split="test")
    assert "'test'" in msg and "train" in msg and "validation" in msg
    msg = _error(dsd, labels=LABELS, split="test")
    assert "available splits" in msg

    (tmp_path / "plain").mkdir()
    assert "save_to_disk" in _error(tmp_path / "plain")


def test_class_label_feature_is_mapped_by_name_and_minus_one_is_unlabelled():
    import datasets

    features = datasets.Features({"text": datasets.Value("string"), "label": datasets.ClassLabel(names=["pos", "neg"])})
    ds = datasets.Dataset.from_dict({"text": ["good", "bad", "???"], "label": [0, 1, -1]}, features=features)
    # The dataset's own order is (pos, neg); the model's is (neg, pos): names decide, not order.
    out = load_examples(ds, labels=["neg", "pos"], require_labels=False)
    assert [e.label for e in out] == [1, 0, None]
    assert "no label" in _error(ds, labels=["neg", "pos"])


def test_selected_dataset_rows_are_respected():
    import datasets

    ds = datasets.Dataset.from_list(ROWS).select([2, 0])
    assert _texts_labels(load_examples(ds, labels=LABELS)) == [EXPECTED[2], EXPECTED[0]]


# ------------------------------------------------------------------------------------------------
# Labels, ids, columns, meta


def test_labels_by_index_numeric_string_and_name():
    rows = [
        {"text": "a", "label": 1},
        {"text": "b", "label": "0"},
        {"text": "c", "label": " NEGATIVE "},
        {"text": "d", "label": 1.0},
    ]
    assert [e.label for e in load_examples(rows, labels=LABELS)] == [1, 0, 0, 1]


def test_three_class_labels(tmp_path):
    labels = ["neg", "neu", "pos"]
    path = tmp_path / "three.csv"
    path.write_text("text,label\nbad,neg\nmeh,Neu\ngood,2\nfine,1\n", encoding="utf-8")
    assert [e.label for e in load_examples(path, labels=labels)] == [0, 1, 2, 1]
    msg = _error(path, labels=["neg", "pos"])
    assert "'Neu'" in msg and "row 1" in msg and "['neg', 'pos']" in msg


def test_label_names_that_look_like_numbers_are_matched_by_name_first(tmp_path):
    path = tmp_path / "stars.csv"
    path.write_text("text,label\nawful,1\ngreat,3\n", encoding="utf-8")
    assert [e.label for e in load_examples(path, labels=["1", "2", "3"])] == [0, 2]


def test_without_label_names_only_non_negative_integers_are_accepted():
    assert [e.label for e in load_examples([{"text": "a", "label": 3}, {"text": "b", "label": "0"}])] == [3, 0]
    msg = _error([{"text": "a", "label": "positive"}])
    assert "'positive'" in msg and "labels=[...]" in msg
    assert "-1" in _error([{"text": "a", "label": -1}])


def test_custom_columns_and_ids(tmp_path):
    path = tmp_path / "custom.csv"
    path.write_text("uid,sentence,y,extra\n007,hello there,positive,x\nb2,bye now,0,\n", encoding="utf-8")
    out = load_examples(path, text_column="sentence", label_column="y", id_column="uid", labels=LABELS)
    assert [e.id for e in out] == ["007", "b2"]  # ids stay strings: no lost leading zeros
    assert _texts_labels(out) == [("hello there", 1), ("bye now", 0)]
    assert out[0].meta == {"extra": "x"}
    assert out[1].meta == {"extra": None}  # empty cell → None


def test_integer_ids_become_strings():
    out = load_examples([{"k": 10, "text": "a", "label": 0}, {"k": 11, "text": "b", "label": 1}], id_column="k")
    assert [e.id for e in out] == ["10", "11"]


def test_unlabelled_data():
    rows = [{"text": "a", "label": "positive"}, {"text": "b", "label": None}]
    assert [e.label for e in load_examples(rows, labels=LABELS, require_labels=False)] == [1, None]
    no_column = [{"text": "a"}, {"text": "b"}]
    assert [e.label for e in load_examples(no_column, labels=LABELS, require_labels=False)] == [None, None]
    # label_column=None ignores any label column; it then lands in meta like any other column.
    out = load_examples(rows, label_column=None)
    assert [e.label for e in out] == [None, None]
    assert out[0].meta == {"label": "positive"}


def test_meta_is_json_friendly(tmp_path):
    df = pd.DataFrame(
        {
            "text": ["a", "b"],
            "label": [0, 1],
            "score": [0.5, float("nan")],
            "when": pd.to_datetime(["2024-01-02", None]),
            "tags": [["x", "y"], []],
        }
    )
    df.to_parquet(tmp_path / "m.parquet")
    for source in (df, tmp_path / "m.parquet"):
        out = load_examples(source)
        assert out[0].meta["score"] == 0.5 and out[1].meta["score"] is None
        assert out[0].meta["when"].startswith("2024-01-02") and out[1].meta["when"] is None
        assert out[0].meta["tags"] == ["x", "y"]
        json.dumps([e.meta for e in out], allow_nan=False)


def test_text_is_kept_verbatim(tmp_path):
    path = tmp_path / "na.csv"
    path.write_text('text,label\nNA,0\n"  spaced, quoted  ",1\n', encoding="utf-8")
    assert [e.text for e in load_examples(path)] == ["NA", "  spaced, quoted  "]


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("text,label\ncafé crème,1\n".encode("utf-8-sig"))
    assert _texts_labels(load_examples(path)) == [("café crème", 1)]


# ------------------------------------------------------------------------------------------------
# Errors


def test_file_not_found(tmp_path):
    msg = _error(tmp_path / "nope.csv")
    assert "not found" in msg and "nope.csv" in msg


def test_unsupported_extension_lists_the_supported_ones(tmp_path):
    path = tmp_path / "data.xlsx"
    path.write_text("x", encoding="utf-8")
    msg = _error(path)
    assert "'.xlsx'" in msg
    for ext in (".csv", ".tsv", ".jsonl", ".json", ".parquet"):
        assert ext in msg


def test_unsupported_object():
    assert "cannot read examples from a int" in _error(42)


def test_bad_json_line_names_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "a", "label": 0}\n\n{"text": "b", "label": 1\n', encoding="utf-8")
    msg = _error(path)
    assert "line 3" in msg and "not valid JSON" in msg
    path.write_text('{"text": "a", "label": 0}\n[1, 2]\n', encoding="utf-8")
    assert "line 2" in _error(path)


def test_bad_json_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[{"text": "a"},\n {"text": }]', encoding="utf-8")
    assert "line 2" in _error(path)
    path.write_text('{"text": "a", "label": 0}', encoding="utf-8")
    assert "list of objects" in _error(path)


def test_malformed_csv_and_parquet(tmp_path):
    csv_path = tmp_path / "bad.csv"
    csv_path.write_text('text,label\n"never closed,1\n', encoding="utf-8")
    assert "could not parse 'bad.csv' as CSV" in _error(csv_path)
    pq_path = tmp_path / "bad.parquet"
    pq_path.write_bytes(b"this is not parquet")
    assert "could not read 'bad.parquet' as Parquet" in _error(pq_path)


def test_not_utf8(tmp_path):
    for name in ("latin.csv", "latin.jsonl"):
        path = tmp_path / name
        body = "text,label\ncafé,1\n" if name.endswith(".csv") else '{"text": "café", "label": 1}\n'
        path.write_bytes(body.encode("latin-1"))
        assert "not UTF-8" in _error(path)


def test_missing_columns_are_named_with_the_available_ones(tmp_path):
    path = tmp_path / "cols.csv"
    path.write_text("sentence,y\nhello,1\n", encoding="utf-8")
    msg = _error(path)
    assert "'text'" in msg and "'label'" in msg and "columns: 'sentence', 'y'" in msg and "Pass " not in msg
    msg = _error(path, text_column="sentence", label_column="y", id_column="uid")
    assert "id column 'uid' not found" in msg and "text column" not in msg


def test_empty_and_whitespace_texts_are_counted_and_located():
    rows = [{"text": t, "label": 0} for t in ["ok", "", "   ", "fine", None, "\n\t", "", "", "x"]]
    msg = _error(rows)
    assert "6 rows" in msg and "empty or whitespace-only" in msg
    assert "row 1, row 2, row 4, row 5, row 6 and 1 more" in msg


def test_empty_text_names_the_id(tmp_path):
    path = _write_jsonl(tmp_path / "e.jsonl", [{"id": "a", "text": "x", "label": 0}, {"id": "b", "text": " "}])
    msg = _error(path, id_column="id", require_labels=False)
    assert "row 1 (id 'b')" in msg and msg.startswith("e.jsonl:")


def test_non_text_values():
    assert "must hold text" in _error([{"text": 5, "label": 0}])


def test_too_long_text():
    msg = _error([{"text": "short", "label": 0}, {"text": "x" * 101, "label": 1}], max_chars=100)
    assert "row 1 has 101 characters" in msg and "max_chars=100" in msg
    assert len(load_examples([{"text": "x" * 101, "label": 1}], max_chars=None)) == 1


def test_unknown_label_names_value_row_and_known_labels():
    rows = [{"text": "a", "label": "positive"}, {"text": "b", "label": "neutral"}, {"text": "c", "label": 7}]
    msg = _error(rows, labels=LABELS)
    assert "'neutral' in row 1" in msg and "7 in row 2" in msg
    assert "['negative', 'positive']" in msg


def test_missing_label_values():
    msg = _error([{"text": "a", "label": 1}, {"text": "b", "label": None}], labels=LABELS)
    assert "no label" in msg and "row 1" in msg and "require_labels=False" in msg


def test_duplicate_and_empty_ids():
    rows = [{"id": i, "text": "t", "label": 0} for i in ("a", "b", "a", "c", "b", "a", "")]
    msg = _error(rows, id_column="id")
    assert "duplicate ids" in msg and "'a' (rows 0, 2, 5)" in msg and "'b' (rows 1, 4)" in msg
    assert "empty id" in msg and "row 6" in msg


def test_empty_dataset(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("text,label\n", encoding="utf-8")
    assert "empty" in _error(path)
    path.write_text("", encoding="utf-8")
    assert "empty" in _error(path)
    assert "empty" in _error([])
    (tmp_path / "blank.jsonl").write_text("\n\n", encoding="utf-8")
    assert "empty" in _error(tmp_path / "blank.jsonl")


def test_all_problems_are_reported_at_once_and_nothing_is_returned():
    rows = [
        {"id": "1", "text": "", "label": "positive"},
        {"id": "1", "text": "ok", "label": "bogus"},
        {"id": "2", "text": "y" * 50, "label": 0},
    ]
    msg = _error(rows, id_column="id", labels=LABELS, max_chars=10)
    assert msg.startswith("4 problems found")
    for part in ("duplicate ids", "empty or whitespace-only", "longer than", "'bogus'"):
        assert part in msg


def test_bad_label_names_argument():
    assert "unique" in _error(ROWS, labels=["a", "A"])
    assert "at least one" in _error(ROWS, labels=[])


# ------------------------------------------------------------------------------------------------
# Saving


@pytest.mark.parametrize("ext", [".jsonl", ".csv"])
def test_save_load_round_trip(tmp_path, ext):
    examples = [
        Example("a-1", 'He said "wow", twice\nand left.', 1, "train", {"has_shortcut": True, "n": 3}),
        Example("007", "café ✓", 0, "train", {"has_shortcut": False, "n": None}),
        Example("c", "no label yet", None, "train", {"has_shortcut": False, "n": 5}),
    ]
    path = save_examples(examples, tmp_path / "sub" / f"out{ext}")
    assert path.exists() and not list(path.parent.glob("*.tmp"))
    back = load_examples(path, id_column="id", labels=LABELS, require_labels=False)
    assert back == examples
    with pytest.raises(DataError, match="no label"):
        load_examples(path, id_column="id", labels=LABELS)


def test_saved_jsonl_has_the_documented_columns(tmp_path):
    path = save_examples([Example("x", "t", 1, "dev", {"id": "orig", "k": 1})], tmp_path / "o.jsonl")
    row = json.loads(path.read_text(encoding="utf-8"))
    assert row == {"id": "x", "text": "t", "label": 1, "split": "dev", "meta_id": "orig", "k": 1}


def test_save_rejects_unknown_extensions(tmp_path):
    with pytest.raises(DataError, match=r"\.jsonl"):
        save_examples([Example("x", "t", 1)], tmp_path / "out.txt")
