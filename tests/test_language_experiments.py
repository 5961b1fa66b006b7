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


# -- the sticky note on real text ---------------------------------------------------------------------------------

from seqviz.experiments.language import (known_word_share, lm_trace, readable_units,  # noqa: E402
                                         text_features, unit_correlations)


def test_text_features_by_hand():
    f = text_features("a “Hi” b\ncd")
    #                  a _ “ H i ” _ b \n c d
    assert f["inside quotes"].tolist() == [0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    assert f["position in line"].tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2]
    assert f["start of word"].tolist() == [1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0]
    assert text_features('x"y"z')["inside quotes"].tolist() == [0, 1, 1, 0, 0]   # straight quotes toggle
    with pytest.raises(ValueError, match="non-empty string"):
        text_features("")


def test_unit_correlations_match_numpy_and_pick_the_planted_unit():
    import numpy as np

    g = torch.Generator().manual_seed(0)
    feature = torch.randn(500, generator=g)
    acts = torch.randn(500, 6, generator=g)
    acts[:, 4] = -2 * feature + 0.1 * torch.randn(500, generator=g)   # a unit that follows the feature, sign flipped
    acts[:, 1] = 3.0                                                  # a constant unit: r = 0, not NaN
    r = unit_correlations(acts, feature)
    expected = [np.corrcoef(acts[:, j].numpy(), feature.numpy())[0, 1] for j in (0, 2, 3, 4, 5)]
    torch.testing.assert_close(r[[0, 2, 3, 4, 5]], torch.tensor(expected, dtype=torch.float), atol=1e-5, rtol=0)
    assert r[1] == 0
    best = readable_units({"h": torch.randn(500, 6, generator=g), "c": acts}, {"planted": feature})
    assert (best[0].feature, best[0].quantity, best[0].unit) == ("planted", "c", 4) and best[0].r < -0.95
    with pytest.raises(ValueError, match="expected activations"):
        unit_correlations(acts, feature[:10])


def test_lm_trace_equals_the_models_own_hidden_states():
    torch.manual_seed(0)
    model = GRULM(11, hidden_size=8, num_layers=2, cell="lstm").eval()
    ids = torch.randint(11, (40,))
    trace = lm_trace(model, ids, chunk=16)                 # 2 chunks of 16; the last 8 tokens are dropped
    assert set(trace) == {"h", "c", "forget", "input", "output", "candidate"} and trace["h"].shape == (32, 8)
    with torch.no_grad():
        reference = model.rnn(model.embedding(ids[:32].view(2, 16)))[0].reshape(32, 8)   # top layer, blank start
    torch.testing.assert_close(trace["h"], reference, atol=1e-5, rtol=0)
    assert lm_trace(GRULM(11, 8, cell="gru"), ids, chunk=8).keys() == {"h", "update", "reset", "candidate"}
    with pytest.raises(ValueError, match="needs a recurrent LM"):
        lm_trace(Uniform(11), ids)


def test_known_word_share():
    assert known_word_share("The whale, the sea and a zqx!", {"the", "whale", "sea", "and", "a"}) == pytest.approx(6 / 7)
    assert math.isnan(known_word_share("... !", {"the"}))
