"""Sampling (seqviz.decode.sample): temperature, top-k and the inverse CDF, against hand-computed numbers.

A tiny bigram model whose next-token logits are a fixed table row (the last token's) gives distributions
worked out by hand; a random GRULM checks top-k = 1 against argmax decoding with the full forward pass,
and a small temperature against it. Empirical frequencies over 4,000 draws match the distribution within
0.03 per token (about 4 standard errors: sqrt(0.25 / 4000) = 0.008).
"""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from seqviz.decode import Sample, sample
from seqviz.models import GRULM
from seqviz.sampling import choose, distribution

P = (0.2, 0.5, 0.3)   # the next-token distribution after every token of the toy model


class Bigram(nn.Module):
    """Logits = log of a table row chosen by the last token: prefill/step as GRULM has them."""

    def __init__(self, table):
        super().__init__()
        self.logits = nn.Parameter(torch.tensor(table, dtype=torch.float32).log())  # (V, V)

    def prefill(self, ids):
        return self.logits[ids[:, -1]], None  # (1, V)

    def step(self, ids, state):
        return self.logits[ids[:, 0]], state


def toy():
    return Bigram([P, P, P])


def test_the_inverse_cdf_walks_the_kept_tokens_in_id_order():
    # p = (0.2, 0.5, 0.3): running sums 0.2, 0.7, 1.0
    drawn = sample(toy(), [0], 4, uniforms=[0.1, 0.25, 0.69, 0.71])
    assert isinstance(drawn, Sample) and drawn.ids == [0, 1, 1, 2]
    assert drawn.probs == pytest.approx([0.2, 0.5, 0.5, 0.3], abs=1e-6)
    # top-2 keeps ids 1 and 2: (0, 5/8, 3/8), running sums 0, 0.625, 1
    drawn = sample(toy(), [0], 3, top_k=2, uniforms=[0.0, 0.62, 0.63])
    assert drawn.ids == [1, 1, 2] and drawn.probs == pytest.approx([5 / 8, 5 / 8, 3 / 8], abs=1e-6)
    assert drawn.distributions[0].tolist() == pytest.approx([0.0, 5 / 8, 3 / 8], abs=1e-6)
    # temperature 0.5 squares the probabilities: (0.04, 0.25, 0.09) / 0.38
    drawn = sample(toy(), [2], 2, temperature=0.5, uniforms=[0.1, 0.9])
    hand = [0.04 / 0.38, 0.25 / 0.38, 0.09 / 0.38]
    assert drawn.distributions[0].tolist() == pytest.approx(hand, abs=1e-6)
    assert drawn.ids == [0, 2] and drawn.probs == pytest.approx([hand[0], hand[2]], abs=1e-6)
    assert drawn.mean_log_prob == pytest.approx((math.log(hand[0]) + math.log(hand[2])) / 2, abs=1e-6)


def test_ties_keep_the_lower_id_and_rounding_never_picks_an_impossible_token():
    p = distribution(torch.tensor([1.0, 3.0, 3.0, 3.0]), top_k=2)
    assert p.tolist() == [0.0, 0.5, 0.5, 0.0]
    assert choose(torch.tensor([0.0, 0.5, 0.5, 0.0], dtype=torch.float64), 0.9999999999) == 2
    tenths = torch.tensor([0.1] * 10 + [0.0], dtype=torch.float64)   # their running sum ends just below 1
    assert choose(tenths, math.nextafter(1.0, 0.0)) == 9   # rounding left the sum below u: the last possible token


def test_probs_are_the_chosen_tokens_probabilities_and_stop_ids_stop():
    model = Bigram([(0.1, 0.6, 0.3), (0.5, 0.25, 0.25), (0.2, 0.2, 0.6)])
    drawn = sample(model, torch.tensor([[0]]), 30, temperature=1.3, top_k=2, generator=torch.Generator().manual_seed(1))
    assert len(drawn.ids) == 30 and len(drawn.uniforms) == 30
    for token, prob, dist in zip(drawn.ids, drawn.probs, drawn.distributions):
        assert prob == dist[token].item() and prob > 0
        assert (dist > 0).sum() == 2 and dist.sum().item() == pytest.approx(1.0, abs=1e-12)
    first = distribution(model.logits[0].detach(), 1.3, 2)
    row = torch.tensor([0.1, 0.6, 0.3], dtype=torch.float64) ** (1 / 1.3)
    assert first.tolist() == pytest.approx((torch.tensor([0, 1, 1]) * row / (row[1] + row[2])).tolist(), abs=1e-7)
    # from 0: sums 0.1, 0.7, 1 (u 0.5 -> 1); from 1: sums 0.5, 0.75, 1 (u 0.55 -> 1, 0.95 -> 2)
    stopped = sample(model, [0], 30, uniforms=[0.5, 0.55, 0.95] + [0.1] * 27, stop_ids=[2])
    assert stopped.ids == [1, 1, 2] and stopped.probs == pytest.approx([0.6, 0.25, 0.25], abs=1e-6)


