"""Exercises of chapter 08, the Transformer (registered on import).

- ch08.ex1: scaled dot-product attention by hand, with a mask;
- ch08.ex2: a sliding-window (Longformer-style) mask;
- ch08.ex3: the sinusoidal positional encoding from its formula;
- ch08.ex4: the memory the attention weights take; ch08.ex4b: the length at which one layer's weights fill 16 GB.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import math

import torch

from ..models.mha import causal_mask, positional_encoding, scaled_dot_product_attention
from .hidden import agree, hidden_test, randint, same
from .registry import as_number, as_sequence, compare_tensors, exercise

# -- ex1: attention ------------------------------------------------------------------------------


def _attention_reference(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., Tq, Tk)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(-1)
    return weights @ v, weights


def _attention_unscaled(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(-1)
    return weights @ v, weights


def _attention_no_mask(q, k, v, mask=None):
    return _attention_reference(q, k, v, None)


def _attention_scaled_by_dv(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])  # the size of the values, not of the keys
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(-1)
    return weights @ v, weights


# (q shape, k shape, v shape, mask): d_v differs from d_k, Tq from Tk, and a 4-D batch of heads
_ATTENTION_CASES = (((2, 5, 16), (2, 7, 16), (2, 7, 4), None),
                    ((3, 4, 8), (3, 4, 8), (3, 4, 3), "causal"),
                    ((1, 6, 4), (1, 6, 4), (1, 6, 9), "causal"),
                    ((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 2), "padding"))


def _attention_mask(kind, q_shape, k_shape):
    if kind == "causal":
        return causal_mask(q_shape[-2])  # (T, T)
    if kind == "padding":
        keep = torch.ones(k_shape[0], 1, 1, k_shape[-2], dtype=torch.bool)  # (B, 1, 1, Tk): broadcast
        keep[0, ..., -2:] = False
        return keep
    return None


@exercise("ch08.ex1", "Scaled dot-product attention", reference=lambda: _attention_reference,
          wrong=[lambda: _attention_unscaled, lambda: _attention_no_mask, lambda: _attention_scaled_by_dv])
def check_attention(answer):
    if not callable(answer):
        return False, "answer should be your function attention(q, k, v, mask=None) returning (out, weights)."
    g = torch.Generator().manual_seed(8)
    for q_shape, k_shape, v_shape, kind in _ATTENTION_CASES:
        q, k, v = (torch.randn(*shape, generator=g) for shape in (q_shape, k_shape, v_shape))
        mask = _attention_mask(kind, q_shape, k_shape)
        expected_out, expected_w = scaled_dot_product_attention(q, k, v, mask)
        result = as_sequence(answer(q, k, v, mask), 2, "your result (out, weights)")
        ok, message = compare_tensors(result[1], expected_w, f"the weights (q {q_shape}, k {k_shape}, v {v_shape})")
        if not ok:
            same_shape = isinstance(result[1], torch.Tensor) and result[1].shape == expected_w.shape
            if mask is not None and same_shape and (result[1].detach() * ~mask > 0).any():
                message += " Masked positions get weight: fill their scores with -inf before the softmax."
            elif same_shape and torch.allclose(result[1].detach(), _attention_scaled_by_dv(q, k, v, mask)[1]):
                message += " You divided by sqrt(d_v), the size of the values: the scale is sqrt(d_k), of q and k."
            elif same_shape:
                message += " Did you divide the scores by sqrt(d_k)?"
            return False, message
        ok, message = compare_tensors(result[0], expected_out, "the output")
        if not ok:
            return False, message + " The output is weights @ v."
    return True, "softmax(q k^T / sqrt(d)) v, with masked keys at exactly zero weight."


@hidden_test("ch08.ex1")
def _hidden_attention(answer, g):
    for dtype in (torch.float64, torch.float32):
        B, Tq, Tk, d_k, d_v = randint(g, 1, 3), randint(g, 1, 6), randint(g, 2, 6), randint(g, 2, 9), 0
        while d_v in (0, d_k):
            d_v = randint(g, 1, 9)  # d_v != d_k: scaling by sqrt(d_v) is caught
        q, k = torch.randn(B, Tq, d_k, generator=g, dtype=dtype), torch.randn(B, Tk, d_k, generator=g, dtype=dtype)
        v = torch.randn(B, Tk, d_v, generator=g, dtype=dtype)
        mask = torch.rand(B, Tq, Tk, generator=g) < 0.7
        mask[..., 0] = True  # every query sees at least one key
        expected = scaled_dot_product_attention(q, k, v, mask)
        ok, message = same(answer(q, k, v, mask), expected, f"attention with Tq={Tq}, Tk={Tk}, d_k={d_k}, d_v={d_v}")
        if not ok:
            return ok, message
    return True, "attention agrees with a random mask, Tq != Tk and d_v != d_k, in float64 and float32"


# -- ex2: a sliding window ------------------------------------------------------------------------


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


@exercise("ch08.ex2", "A sliding-window mask", reference=lambda: _window_reference,
          wrong=[lambda: _window_causal, lambda: _window_off_by_one])
def check_window(answer):
    if not callable(answer):
        return False, "answer should be your function sliding_window_mask(T, window)."
    for T, w in ((6, 1), (8, 2), (5, 0), (4, 10)):
        got = answer(T, w)
        if not isinstance(got, torch.Tensor) or got.dtype != torch.bool or got.shape != (T, T):
            what = f"{tuple(got.shape)} {got.dtype}" if isinstance(got, torch.Tensor) else type(got).__name__
            return False, f"sliding_window_mask({T}, {w}) should be a bool tensor ({T}, {T}), got {what}."
        expected = _window_reference(T, w)
        if not torch.equal(got, expected):
            wrong = (got != expected).nonzero()[0].tolist()
            return False, (f"sliding_window_mask({T}, {w}) is wrong at query {wrong[0]}, key {wrong[1]}: it should be "
                           f"{bool(expected[wrong[0], wrong[1]])}. Position i may see j when |i - j| <= window, "
                           "on both sides.")
    return True, "each query sees 2 * window + 1 keys: the cost grows like n * window, not n^2."


@hidden_test("ch08.ex2")
def _hidden_window(answer, g):
    for T, w in ((1, 0), (randint(g, 2, 12), randint(g, 0, 4)), (3, 7)):
        got, expected = answer(T, w), _window_reference(T, w)
        if not isinstance(got, torch.Tensor) or got.shape != expected.shape or not torch.equal(got.bool(), expected):
            return False, f"sliding_window_mask({T}, {w}) differs from |i - j| <= window."
    return True, "the window mask is right for T = 1, a window of 0 and a window wider than the sequence"


# -- ex3: the positional encoding -----------------------------------------------------------------


def _pe_reference(num_positions, d_model):
    return positional_encoding(num_positions, d_model)


def _pe_swapped(num_positions, d_model):
    pe = positional_encoding(num_positions, d_model)
    return torch.stack([pe[:, 1::2], pe[:, 0::2]], -1).flatten(1)


def _pe_wrong_exponent(num_positions, d_model):
    pos = torch.arange(num_positions, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / 2 / d_model)
    return torch.stack([angle.sin(), angle.cos()], -1).flatten(1).float()


@exercise("ch08.ex3", "The sinusoidal positional encoding", reference=lambda: _pe_reference,
          wrong=[lambda: _pe_swapped, lambda: _pe_wrong_exponent])
def check_pe(answer):
    if not callable(answer):
        return False, "answer should be your function sinusoidal(num_positions, d_model)."
    for P, d in ((10, 4), (50, 16)):
        got = answer(P, d)
        if isinstance(got, torch.Tensor):
            got = got.float()
        ok, message = compare_tensors(got, positional_encoding(P, d), f"sinusoidal({P}, {d})", atol=1e-4)
        if not ok:
            return False, message + " Even columns 2i hold sin(pos / 10000^(2i/d)), odd columns 2i+1 the cosine."
    return True, "each pair of columns is a clock hand turning at its own speed."


@hidden_test("ch08.ex3")
def _hidden_sinusoidal(answer, g):
    for P, d in ((1, 2), (randint(g, 2, 80), 2 * randint(g, 1, 32))):
        got = answer(P, d)
        ok, message = same(got.float() if isinstance(got, torch.Tensor) else got, positional_encoding(P, d),
                           f"sinusoidal({P}, {d})", atol=1e-4)
        if not ok:
            return ok, message
    return True, "the table is right for one position and at another size"


# -- ex4: memory ---------------------------------------------------------------------------------


def _bytes_reference(batch_size, num_heads, n, bytes_per_number=4):
    return batch_size * num_heads * n * n * bytes_per_number


@exercise("ch08.ex4", "What the weights weigh", reference=lambda: _bytes_reference,
          wrong=[lambda: (lambda B, h, n, b=4: B * h * n * b), lambda: (lambda B, h, n, b=4: B * n * n * b)])
def check_bytes(answer):
    if not callable(answer):
        return False, "answer should be your function attention_bytes(batch_size, num_heads, n)."
    for B, h, n in ((1, 1, 1), (8, 4, 512), (2, 12, 100)):
        got = as_number(answer(B, h, n), "a number of bytes")
        expected = _bytes_reference(B, h, n)
        if got != expected:
            return False, (f"attention_bytes({B}, {h}, {n}) should be {expected:,}, you give {got:,.0f}. One float32 "
                           "weight (4 bytes) per batch row, head, query and key.")
    return True, "double n and the weights take four times the memory."


def _longest(budget_bytes, heads=12, bytes_per_number=4):
    return math.isqrt(budget_bytes // (heads * bytes_per_number))  # the largest n with 12 * 4 * n^2 <= budget


@exercise("ch08.ex4b", "What the weights weigh: 16 GB", reference=lambda: _longest(16 * 10**9),
          wrong=[lambda: 16 * 10**9 // 48, lambda: math.isqrt(16 * 10**9 // 4), lambda: float("nan")])
def check_longest(answer):
    got = as_number(answer, "a sequence length n")
    decimal, binary = _longest(16 * 10**9), _longest(16 * 2**30)
    if abs(got - decimal) <= 1 or abs(got - binary) <= 1:
        return True, (f"about {decimal:,} tokens (or {binary:,} with 16 GiB): the weights grow like n^2, so a "
                      "budget 100 times larger buys only 10 times the length.")
    if abs(got - _longest(16 * 10**9, heads=1)) <= 1:
        return False, "That is for one head; the question has 12, each with its own (n, n) weights."
    if got > 10 * decimal:
        return False, f"n = {got:,.0f} needs {12 * 4 * got**2:.3g} bytes: solve 12 * 4 * n^2 = 16e9 for n."
    return False, f"{got:,.0f} is not it: solve attention_bytes(1, 12, n) = 16e9 for n (a square root)."


@hidden_test("ch08.ex4")
def _hidden_bytes(answer, g):
    cases = [(randint(g, 1, 64), randint(g, 1, 32), randint(g, 1, 100_000)) for _ in range(5)]
    return agree(answer, _bytes_reference, cases, "attention_bytes", atol=0.5, rtol=0)
