"""seqviz.experiments.language: perplexity, n-gram baselines and LM training, checked against references."""

from __future__ import annotations

import math

import pytest
import torch

from seqviz.experiments.language import (encode_text, ngram_perplexity, perplexity, text_vocab, tokens_of,
                                         train_lm, windows)
from seqviz.models import GRULM


class Uniform(torch.nn.Module):
    """Every next token equally likely: perplexity = vocabulary size."""

    def __init__(self, V):
        super().__init__()
        self.V, self.w = V, torch.nn.Parameter(torch.zeros(1))

    def forward(self, ids):
        return torch.zeros(*ids.shape, self.V) + self.w


def test_vocab_and_encoding_at_both_levels():
    text = "Call me Ishmael. Call me!"
    chars = text_vocab(text, "char")
    assert len(chars) == len(set(text)) + 1 and chars.itos[0] == "<unk>"
    assert encode_text("Call", chars).tolist() == chars.encode(list("Call"))
    words = text_vocab(text, "word", min_count=2)
    assert tokens_of(text, "word") == ["call", "me", "ishmael", ".", "call", "me", "!"]
    assert encode_text("call ishmael", words, "word").tolist() == [words.stoi["call"], words.stoi["<unk>"]]
    with pytest.raises(ValueError, match="level"):
        text_vocab(text, "byte")


def test_windows_are_shifted_by_one():
    x, y = windows(torch.arange(10), 4)
    assert x.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]] and y.tolist() == [[1, 2, 3, 4], [5, 6, 7, 8]]
    with pytest.raises(ValueError, match="needs at least"):
        windows(torch.arange(3), 4)


def test_perplexity_of_a_uniform_model_is_the_vocabulary_size():
    assert perplexity(Uniform(7), torch.randint(7, (200,)), seq_len=10) == pytest.approx(7, rel=1e-6)


def test_ngram_baselines_match_hand_counts():
    train, test = torch.tensor([0, 1, 0, 1, 0, 2]), torch.tensor([0, 1, 2])
    counts = torch.tensor([3, 2, 1]) + 1.0                     # add-one unigram
    p = counts / counts.sum()
    assert ngram_perplexity(train, test, 3, n=1) == pytest.approx(math.exp(-p[test].log().mean().item()))
    # bigram, add-one: P(1|0) = (2+1)/(3+3), P(2|1) = (0+1)/(2+3)
    assert ngram_perplexity(train, test, 3, n=2) == pytest.approx(math.exp(-(math.log(3 / 6) + math.log(1 / 5)) / 2))
    with pytest.raises(ValueError, match="n must be"):
        ngram_perplexity(train, test, 3, n=3)


def test_training_lowers_perplexity_below_the_unigram_baseline():
    text = "abcabcabd" * 60
    vocab = text_vocab(text)
    ids = encode_text(text, vocab)
    model = GRULM(len(vocab), hidden_size=16)
    run = train_lm(model, ids[:400], ids[400:], steps=60, seq_len=16, batch_size=16, lr=1e-2, device="cpu",
                   progress=False)
    assert [r["step"] for r in run.curve] == [12, 24, 36, 48, 60]
    assert all(b["seconds"] >= a["seconds"] for a, b in zip(run.curve, run.curve[1:]))
    assert run.valid_ppl < 0.7 * ngram_perplexity(ids[:400], ids[400:], len(vocab), n=1)
