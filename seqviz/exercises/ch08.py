"""Exercises of chapter 08, the Transformer (registered on import).

- ch08.ex1: scaled dot-product attention by hand, with a mask;
- ch08.ex2: a sliding-window (Longformer-style) mask;
- ch08.ex3: the sinusoidal positional encoding from its formula (without calling ``positional_encoding``);
- ch08.ex4: the memory the attention weights take; ch08.ex4b: the length at which one layer's weights fill 16 GB;
- ch08.ex5 (a conceptual question, a choice): how the parameter count of multi-head attention depends on the number
  of heads.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch08.py``).
"""

from __future__ import annotations

import torch

from .expected import Expected
from .registry import as_choice, as_number, as_sequence, as_tensor, compare_tensors, describe, exercise

EXPECTED = Expected("ch08")

# -- ex1: attention ------------------------------------------------------------------------------

# (q shape, k shape, v shape, mask): d_v differs from d_k, Tq from Tk, and a 4-D batch of heads
_ATTENTION_CASES = (((2, 5, 16), (2, 7, 16), (2, 7, 4), None),
                    ((3, 4, 8), (3, 4, 8), (3, 4, 3), "causal"),
                    ((1, 6, 4), (1, 6, 4), (1, 6, 9), "causal"),
                    ((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 2), "padding"))


def _attention_mask(kind, q_shape, k_shape):
    if kind == "causal":
        T = q_shape[-2]
        return torch.arange(T)[:, None] >= torch.arange(T)[None, :]  # (T, T): True on and below the diagonal
    if kind == "padding":
        keep = torch.ones(k_shape[0], 1, 1, k_shape[-2], dtype=torch.bool)  # (B, 1, 1, Tk): broadcast
        keep[0, ..., -2:] = False
        return keep
    return None


def _weights_hint(got, case, mask) -> str:
    """What a pair of wrong weights (of the right shape) most likely got wrong, from their own properties first."""
    if mask is not None and bool((got * ~mask > 0).any()):
        return " Masked positions get weight: fill their scores with -inf before the softmax."
    rows = got.sum(-1)
    if not torch.allclose(rows, torch.ones_like(rows), atol=1e-4):
        return (" Each query's weights should sum to 1 over the keys: take the softmax along the last dimension "
                "(dim=-1), not along the queries.")
    scaled_by_dv = EXPECTED.maybe("attention_scaled_by_dv", case)
    if scaled_by_dv is not None and torch.allclose(got, scaled_by_dv[1], atol=1e-5):
        return " You divided by sqrt(d_v), the size of the values: the scale is sqrt(d_k), of q and k."
    unscaled = EXPECTED.maybe("attention_unscaled", case)
    if unscaled is not None and torch.allclose(got, unscaled[1], atol=1e-5):
        return " Divide the scores q k^T by sqrt(d_k) before the softmax."
    return " Compare your scores, q k^T / sqrt(d_k), and the masked softmax over the keys with the formula."


@exercise("ch08.ex1", "Scaled dot-product attention")
def check_attention(answer):
    if not callable(answer):
        return False, "answer should be your function attention(q, k, v, mask=None) returning (out, weights)."
    g = torch.Generator().manual_seed(8)
    for i, (q_shape, k_shape, v_shape, kind) in enumerate(_ATTENTION_CASES):
        q, k, v = (torch.randn(*shape, generator=g) for shape in (q_shape, k_shape, v_shape))
        mask = _attention_mask(kind, q_shape, k_shape)
        expected_out, expected_w = EXPECTED("attention", i, q, k, v, mask)
        result = as_sequence(answer(q.clone(), k.clone(), v.clone(), mask), 2, "your result (out, weights)")
        what = f"the weights (q {q_shape}, k {k_shape}, v {v_shape})"
        ok, message = compare_tensors(result[1], expected_w, what)
        if not ok:
            weights = as_tensor(result[1], expected_w, what)
            if weights.shape == expected_w.shape:
                message += _weights_hint(weights.float(), i, mask)
            return False, message
        ok, message = compare_tensors(result[0], expected_out, "the output")
        if not ok:
            return False, message + " The output is weights @ v."
    return True, "softmax(q k^T / sqrt(d)) v, with masked keys at exactly zero weight."


# -- ex2: a sliding window ------------------------------------------------------------------------


