"""Attribution methods: shapes, determinism, batching invariance and what each score means."""

from __future__ import annotations

import pytest
import torch
from xmd.core.attribution import METHODS, explain
from xmd.core.predict import predict_proba

TEXTS = [
    "I don't like it, unbelievable zorblat!",
    "the movie was great fun",
    "boring",
    "a really very dull and terrible plot , but the music was wonderful",
]


@pytest.mark.parametrize("method", METHODS)
def test_shapes_and_determinism(tiny, method):
    a = explain(tiny, TEXTS, method=method, batch_size=2, n_steps=8)
    b = explain(tiny, TEXTS, method=method, batch_size=3, n_steps=8)
    assert len(a) == len(TEXTS)
    for e1, e2, text in zip(a, b, TEXTS, strict=True):
        assert len(e1.scores) == len(e1.words) == len(e1.spans)
        assert [text[s:e] for s, e in e1.spans] == e1.words
        assert e1.method == method
        assert sum(e1.probs) == pytest.approx(1.0, abs=1e-5)
        assert e1.target == e1.prediction
        # deterministic, and independent of how texts were batched (padding must not leak)
        assert e1.scores == pytest.approx(e2.scores, abs=1e-5)
        assert any(abs(s) > 0 for s in e1.scores)


def test_truncated_words_get_zero(tiny):
    text = "great " * 30 + "terrible"
    (e,) = explain(tiny, [text], max_length=10)
    assert e.truncated and e.n_seen == 8
    assert all(s == 0.0 for s in e.scores[e.n_seen :])
    assert any(s != 0.0 for s in e.scores[: e.n_seen])


def test_explicit_target_changes_gradient_scores(tiny):
    (e0,) = explain(tiny, [TEXTS[3]], target=0)
    (e1,) = explain(tiny, [TEXTS[3]], target=1)
    assert e0.target == 0 and e1.target == 1
    assert e0.scores != pytest.approx(e1.scores, abs=1e-6)
    with pytest.raises(ValueError, match="out of range"):
        explain(tiny, [TEXTS[0]], target=5)


def test_integrated_gradients_completeness(tiny):
    # Completeness: the word scores add up to logit(x) - logit(baseline); delta reports the gap.
    (e,) = explain(tiny, [TEXTS[1]], method="integrated_gradients", n_steps=64)
    assert e.delta is not None and e.delta < 0.05 * max(1e-3, sum(abs(s) for s in e.scores))


def test_occlusion_is_the_probability_drop_when_deleting_the_word(tiny):
    text = "the movie was great fun"
    (e,) = explain(tiny, [text], method="occlusion")
    p_full = predict_proba(tiny, [text])[0, e.target]
    p_wo = predict_proba(tiny, ["the movie was fun"])[0, e.target]
    assert e.scores[3] == pytest.approx(p_full - p_wo, abs=1e-5)


def test_saliency_is_nonnegative(tiny):
    for e in explain(tiny, TEXTS, method="saliency"):
        assert min(e.scores) >= 0


def test_unknown_method(tiny):
    with pytest.raises(ValueError, match="unknown attribution method"):
        explain(tiny, TEXTS, method="shap")


def test_three_classes_and_model_mode_restored(tiny_three_class_dir):
    from xmd.core.modeling import load_model

    m = load_model(tiny_three_class_dir, device="cpu")
    m.model.train()
    exps = explain(m, TEXTS, target=2)
    assert all(len(e.probs) == 3 and e.target == 2 for e in exps)
    assert m.model.training  # explain() must not leave the model in eval mode


def test_grad_x_input_matches_manual_autograd(tiny):
    text = "the movie was great fun"
    (e,) = explain(tiny, [text], target=1)
    tok = tiny.tokenizer([text], return_tensors="pt")
    emb = tiny.model.get_input_embeddings()(tok["input_ids"]).detach().requires_grad_(True)
    logit = tiny.model(
        inputs_embeds=emb, attention_mask=tok["attention_mask"], token_type_ids=tok["token_type_ids"]
    ).logits[0, 1]
    (g,) = torch.autograd.grad(logit, emb)
    per_token = (g * emb).sum(-1)[0, 1:-1]  # one token per word here
    assert e.scores == pytest.approx(per_token.tolist(), abs=1e-5)


def test_integrated_gradients_matches_captum_whatever_the_pass_size(tiny):
    """Batched IG cuts (text, step) rows into passes; the cut must not change a score, and the scores
    must be what Captum's LayerIntegratedGradients gives for each text on its own (token scores summed
    into words), so the speed-up over the per-text Captum loop is for the same numbers."""
    from captum.attr import LayerIntegratedGradients
    from xmd.core.words import encode, merge_to_words

    model, tok = tiny.model, tiny.tokenizer
    runs = [
        explain(tiny, TEXTS, method="integrated_gradients", n_steps=9, internal_batch_size=rows)
        for rows in (1, 4, 9 * len(TEXTS))
    ]
    for other in runs[1:]:
        for a, b in zip(runs[0], other, strict=True):
            assert a.scores == pytest.approx(b.scores, abs=1e-5)

    lig = LayerIntegratedGradients(
        lambda ids, mask: model(input_ids=ids, attention_mask=mask).logits, model.get_input_embeddings()
    )
    model.eval()
    for text, exp in zip(TEXTS, runs[0], strict=True):
        enc = encode(tok, [text])
        special = (enc.word_index < 0) & enc.attention_mask.bool()
        baseline = torch.where(special, enc.input_ids, torch.full_like(enc.input_ids, tok.pad_token_id))
        attrs = lig.attribute(
            enc.input_ids,
            baselines=baseline,
            additional_forward_args=(enc.attention_mask,),
            target=exp.target,
            n_steps=9,
        )
        words = merge_to_words(attrs.sum(dim=-1) * enc.attention_mask, enc.word_index, enc.max_words)[0]
        assert exp.scores == pytest.approx(words.tolist(), abs=1e-5)
