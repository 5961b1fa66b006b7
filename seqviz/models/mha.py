"""Scaled dot-product and multi-head attention, masks and positional encodings (chapter 8).

Vaswani et al. (2017), "Attention is all you need":

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V,

every query compared with every key by a dot product, the scores scaled by
``1/sqrt(d_k)`` so that their spread does not grow with the width, turned into weights
that sum to 1 over the keys, and used to average the values. Multi-head attention
projects the input ``num_heads`` times into smaller subspaces, attends in each, joins
the results and projects them back.

Masks are boolean with **True = may attend** (the opposite of ``torch.nn``'s
``key_padding_mask``, where True means "ignore"). The weights are always returned, per
head, never stored on the module. Parameter names mirror ``torch.nn.MultiheadAttention``
(``in_proj_weight``, ``in_proj_bias``, ``out_proj``), so ``copy_from`` is a
``load_state_dict``.

A **key/value cache** (Pope et al., 2022, "Efficiently scaling Transformer inference") is an
option of :class:`MultiHeadAttention`: ``use_cache=True`` also returns the projected keys and
values, and ``past=`` prepends those of earlier positions, so generating one more token
projects only the new position and attends over the cache (chapter 10). The tests prove
that cached steps equal the full forward.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..config import check_device, value_checks
from ._checks import check_positive_int


def causal_mask(T: int, device=None) -> torch.Tensor:
    """(T, T) bool, True on and below the diagonal: position i may attend to positions 0..i."""
    check_positive_int("T", T, "the sequence length")
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None,
                                 scale: float | None = None):
    """``(out (..., Tq, dv), weights (..., Tq, Tk))`` for q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv).

    ``mask`` is bool and broadcasts to (..., Tq, Tk); True = may attend. Masked keys get
    exactly zero weight. ``scale`` defaults to ``1/sqrt(d)``; ``scale=1.0`` switches the
    scaling off (the chapter's saturation experiment).
    """
    weights = _attention_weights(q, k, v, mask, scale)  # (..., Tq, Tk), each row sums to 1
    return weights @ v, weights  # (..., Tq, dv), (..., Tq, Tk)


def _attention_weights(q, k, v, mask=None, scale=None) -> torch.Tensor:
    """The weights of :func:`scaled_dot_product_attention`, with all its checks, without the product with
    ``v`` (so that :class:`MultiHeadAttention` multiplies by ``v`` once, after its dropout)."""
    if not all(isinstance(t, torch.Tensor) for t in (q, k, v)):
        raise ValueError(f"q, k, v must be tensors (..., T, d), got {type(q).__name__}, {type(k).__name__}, "
                         f"{type(v).__name__}")
    if q.dim() < 2 or k.dim() != q.dim() or v.dim() != q.dim():
        raise ValueError(f"q, k, v must have the same number (>= 2) of dims (..., T, d), got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(f"need q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv); got {tuple(q.shape)}, "
                         f"{tuple(k.shape)}, {tuple(v.shape)}")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float))
                              or not math.isfinite(scale) or scale <= 0):
        raise ValueError(f"scale must be None (1/sqrt(d)) or a finite number > 0, got {scale!r}")
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = (q @ k.transpose(-2, -1)) * scale  # (..., Tq, Tk)
    if mask is not None:
        if mask.dtype != torch.bool:
            raise ValueError(f"mask must be a bool tensor (True = may attend), got {mask.dtype}")
        try:
            mask = torch.broadcast_to(mask, scores.shape)
        except RuntimeError:
            raise ValueError(f"mask of shape {tuple(mask.shape)} does not broadcast to the scores "
                             f"{tuple(scores.shape)} (..., Tq, Tk)") from None
        if value_checks(mask) and not bool(mask.any(-1).all()):  # a value check: on CPU (or SEQVIZ_DEBUG) only
            raise ValueError("a query may attend to no key at all (a mask row is all False): its weights are undefined")
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores.softmax(-1)  # (..., Tq, Tk), each row sums to 1


def _attention_mask(mask, key_mask, B, Tq, Tk):
    """Combine a (Tq, Tk) / (B, Tq, Tk) / (B, h, Tq, Tk) mask and a (B, Tk) key mask into one 4-D bool mask."""
    out = None
    if mask is not None:
        if mask.dtype != torch.bool:
            raise ValueError(f"mask must be bool (True = may attend), got {mask.dtype}")
        if mask.dim() == 2:
            out = mask[None, None]  # (1, 1, Tq, Tk)
        elif mask.dim() == 3:
            out = mask[:, None]  # (B, 1, Tq, Tk)
        elif mask.dim() == 4:
            out = mask
        else:
            raise ValueError(f"mask must be (Tq, Tk), (B, Tq, Tk) or (B, heads, Tq, Tk), got {tuple(mask.shape)}")
        if out.shape[-2:] != (Tq, Tk):
            raise ValueError(f"mask ends in {tuple(out.shape[-2:])}, expected (Tq, Tk) = ({Tq}, {Tk})")
    if key_mask is not None:
        if key_mask.dtype != torch.bool or key_mask.shape != (B, Tk):
            raise ValueError(f"key_mask must be bool (B, Tk) = ({B}, {Tk}), True on real tokens; got "
                             f"{tuple(key_mask.shape)} {key_mask.dtype}")
        keys = key_mask[:, None, None, :]  # (B, 1, 1, Tk)
        out = keys if out is None else out & keys
    return out


class MultiHeadAttention(nn.Module):
    """``forward(query (B, Tq, d), key (B, Tk, d), value (B, Tk, d), mask=None, key_mask=None)``
    -> ``(out (B, Tq, d), weights (B, num_heads, Tq, Tk))``.

    ``mask``: bool (Tq, Tk), (B, Tq, Tk) or (B, heads, Tq, Tk), True = may attend (a
    causal mask, say); ``key_mask``: bool (B, Tk), True on real tokens (a padding mask).
    Dropout, if any, acts on the weights in training mode; the returned weights are
    those before dropout.

    Key/value cache: ``past=(keys, values)``, each (B, heads, t, head_size), are the projected
    keys and values of t earlier positions; this call's come after them, so the weights are
    (B, heads, Tq, t + Tk) and ``mask``/``key_mask`` cover all t + Tk keys (no mask is needed for
    one new query: it may see every earlier position). ``use_cache=True`` returns
    ``(out, weights, present)``, ``present`` the (keys, values) of all t + Tk positions; ``past``
    itself is left untouched.
    """

    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        for name, value in (("d_model", d_model), ("num_heads", num_heads)):
            check_positive_int(name, value)
        if d_model % num_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by num_heads ({num_heads})")
        self.d_model, self.num_heads, self.head_size = d_model, num_heads, d_model // num_heads
        self.in_proj_weight = nn.Parameter(torch.empty(3 * d_model, d_model))  # W_q, W_k, W_v stacked
        self.in_proj_bias = nn.Parameter(torch.zeros(3 * d_model)) if bias else None
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)  # W_o
        self.dropout = nn.Dropout(dropout)
        nn.init.xavier_uniform_(self.in_proj_weight)
        if bias:
            nn.init.zeros_(self.out_proj.bias)

    def forward(self, query, key, value, mask=None, key_mask=None, past=None, use_cache: bool = False):
        if query.dim() != 3 or key.dim() != 3 or value.dim() != 3 or query.shape[-1] != self.d_model \
                or key.shape[-1] != self.d_model or value.shape[:2] != key.shape[:2] \
                or value.shape[-1] != self.d_model or query.shape[0] != key.shape[0]:
            raise ValueError(f"MultiHeadAttention expects query (B, Tq, {self.d_model}), key and value "
                             f"(B, Tk, {self.d_model}); got {tuple(query.shape)}, {tuple(key.shape)}, "
                             f"{tuple(value.shape)}")
        check_device(self.in_proj_weight, type(self).__name__, query=query, key=key, value=value, mask=mask,
                     key_mask=key_mask)
        B, Tq, d = query.shape
        Tk, h, hs = key.shape[1], self.num_heads, self.head_size
        w_q, w_k, w_v = self.in_proj_weight.chunk(3)  # (d, d) each
        b_q, b_k, b_v = self.in_proj_bias.chunk(3) if self.in_proj_bias is not None else (None, None, None)
        q = nn.functional.linear(query, w_q, b_q).view(B, Tq, h, hs).transpose(1, 2)  # (B, h, Tq, hs)
        k = nn.functional.linear(key, w_k, b_k).view(B, Tk, h, hs).transpose(1, 2)  # (B, h, Tk, hs)
        v = nn.functional.linear(value, w_v, b_v).view(B, Tk, h, hs).transpose(1, 2)  # (B, h, Tk, hs)
        if past is not None:
            self._check_past(past, k)
            k = torch.cat([past[0], k], dim=2)  # (B, h, t + Tk, hs): earlier keys are reused, not recomputed
            v = torch.cat([past[1], v], dim=2)  # (B, h, t + Tk, hs)
        full_mask = _attention_mask(mask, key_mask, B, Tq, k.shape[2])  # (B or 1, h or 1, Tq, Tk) or None
        weights = _attention_weights(q, k, v, full_mask)  # (B, h, Tq, Tk)
        heads = self.dropout(weights) @ v  # (B, h, Tq, hs): the one product with v
        out = self.out_proj(heads.transpose(1, 2).reshape(B, Tq, d))  # (B, Tq, d): heads side by side, then W_o
        return (out, weights, (k, v)) if use_cache else (out, weights)

    def _check_past(self, past, k):
        B, h, _, hs = k.shape
        if (not isinstance(past, (tuple, list)) or len(past) != 2
                or any(not isinstance(p, torch.Tensor) or p.dim() != 4 or p.shape[:2] != (B, h) or p.shape[3] != hs
                       for p in past) or past[0].shape != past[1].shape):
            got = [tuple(p.shape) if isinstance(p, torch.Tensor) else type(p).__name__ for p in past] \
                if isinstance(past, (tuple, list)) else type(past).__name__
            raise ValueError(f"past must be a (keys, values) pair, each (B, heads, t, head_size) = ({B}, {h}, t, {hs}); "
                             f"got {got}")
        check_device(k, type(self).__name__, past_keys=past[0], past_values=past[1])

    def copy_from(self, torch_mha: nn.MultiheadAttention) -> "MultiHeadAttention":
        """Copy the weights of a ``torch.nn.MultiheadAttention`` of the same size; returns self."""
        if not isinstance(torch_mha, nn.MultiheadAttention):
            raise ValueError(f"copy_from expects a torch.nn.MultiheadAttention, got {type(torch_mha).__name__}")
        if (torch_mha.embed_dim, torch_mha.num_heads) != (self.d_model, self.num_heads) \
                or not torch_mha._qkv_same_embed_dim or torch_mha.bias_k is not None:
            raise ValueError(f"need nn.MultiheadAttention({self.d_model}, {self.num_heads}) with equal q/k/v widths and "
                             f"no bias_k; got embed_dim={torch_mha.embed_dim}, num_heads={torch_mha.num_heads}")
        if (torch_mha.in_proj_bias is None) != (self.in_proj_bias is None):
            raise ValueError("bias mismatch: build both with bias=True or both with bias=False")
        self.load_state_dict(torch_mha.state_dict())
        return self


def positional_encoding(num_positions: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """(num_positions, d_model), the sinusoids of Vaswani et al. (2017):

    PE[pos, 2i] = sin(pos / base^(2i/d_model)),   PE[pos, 2i+1] = cos(pos / base^(2i/d_model)).
    """
    for name, value in (("num_positions", num_positions), ("d_model", d_model)):
        check_positive_int(name, value)
    position = torch.arange(num_positions, dtype=torch.float64)[:, None]  # (P, 1)
    frequency = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (ceil(d/2),)
    angle = position * frequency  # (P, ceil(d/2))
    pe = torch.zeros(num_positions, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return pe.float()


class SinusoidalPositionalEncoding(nn.Module):
    """``forward(x (B, T, d), start=0)`` -> x + PE[start:start+T]; nothing to learn, and defined for any position.
    ``start`` is the position of x's first step (a generated token's, after a cache of ``start`` positions)."""

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        self.max_len = max_len
        self.register_buffer("pe", positional_encoding(max_len, d_model), persistent=False)  # (max_len, d)

    def forward(self, x: torch.Tensor, start: int = 0) -> torch.Tensor:
        if x.dim() != 3 or start + x.shape[1] > self.max_len or x.shape[2] != self.pe.shape[1]:
            raise ValueError(f"expected (B, T, {self.pe.shape[1]}) with {start} + T <= {self.max_len} (max_len), "
                             f"got {tuple(x.shape)}")
        check_device(self.pe, type(self).__name__, x=x)
        return x + self.pe[start:start + x.shape[1]]  # (B, T, d)


class LearnedPositionalEncoding(nn.Module):
    """``forward(x (B, T, d))`` -> x + P[:T] with P a learned (max_len, d) table (as in BERT and GPT).

    It can only encode the ``max_len`` positions it has a row for, and only those seen in training are learned.
    """

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        self.max_len = max_len
        self.weight = nn.Parameter(torch.randn(max_len, d_model) * 0.02)  # (max_len, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 3 or x.shape[1] > self.max_len or x.shape[2] != self.weight.shape[1]:
            raise ValueError(f"expected (B, T <= {self.max_len}, {self.weight.shape[1]}), got {tuple(x.shape)}")
        check_device(self.weight, type(self).__name__, x=x)
        return x + self.weight[: x.shape[1]]  # (B, T, d)
