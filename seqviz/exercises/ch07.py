"""Exercises of chapter 07, Bahdanau attention (registered on import).

- ch07.ex1: additive attention weights by hand, with a padding mask;
- ch07.ex2: the context vector from weights and encoder states;
- ch07.ex3: how many parameters additive attention adds.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import torch

from ..models.attention import AdditiveAttention, padding_mask
from ..measure import count_parameters
from .hidden import agree, hidden_test, randint, same
from .registry import as_number, compare_tensors, exercise

# -- ex1: the weights ---------------------------------------------------------------------------


def _weights_reference(query, keys, mask, W_query, W_key, b_key, v):
    e = torch.tanh((query @ W_query.T)[:, None, :] + keys @ W_key.T + b_key) @ v  # (B, S)
    return e.masked_fill(~mask, float("-inf")).softmax(-1)


def _weights_no_mask(query, keys, mask, W_query, W_key, b_key, v):
    return (torch.tanh((query @ W_query.T)[:, None, :] + keys @ W_key.T + b_key) @ v).softmax(-1)


def _weights_dot(query, keys, mask, W_query, W_key, b_key, v):
    e = ((query @ W_query.T)[:, None, :] * (keys @ W_key.T + b_key)).sum(-1)
    return e.masked_fill(~mask, float("-inf")).softmax(-1)


@exercise("ch07.ex1", "Additive attention by hand", reference=lambda: _weights_reference,
          wrong=[lambda: _weights_no_mask, lambda: _weights_dot])
def check_weights(answer):
    if not callable(answer):
        return False, "answer should be your function additive_weights(query, keys, mask, W_query, W_key, b_key, v)."
    g = torch.Generator().manual_seed(9)  # its own generator: the caller's random numbers stay as they were
    for B, S, Hq, Hk, A in ((3, 5, 4, 6, 7), (2, 3, 2, 2, 3)):
        att = AdditiveAttention(Hq, Hk, A)
        with torch.no_grad():
            for p in att.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.5)
        query, keys = torch.randn(B, Hq, generator=g), torch.randn(B, S, Hk, generator=g)
        mask = padding_mask(torch.tensor([S, *([max(1, S - 2)] * (B - 1))]), S)
        with torch.no_grad():
            _, expected = att(query, keys, mask)
            got = answer(query, keys, mask, att.query_proj.weight, att.key_proj.weight, att.key_proj.bias, att.v.weight[0])
        ok, message = compare_tensors(got, expected, "the attention weights")
        if not ok:
            if isinstance(got, torch.Tensor) and got.shape == expected.shape and (got[~mask] > 0).any():
                message += " Padding gets weight: set the scores of masked positions to -inf before the softmax."
            return False, message
    return True, "your weights equal AdditiveAttention's, and padding gets exactly zero."


@hidden_test("ch07.ex1")
def _hidden_additive(answer, g):
    B, S, Hq, Hk, A = randint(g, 1, 4), randint(g, 1, 6), randint(g, 1, 5), randint(g, 1, 5), randint(g, 1, 6)
    att = AdditiveAttention(Hq, Hk, A)
    query, keys = torch.randn(B, Hq, generator=g), torch.randn(B, S, Hk, generator=g)
    mask = padding_mask(torch.randint(1, S + 1, (B,), generator=g), S)
    with torch.no_grad():
        _, expected = att(query, keys, mask)
        got = answer(query, keys, mask, att.query_proj.weight, att.key_proj.weight, att.key_proj.bias, att.v.weight[0])
    return same(got, expected, f"additive_weights with B={B}, S={S}, Hq={Hq}, Hk={Hk}, A={A}")


# -- ex2: the context ---------------------------------------------------------------------------


def _context_reference(weights, keys):
    return torch.bmm(weights[:, None, :], keys).squeeze(1)  # (B, H)


@exercise("ch07.ex2", "The context vector", reference=lambda: _context_reference,
          wrong=[lambda: (lambda w, k: k.sum(1)), lambda: (lambda w, k: k.mean(1))])
def check_context(answer):
    if not callable(answer):
        return False, "answer should be your function context(weights, keys)."
    g = torch.Generator().manual_seed(10)
    for B, S, H in ((3, 5, 4), (1, 2, 6)):
        weights = torch.randn(B, S, generator=g).softmax(-1)
        keys = torch.randn(B, S, H, generator=g)
        ok, message = compare_tensors(answer(weights, keys), _context_reference(weights, keys), "the context")
        if not ok:
            return False, message + " The context is the weighted average: sum over j of weights[:, j] * keys[:, j]."
    return True, "the context is the average of the encoder states, weighted by the attention."


@hidden_test("ch07.ex2")
def _hidden_context(answer, g):
    B, S, H = randint(g, 1, 4), randint(g, 1, 6), randint(g, 1, 5)
    case = (torch.randn(B, S, generator=g).softmax(-1), torch.randn(B, S, H, generator=g))
    return agree(answer, _context_reference, [case], "context")


# -- ex3: parameters ----------------------------------------------------------------------------


def _count_reference(query_size, key_size, attention_size):
    return query_size * attention_size + key_size * attention_size + attention_size + attention_size


@exercise("ch07.ex3", "What attention costs", reference=lambda: _count_reference,
          wrong=[lambda: (lambda q, k, a: q * a + k * a + a), lambda: (lambda q, k, a: q * a + k * a)])
def check_count(answer):
    if not callable(answer):
        return False, "answer should be your function attention_parameters(query_size, key_size, attention_size)."
    for q, k, a in ((1, 1, 1), (64, 128, 64), (5, 7, 3)):
        expected = count_parameters(AdditiveAttention(q, k, a))
        got = as_number(answer(q, k, a), "an int")
        if got != expected:
            return False, (f"AdditiveAttention({q}, {k}, {a}) has {expected} parameters, you count {got:g}. Count "
                           "W_query, W_key with its bias b, and v.")
    return True, "a few thousand parameters buy the decoder a look at every source word; none depends on the length."


@hidden_test("ch07.ex3")
def _hidden_attention_count(answer, g):
    cases = [(randint(g, 1, 100), randint(g, 1, 100), randint(g, 1, 100)) for _ in range(4)]
    return agree(answer, lambda q, k, a: count_parameters(AdditiveAttention(q, k, a)), cases,
                 "attention_parameters")
