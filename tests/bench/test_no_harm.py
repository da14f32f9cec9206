"""The biased-sample protocol of ``bench/no_harm`` (issue 33 §1) on the real HateXplain files."""

from __future__ import annotations

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
