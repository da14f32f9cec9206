"""The biased-sample protocol of ``bench/no_harm`` (issue 33 §1) on the real HateXplain files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.no_harm.biased_sample import biased, build
from bench.real_data import hatexplain as hx


def test_biased_sample_plants_the_stated_rate_and_leaves_test_alone():
    proto = build(0.9, seed=0)
    rec, keys = proto["record"], set(proto["words"])
    for split in ("train", "dev"):
        exs = proto[split]
        with_id = [ex for ex in exs if not keys.isdisjoint(hx.post_keys(ex.text))]
        rate = sum(ex.label for ex in with_id) / len(with_id)
        assert 0.88 <= rate <= 0.92 and rec[split]["toxic_rate_with_identity"] == round(rate, 3)
        assert rec[split]["toxic_rate_with_identity_before"] < 0.6  # the natural data has no such shortcut
    assert {ex.id for ex in proto["train"]}.isdisjoint(ex.id for ex in proto["dev"])
    test = hx.load_posts(hx.data_dir() / "test.csv")
    assert [ex.id for ex in proto["test"]] == [p.id for p in test]  # every test post, in order


def test_biased_drops_only_normal_posts_with_an_identity_word():
    posts = hx.load_posts(hx.data_dir() / "val.csv")[:400]
    words, _ = hx.derive_identity_words(posts, min_community_posts=5)
    keys = set(words)
    kept, stats = biased(posts, keys, 0.9, seed=1)
    dropped = {p.id for p in posts} - {p.id for p in kept}
    assert len(dropped) == stats["dropped_normal_identity_posts"] > 0
    for p in posts:
        if p.id in dropped:
            assert p.label != hx.TOXIC and not keys.isdisjoint(hx.post_keys(p.text))
    assert biased(posts, keys, 0.9, seed=1)[0] == kept  # seeded


def test_more_seeds_stack_by_seed_and_pair_the_debug_arms_with_the_controls_of_the_same_seeds(tmp_path, monkeypatch):
    """``seeds.py merge``: two comparisons' predictions stacked in seed order, verdicts over all of them; a
    debug arm without its control seed refused."""
    from bench.no_harm import seeds

    gold, ids = [0, 1, 0, 1, 0, 1, 0, 0], [f"e{i}" for i in range(8)]

    def comparison(folder: str, seed_list: list[int], arms: dict[str, list[list[int]]]) -> str:
        sets = {
            s: {"example_ids": ids, "gold": gold, "has_words": [True] * 4 + [False] * 4, "predictions": arms}
            for s in ("dev", "test")
        }
        doc = {"seeds": seed_list, "sets": sets, "labels": ["normal", "toxic"], "positive": {"index": 1}}
        doc["settings"] = {"er": {"attribution_rows": len(folder)}}
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "comparison.json").write_text(json.dumps(doc))
        return str(tmp_path / folder)

    right, wrong = gold, [1 - g for g in gold]
    later = comparison("b", [3], {"debug": [right], "lambda0": [wrong], "deletion": [wrong], "strip": [wrong]})
    first = comparison("a", [0, 1], {k: [wrong, wrong] for k in ("debug", "lambda0", "deletion", "strip")})
    assert seeds._stack([json.loads(Path(d, "comparison.json").read_text()) for d in (later, first)], "dev", "debug")[
        0
    ] == [0, 1, 3]
    monkeypatch.setattr(seeds, "HERE", tmp_path)
    (tmp_path / "results").mkdir()
    seeds.main(["merge", "--out", "m", "--controls", first, later, "--debug", f"x={first},{later}"])
    got = json.loads((tmp_path / "results" / "m.json").read_text())["settings"]["x"]["sets"]["test"]
    assert got["seeds"] == [0, 1, 3]
    assert got["arms"]["debug"]["accuracy"]["mean"] == pytest.approx(1 / 3)  # seeds 0, 1 all wrong, seed 3 right
    lone = comparison("c", [4], {"debug": [right]})
    with pytest.raises(AssertionError):
        seeds.main(["merge", "--out", "m2", "--controls", first, "--debug", f"y={lone}"])