@exercise("ch08.ex2", "A sliding-window mask")
def check_window(answer):
    if not callable(answer):
        return False, "answer should be your function sliding_window_mask(T, window)."
    for T, w in ((6, 1), (8, 2), (5, 0), (4, 10)):
        expected = EXPECTED("window", f"{T},{w}", T, w)
        raw = answer(T, w)
        got = as_tensor(raw, expected, f"sliding_window_mask({T}, {w})")
        if got.dtype != torch.bool or got.shape != (T, T):
            return False, (f"sliding_window_mask({T}, {w}) should be a bool tensor ({T}, {T}) (True = may attend), "
                           f"got {describe(raw)}.")
        if not torch.equal(got, expected):
            wrong = (got != expected).nonzero()[0].tolist()
            return False, (f"sliding_window_mask({T}, {w}) is wrong at query {wrong[0]}, key {wrong[1]}: it should be "
                           f"{bool(expected[wrong[0], wrong[1]])}. Position i may see j when |i - j| <= window, "
                           "on both sides.")
    return True, "each query sees 2 * window + 1 keys: the cost grows like n * window, not n^2."


# -- ex3: the positional encoding -----------------------------------------------------------------


@exercise("ch08.ex3", "The sinusoidal positional encoding")
def check_pe(answer):
    if not callable(answer):
        return False, "answer should be your function sinusoidal(num_positions, d_model)."
    for P, d in ((10, 4), (50, 16)):
        expected = EXPECTED("positional_encoding", f"{P},{d}", P, d)
        got = answer(P, d)
        if isinstance(got, torch.Tensor):
            got = got.float()
        ok, message = compare_tensors(got, expected, f"sinusoidal({P}, {d})", atol=1e-4)
        if not ok:
            return False, message + " Even columns 2i hold sin(pos / 10000^(2i/d)), odd columns 2i+1 the cosine."
    return True, "each pair of columns is a clock hand turning at its own speed."


# -- ex4: memory ---------------------------------------------------------------------------------


@exercise("ch08.ex4", "What the weights weigh")
def check_bytes(answer):
    if not callable(answer):
        return False, "answer should be your function attention_bytes(batch_size, num_heads, n)."
    for B, h, n in ((1, 1, 1), (8, 4, 512), (2, 12, 100)):
        got = as_number(answer(B, h, n), "a number of bytes")
        expected = EXPECTED("attention_bytes", f"{B},{h},{n}", B, h, n)
        if got != expected:
            return False, (f"attention_bytes({B}, {h}, {n}) should be {expected:,}, you give {got:,.0f}. One float32 "
                           "weight (4 bytes) per batch row, head, query and key.")
    return True, "double n and the weights take four times the memory."


@exercise("ch08.ex4b", "What the weights weigh: 16 GB")
def check_longest(answer):
    got = as_number(answer, "a sequence length n")
    decimal, binary = EXPECTED("longest", "16e9", 16 * 10**9), EXPECTED("longest", "16GiB", 16 * 2**30)
    if abs(got - decimal) <= 1 or abs(got - binary) <= 1:
        return True, (f"about {decimal:,} tokens (or {binary:,} with 16 GiB): the weights grow like n^2, so a "
                      "budget 100 times larger buys only 10 times the length.")
    if abs(got - EXPECTED("longest", "16e9, one head", 16 * 10**9, heads=1)) <= 1:
        return False, "That is for one head; the question has 12, each with its own (n, n) weights."
    if got > 10 * decimal:
        return False, f"n = {got:,.0f} needs {12 * 4 * got**2:.3g} bytes: solve 12 * 4 * n^2 = 16e9 for n."
    return False, f"{got:,.0f} is not it: solve attention_bytes(1, 12, n) = 16e9 for n (a square root)."


# -- ex5: heads and parameters (predict, then run) ------------------------------------------------

CH08_EX5_CHOICES = ("a) the same number", "b) 8 times as many", "c) an eighth as many")


@exercise("ch08.ex5", "Heads and parameters")
def check_heads_parameters(answer):
    choice = as_choice(answer, CH08_EX5_CHOICES, "the count you predict")
    if choice == EXPECTED("heads_parameters", "choice", CH08_EX5_CHOICES):
        return True, ("Each of the 8 heads projects into a subspace of width d/h = 8, so its W^Q, W^K and W^V are "
                      "64 x 8: side by side, the heads' matrices make exactly one 64 x 64 matrix each, and W^O is "
                      "64 x 64 either way. The count, 4d^2 + 4d = 16,640 for d = 64, does not depend on h: more "
                      "heads split the same width more finely.")
    if choice.startswith("b)"):
        return False, ("Every head has its own W^Q, W^K and W^V, but each is d x d/h = 64 x 8, not 64 x 64: the 8 "
                       "heads together hold as many weights as one head of full width.")
    return False, ("The heads are narrower, 64 x 8 each, but there are 8 of them: together they fill the full width "
                   "64 again.")