def test_empirical_frequencies_match_the_distribution():
    n = 4000
    drawn = sample(toy(), [1], n, temperature=0.8, generator=torch.Generator().manual_seed(0))
    expected = distribution(torch.tensor(P).log(), 0.8)
    counts = torch.bincount(torch.tensor(drawn.ids), minlength=3).double() / n
    assert (counts - expected).abs().max() < 0.03, (counts, expected)
    uniform = sample(toy(), [1], n, top_k=2, uniforms=torch.rand(n, generator=torch.Generator().manual_seed(2)))
    counts = torch.bincount(torch.tensor(uniform.ids), minlength=3).double() / n
    assert counts[0] == 0 and abs(counts[1] - 5 / 8) < 0.03


def gru_lm(cell="gru", layers=2, seed=0):
    torch.manual_seed(seed)
    model = GRULM(11, 16, layers, cell=cell).eval()
    with torch.no_grad():
        model.out.weight.mul_(10)   # logits far apart, as a trained model's are
    return model


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_top_k_one_is_argmax_decoding_with_the_full_forward_pass(cell):
    model, prompt = gru_lm(cell), [3, 1, 4, 1, 5]
    drawn = sample(model, prompt, 12, top_k=1, generator=torch.Generator().manual_seed(0))
    ids = list(prompt)
    with torch.no_grad():
        for _ in range(12):
            ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
    assert drawn.ids == ids[len(prompt):] and drawn.probs == [1.0] * 12
    on_argmax = [sample(model, prompt, 1, temperature=t, top_k=None, uniforms=[0.5]).distributions[0, drawn.ids[0]]
                 for t in (1.0, 0.3, 0.1, 0.03)]
    assert all(a < b for a, b in zip(on_argmax, on_argmax[1:])), on_argmax   # mass moves onto the argmax
    cold = sample(model, prompt, 12, temperature=1e-4, uniforms=torch.rand(12, generator=torch.Generator().manual_seed(3)))
    assert cold.ids == drawn.ids and min(cold.probs) > 0.99   # a small temperature approaches greedy
    hot = sample(model, prompt, 12, temperature=1e3, uniforms=[0.5] * 12)
    assert max(hot.distributions[0]).item() < 1.5 / 11   # a large one flattens the distribution


def test_the_uniforms_decide_and_a_generator_repeats():
    model = gru_lm()
    a = sample(model, [1, 2], 20, generator=torch.Generator().manual_seed(5))
    b = sample(model, [1, 2], 20, uniforms=a.uniforms)
    c = sample(model, torch.tensor([1, 2]), 20, generator=torch.Generator().manual_seed(5))
    assert a.ids == b.ids == c.ids and a.probs == b.probs


def test_bad_arguments_say_what_is_expected():
    model = toy()
    with pytest.raises(ValueError, match="temperature must be a number > 0"):
        sample(model, [0], 3, temperature=0)
    with pytest.raises(ValueError, match="temperature must be a number > 0"):
        sample(model, [0], 3, temperature=-1.0)
    with pytest.raises(ValueError, match=r"top_k must be None .* 1\.\.3"):
        sample(model, [0], 3, top_k=4)
    with pytest.raises(ValueError, match=r"top_k must be"):
        sample(model, [0], 3, top_k=0)
    with pytest.raises(ValueError, match="prompt is empty"):
        sample(model, [], 3)
    with pytest.raises(ValueError, match="steps must be an int >= 1"):
        sample(model, [0], 0)
    with pytest.raises(ValueError, match="at least steps = 3"):
        sample(model, [0], 3, uniforms=[0.1])
    with pytest.raises(ValueError, match="outside"):
        sample(model, [0], 1, uniforms=[1.0])
    with pytest.raises(ValueError, match="prefill"):
        sample(nn.Linear(2, 2), [0], 1)


def test_sample_runs_where_the_model_is():
    from emulated_accelerator import emulated_accelerator

    model = gru_lm("lstm")
    expected = sample(model, [1, 2, 3], 8, uniforms=[0.3] * 8)
    with emulated_accelerator():
        model.to("cuda")
        got = sample(model, [1, 2, 3], 8, uniforms=[0.3] * 8)
    assert got.ids == expected.ids and got.probs == pytest.approx(expected.probs, abs=1e-6)
    assert got.distributions.device.type == "cpu"
