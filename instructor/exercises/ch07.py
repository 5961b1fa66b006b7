"""Chapter 7's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch07.py``)."""

from __future__ import annotations

import torch

from seqviz.measure import count_parameters
from seqviz.models.attention import AdditiveAttention, padding_mask

from . import hidden, solution, values
from .helpers import agree, randint, same


def _additive_attention(query, keys, mask, W_query, W_key, b_key, v):
    """seqviz's AdditiveAttention holding these weights: its attention weights."""
    att = AdditiveAttention(W_query.shape[1], W_key.shape[1], W_query.shape[0])
    with torch.no_grad():
        att.query_proj.weight.copy_(W_query)
        att.key_proj.weight.copy_(W_key)
        att.key_proj.bias.copy_(b_key)
        att.v.weight.copy_(v[None])
        return att(query, keys, mask)[1]


def _weights_reference(query, keys, mask, W_query, W_key, b_key, v):
    e = torch.tanh((query @ W_query.T)[:, None, :] + keys @ W_key.T + b_key) @ v  # (B, S)
    return e.masked_fill(~mask, float("-inf")).softmax(-1)


def _weights_no_mask(query, keys, mask, W_query, W_key, b_key, v):
    return (torch.tanh((query @ W_query.T)[:, None, :] + keys @ W_key.T + b_key) @ v).softmax(-1)


def _weights_dot(query, keys, mask, W_query, W_key, b_key, v):
    e = ((query @ W_query.T)[:, None, :] * (keys @ W_key.T + b_key)).sum(-1)
    return e.masked_fill(~mask, float("-inf")).softmax(-1)


def _context_reference(weights, keys):
    return torch.bmm(weights[:, None, :], keys).squeeze(1)  # (B, H)


def _count_reference(query_size, key_size, attention_size):
    return query_size * attention_size + key_size * attention_size + attention_size + attention_size


values("ch07", additive_weights=_additive_attention, context=_context_reference,
       attention_parameters=lambda q, k, a: count_parameters(AdditiveAttention(q, k, a)))

solution("ch07.ex1", lambda: _weights_reference, forbidden=("seqviz.models.attention.AdditiveAttention.forward",),
         wrong={"no mask": (lambda: _weights_no_mask, "Padding gets weight"),
                "dot product": (lambda: _weights_dot, "differs from the reference")})
solution("ch07.ex2", lambda: _context_reference, wrong={
    "sum": (lambda: (lambda w, k: k.sum(1)), "the weighted average"),
    "mean": (lambda: (lambda w, k: k.mean(1)), "the weighted average")})
solution("ch07.ex3", lambda: _count_reference,
         forbidden=("seqviz.models.attention.AdditiveAttention.__init__", "seqviz.measure.count_parameters"), wrong={
    "one bias short": (lambda: (lambda q, k, a: q * a + k * a + a), "W_key with its bias"),
    "no bias, no v": (lambda: (lambda q, k, a: q * a + k * a), "and v")})


@hidden("ch07.ex1")
def _hidden_additive(answer, g):
    B, S, Hq, Hk, A = randint(g, 1, 4), randint(g, 2, 6), randint(g, 1, 5), randint(g, 1, 5), randint(g, 1, 6)
    W_query, W_key = torch.randn(A, Hq, generator=g), torch.randn(A, Hk, generator=g)
    b_key = torch.randn(A, generator=g)
    v = torch.randn(A, generator=g)
    query, keys = torch.randn(B, Hq, generator=g), torch.randn(B, S, Hk, generator=g)
    lengths = torch.randint(1, S + 1, (B,), generator=g)
    lengths[-1] = randint(g, 1, S - 1)  # at least one padded sequence
    mask = padding_mask(lengths, S)
    expected = _additive_attention(query, keys, mask, W_query, W_key, b_key, v)
    with torch.no_grad():
        got = answer(query, keys, mask, W_query, W_key, b_key, v)
    return same(got, expected, f"additive_weights with B={B}, S={S}, Hq={Hq}, Hk={Hk}, A={A}")


@hidden("ch07.ex2")
def _hidden_context(answer, g):
    B, S, H = randint(g, 1, 4), randint(g, 1, 6), randint(g, 1, 5)
    case = (torch.randn(B, S, generator=g).softmax(-1), torch.randn(B, S, H, generator=g))
    return agree(answer, _context_reference, [case], "context")


@hidden("ch07.ex3")
def _hidden_attention_count(answer, g):
    cases = [(randint(g, 1, 100), randint(g, 1, 100), randint(g, 1, 100)) for _ in range(4)]
    return agree(answer, lambda q, k, a: count_parameters(AdditiveAttention(q, k, a)), cases,
                 "attention_parameters")

values("ch07", reverse_look=lambda choices: choices[1])
solution("ch07.ex4", lambda: "b", wrong={"first word": (lambda: "a", "copying translator"),
                                         "evenly": (lambda: "c", "average")})
