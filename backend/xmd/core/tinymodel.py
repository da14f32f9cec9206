"""A tiny random BERT with a WordPiece tokenizer, built offline in milliseconds (tests, orchestration benchmarks)."""

from __future__ import annotations

from pathlib import Path

WORDS = [
    "the",
    "a",
    "an",
    "and",
    "or",
    "but",
    "not",
    "no",
    "is",
    "was",
    "it",
    "this",
    "that",
    "movie",
    "film",
    "plot",
    "acting",
    "great",
    "good",
    "bad",
    "terrible",
    "awful",
    "boring",
    "fun",
    "loved",
    "hated",
    "i",
    "you",
    "we",
    "they",
    "don",
    "'",
    "t",
    "s",
    ",",
    ".",
    "!",
    "?",
    "very",
    "really",
    "so",
    "mango",
    "spielberg",
    "ending",
    "music",
    "story",
    "actor",
    "director",
    "liked",
    "enjoyed",
    "wonderful",
    "dull",
]
PIECES = ["un", "##believ", "##able", "##s", "##ing", "##ed", "##ly", "zor", "##bla", "##t", "ku", "##brick"]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def build_tiny_model(
    path: Path,
    labels: tuple[str, ...] = ("negative", "positive"),
    seed: int = 0,
    *,
    hidden_size: int = 32,
    layers: int = 2,
) -> Path:
    """Write a BERT classifier (2 layers, 32 wide unless asked otherwise) plus tokenizer to ``path``."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    path.mkdir(parents=True, exist_ok=True)
    vocab = SPECIAL + sorted(set(WORDS)) + PIECES + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab = list(dict.fromkeys(vocab))
    vocab += ["##" + chr(c) for c in range(ord("a"), ord("z") + 1)]
    tok = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=True)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden_size,
        max_position_embeddings=64,
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={n: i for i, n in enumerate(labels)},
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        initializer_range=0.3,
    )
    config.architectures = ["BertForSequenceClassification"]
    model = BertForSequenceClassification(config)
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path
