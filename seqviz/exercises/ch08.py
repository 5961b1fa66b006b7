"""Exercises of chapter 08, the Transformer (registered on import).

- ch08.ex1: scaled dot-product attention by hand, with a mask;
- ch08.ex2: a sliding-window (Longformer-style) mask;
- ch08.ex3: the sinusoidal positional encoding from its formula;
- ch08.ex4: the memory the attention weights take.
"""

from __future__ import annotations

import math

import torch

from ..models.mha import causal_mask, positional_encoding, scaled_dot_product_attention
from .registry import as_number, compare_tensors, exercise

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


@exercise("ch08.ex1", "Scaled dot-product attention", reference=lambda: _attention_reference,
          wrong=[lambda: _attention_unscaled, lambda: _attention_no_mask])
def check_attention(answer):
    if not callable(answer):
        return False, "answer should be your function attention(q, k, v, mask=None) returning (out, weights)."
    g = torch.Generator().manual_seed(8)
    for shape, mask in (((2, 5, 16), None), ((3, 4, 8), causal_mask(4)), ((1, 6, 4), causal_mask(6))):
        q, k, v = (torch.randn(*shape, generator=g) for _ in range(3))
        expected_out, expected_w = scaled_dot_product_attention(q, k, v, mask)
        result = answer(q, k, v, mask)
        if not isinstance(result, tuple) or len(result) != 2:
            return False, "return a pair (out, weights)."
        ok, message = compare_tensors(result[1], expected_w, "the weights")
        if not ok:
            if mask is not None and isinstance(result[1], torch.Tensor) and result[1].shape == expected_w.shape \
                    and (result[1][..., ~mask] > 0).any():
                message += " Masked positions get weight: fill their scores with -inf before the softmax."
            elif isinstance(result[1], torch.Tensor) and result[1].shape == expected_w.shape:
                message += " Did you divide the scores by sqrt(d_k)?"
            return False, message
        ok, message = compare_tensors(result[0], expected_out, "the output")
        if not ok:
            return False, message + " The output is weights @ v."
    return True, "softmax(q k^T / sqrt(d)) v, with masked keys at exactly zero weight."


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
