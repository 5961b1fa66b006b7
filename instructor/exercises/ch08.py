"""Chapter 8's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch08.py``)."""

from __future__ import annotations

import math

import torch

from seqviz.exercises.ch08 import CH08_EX5_CHOICES
from seqviz.models.mha import positional_encoding, scaled_dot_product_attention

from . import hidden, mistakes, solution, values
from .helpers import agree, randint, same, same_choice


def _attention_reference(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., Tq, Tk)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(-1)
    return weights @ v, weights


def _attention_unscaled(q, k, v, mask=None):
    return _attention_reference(q * math.sqrt(q.shape[-1]), k, v, mask)


def _attention_no_mask(q, k, v, mask=None):
    return _attention_reference(q, k, v, None)


def _attention_scaled_by_dv(q, k, v, mask=None):
    return _attention_reference(q * math.sqrt(q.shape[-1] / v.shape[-1]), k, v, mask)  # divides by sqrt(d_v)


def _attention_softmax_over_queries(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(-2)  # the wrong axis: each key's weights sum to 1
    return weights @ v, weights


def _window_reference(T, window):
    i = torch.arange(T)
    return (i[:, None] - i[None, :]).abs() <= window  # (T, T)


def _window_causal(T, window):
    i = torch.arange(T)
    d = i[:, None] - i[None, :]
    return (d >= 0) & (d <= window)


def _window_off_by_one(T, window):
    i = torch.arange(T)
    return (i[:, None] - i[None, :]).abs() < window


def _pe_reference(num_positions, d_model):
    pos = torch.arange(num_positions, dtype=torch.float64)[:, None]  # (P, 1)
    angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (P, d/2)
    return torch.stack([angle.sin(), angle.cos()], -1).flatten(1).float()  # (P, d): sin, cos interleaved


def _pe_swapped(num_positions, d_model):
    pe = _pe_reference(num_positions, d_model)
    return torch.stack([pe[:, 1::2], pe[:, 0::2]], -1).flatten(1)


def _pe_wrong_exponent(num_positions, d_model):
    pos = torch.arange(num_positions, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / 2 / d_model)
    return torch.stack([angle.sin(), angle.cos()], -1).flatten(1).float()


def _bytes_reference(batch_size, num_heads, n, bytes_per_number=4):
    return batch_size * num_heads * n * n * bytes_per_number


def _longest(budget_bytes, heads=12, bytes_per_number=4):
    return math.isqrt(budget_bytes // (heads * bytes_per_number))  # the largest n with 12 * 4 * n^2 <= budget


values("ch08", attention=scaled_dot_product_attention, window=_window_reference,
       positional_encoding=positional_encoding, attention_bytes=_bytes_reference, longest=_longest)
mistakes("ch08", "attention", attention_scaled_by_dv=_attention_scaled_by_dv, attention_unscaled=_attention_unscaled)

solution("ch08.ex1", lambda: _attention_reference,
         forbidden=("seqviz.models.mha.scaled_dot_product_attention",
                    "torch.nn.functional.scaled_dot_product_attention", "torch.nn.MultiheadAttention.forward",
                    "seqviz.models.mha.MultiHeadAttention.forward"),
         wrong={"unscaled": (lambda: _attention_unscaled, "by sqrt(d_k) before the softmax"),
                "no mask": (lambda: _attention_no_mask, "Masked positions get weight"),
                "scaled by d_v": (lambda: _attention_scaled_by_dv, "You divided by sqrt(d_v)"),
                "softmax over the queries": (lambda: _attention_softmax_over_queries, "along the last dimension")})
solution("ch08.ex2", lambda: _window_reference, wrong={
    "causal": (lambda: _window_causal, "on both sides"), "off by one": (lambda: _window_off_by_one, "on both sides"),
    "int tensor": (lambda: (lambda T, w: _window_reference(T, w).long()), "should be a bool tensor")})
solution("ch08.ex3", lambda: _pe_reference, forbidden=("seqviz.models.mha.positional_encoding",),
         wrong={"sin and cos swapped": (lambda: _pe_swapped, "Even columns 2i hold sin"),
                "exponent halved": (lambda: _pe_wrong_exponent, "Even columns 2i hold sin")})
solution("ch08.ex4", lambda: _bytes_reference, wrong={
    "linear": (lambda: (lambda B, h, n, b=4: B * h * n * b), "per batch row, head, query and key"),
    "one head": (lambda: (lambda B, h, n, b=4: B * n * n * b), "per batch row, head, query and key")})
solution("ch08.ex4b", lambda: _longest(16 * 10**9), wrong={
    "linear": (lambda: 16 * 10**9 // 48, "solve 12 * 4 * n^2"),
    "one head": (lambda: math.isqrt(16 * 10**9 // 4), "for one head"),
    "nan": (lambda: float("nan"), "NaN and infinities")})


@hidden("ch08.ex1")
def _hidden_attention(answer, g):
    for dtype in (torch.float64, torch.float32):
        B, Tq, Tk, d_k, d_v = randint(g, 1, 3), randint(g, 1, 6), randint(g, 2, 6), randint(g, 2, 9), 0
        while d_v in (0, d_k):
            d_v = randint(g, 1, 9)  # d_v != d_k: scaling by sqrt(d_v) is caught
        q, k = torch.randn(B, Tq, d_k, generator=g, dtype=dtype), torch.randn(B, Tk, d_k, generator=g, dtype=dtype)
        v = torch.randn(B, Tk, d_v, generator=g, dtype=dtype)
        mask = torch.rand(B, Tq, Tk, generator=g) < 0.7
        mask[..., 0] = True  # every query sees at least one key
        expected = _attention_reference(q, k, v, mask)
        ok, message = same(answer(q, k, v, mask), expected, f"attention with Tq={Tq}, Tk={Tk}, d_k={d_k}, d_v={d_v}")
        if not ok:
            return ok, message
    return True, "attention agrees with a random mask, Tq != Tk and d_v != d_k, in float64 and float32"


@hidden("ch08.ex2")
def _hidden_window(answer, g):
    from seqviz.exercises.registry import Feedback, as_tensor

    for T, w in ((1, 0), (randint(g, 2, 12), randint(g, 0, 4)), (3, 7)):
        expected = _window_reference(T, w)
        try:
            got = as_tensor(answer(T, w), expected, "the mask")
        except Feedback:
            got = None
        if got is None or got.dtype != torch.bool or got.shape != expected.shape or not torch.equal(got, expected):
            return False, f"sliding_window_mask({T}, {w}) is not the bool mask |i - j| <= window."
    return True, "the window mask is right for T = 1, a window of 0 and a window wider than the sequence"


@hidden("ch08.ex3")
def _hidden_sinusoidal(answer, g):
    for P, d in ((1, 2), (randint(g, 2, 80), 2 * randint(g, 1, 32))):
        got = answer(P, d)
        ok, message = same(got.float() if isinstance(got, torch.Tensor) else got, _pe_reference(P, d),
                           f"sinusoidal({P}, {d})", atol=1e-4)
        if not ok:
            return ok, message
    return True, "the table is right for one position and at another size"


@hidden("ch08.ex4")
def _hidden_bytes(answer, g):
    cases = [(randint(g, 1, 64), randint(g, 1, 32), randint(g, 1, 100_000)) for _ in range(5)]
    return agree(answer, _bytes_reference, cases, "attention_bytes", atol=0.5, rtol=0)


# ex5: h heads of width d/h hold 4 d^2 + 4 d parameters, whatever h
values("ch08", heads_parameters=lambda choices: choices[0])
solution("ch08.ex5", lambda: "a", wrong={"8 times": (lambda: "b", "not 64 x 64"),
                                        "an eighth": (lambda: "c", "fill the full width")})


@hidden("ch08.ex5")
def _hidden_heads_parameters(answer, g):
    return same_choice(answer, CH08_EX5_CHOICES, CH08_EX5_CHOICES[0])
