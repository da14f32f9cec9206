"""A model card links the dataset of its feedback (issue 32 §6): in its metadata, where the Hub shows it
beside the model, and in a section; a second link replaces the first instead of adding another."""

from xmd.core.modelcard import link_feedback_dataset, render_base_card, render_feedback_card

URL = "https://hub.example/datasets/u/m-feedback"


def test_the_link_goes_into_the_metadata_and_a_section_once():
    card = render_base_card({"name": "m", "labels": ["a", "b"], "base_model": "bert-base"}, {})
    linked = link_feedback_dataset(card, "u/m-feedback", URL)
    head, _, body = linked.removeprefix("---\n").partition("\n---\n")
    assert "datasets:\n- u/m-feedback" in head and "library_name: transformers" in head  # the rest kept
    assert f"[`u/m-feedback`]({URL})" in body and "## How to load" in body
    again = link_feedback_dataset(linked, "u/m-feedback", URL)
    assert again == linked  # idempotent: a second push of the feedback changes nothing
    moved = link_feedback_dataset(linked, "u/m-feedback-2", URL + "-2")
    assert moved.count("## Feedback dataset") == 1 and "(" + URL + "-2)" in moved
    assert "- u/m-feedback\n- u/m-feedback-2" in moved  # metadata keeps both datasets


def test_a_card_without_metadata_gets_some():
    linked = link_feedback_dataset("# A model\n\nHand-written.\n", "u/m-feedback", URL)
    assert linked.startswith("---\ndatasets:\n- u/m-feedback\n---\n") and "Hand-written." in linked


def test_the_datasets_card_names_its_model_and_how_to_load_it():
    card = render_feedback_card(
        {
            "model_repo": "u/m",
            "model_url": "https://hub.example/u/m",
            "repo_id": "u/m-feedback",
            "policy": "at_least_k",
            "k": 2,
        }
    )
    assert "[`u/m`](https://hub.example/u/m)" in card and "policy `at_least_k (k = 2)`" in card
    assert 'snapshot_download("u/m-feedback", repo_type="dataset")' in card
