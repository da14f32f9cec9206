"""The model card lists the corrected words readably, whatever shape the feedback counts come in."""

from xmd.core.modelcard import render_model_card


def test_top_words_are_rendered_as_words_with_counts():
    meta = {
        "kind": "debug",
        "base_model": "m",
        "labels": ["a", "b"],
        "feedback_counts": {"top_removed": [{"word": "spielberg", "count": 3}], "top_added": ["great"]},
    }
    card = render_model_card(meta)
    assert "Top removed words: `spielberg` (3)" in card
    assert "Top added words: `great`" in card
    assert "{'word'" not in card


def test_the_card_says_what_precision_the_training_ran_in():
    """The default precision (auto) depends on the training machine, so the card reads the run's record."""
    base = {"kind": "debug", "base_model": "m", "labels": ["a", "b"]}
    assert "- Precision: bf16 autocast (weights kept in float32)" in render_model_card(
        {**base, "history": {"bf16": True}}
    )
    assert "- Precision: float32" in render_model_card({**base, "history": {"bf16": False}})
    assert "- Precision: not recorded" in render_model_card(base)
