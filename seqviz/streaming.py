"""Generating one token at a time: what each new token costs (chapter 10).

A recurrent language model carries one fixed-size state: the next token costs the same
whatever came before. A Transformer decoder attends to the whole prefix, so each new
token costs more as the context grows. Without a cache it re-reads the whole prefix
every step; with a **key/value cache** (Pope et al., 2022, "Efficiently scaling
Transformer inference") it keeps each layer's keys and values of the earlier positions
and computes only the new position's, so a step costs one attention row over the cache:
linear in the context instead of the full recompute, and the cache's memory grows too.

- :class:`TransformerLM`: token embedding + sinusoidal positions + seqviz
  ``TransformerEncoderLayer`` blocks under a causal mask (a decoder-only Transformer);
  ``forward`` reads a whole prefix, ``step`` adds one token with a key/value cache;
- :class:`GRULM`: the same interface around ``torch.nn.GRU``; its "cache" is the state;
- :func:`cache_bytes`: the memory a cache (or a state) holds.

The tests prove that cached steps give the same logits as re-reading the prefix.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .config import check_device, value_checks
from .models.mha import SinusoidalPositionalEncoding, causal_mask
from .models.transformer import TransformerEncoderLayer

__all__ = ["GRULM", "TransformerLM", "cache_bytes"]


def _check_ids(ids, vocab_size, model, name="ids"):
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2 or ids.dtype not in (torch.int64, torch.int32):
        got = tuple(ids.shape) if isinstance(ids, torch.Tensor) else type(ids).__name__
        raise ValueError(f"{name} must be integer token ids (B, T), got {got}")
    check_device(model.embedding.weight, type(model).__name__, **{name: ids})
    if ids.numel() and value_checks(ids) and (int(ids.min()) < 0 or int(ids.max()) >= vocab_size):
        raise ValueError(f"{name} must lie in 0..{vocab_size - 1}, got {int(ids.min())}..{int(ids.max())}")


def _attend_step(layer: TransformerEncoderLayer, x, cache):
    """One position through one block: x (B, 1, d), cache (k, v) each (B, h, t, hs) or None."""
    mha = layer.self_attn
    B, _, d = x.shape
    h, hs = mha.num_heads, mha.head_size
    y = layer.norm1(x) if layer.norm_first else x  # the attention's input at this position
    w_q, w_k, w_v = mha.in_proj_weight.chunk(3)
    b_q, b_k, b_v = mha.in_proj_bias.chunk(3) if mha.in_proj_bias is not None else (None, None, None)
    q = F.linear(y, w_q, b_q).view(B, 1, h, hs).transpose(1, 2)  # (B, h, 1, hs)
    k = F.linear(y, w_k, b_k).view(B, 1, h, hs).transpose(1, 2)  # (B, h, 1, hs)
    v = F.linear(y, w_v, b_v).view(B, 1, h, hs).transpose(1, 2)  # (B, h, 1, hs)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=2)  # (B, h, t+1, hs): the earlier keys are reused, not recomputed
        v = torch.cat([cache[1], v], dim=2)
    weights = (q @ k.transpose(-2, -1) / math.sqrt(hs)).softmax(-1)  # (B, h, 1, t+1): causal by construction
    attn = mha.out_proj((weights @ v).transpose(1, 2).reshape(B, 1, d))  # (B, 1, d)
    if layer.norm_first:
        x = x + attn
        x = x + layer._ff(layer.norm2(x))
    else:
        x = layer.norm1(x + attn)
        x = layer.norm2(x + layer._ff(x))
    return x, (k, v)


class TransformerLM(nn.Module):
    """A decoder-only Transformer: ``forward(ids (B, T))`` -> logits (B, T, V), each position
    seeing only itself and earlier ones; ``step(ids (B, 1), cache)`` -> ``(logits (B, V), cache)``.

    A cache is a list with one ``(keys, values)`` pair per layer, each (B, heads, t, head_size);
    ``step`` returns a new cache and leaves the old one untouched. ``use_cache=False`` in
    :meth:`next_logits` re-reads the whole prefix instead (what :meth:`forward` does).
    Dropout is off: this model is for timing and for the cache's proof.
    """

    def __init__(self, vocab_size: int, d_model: int = 64, num_heads: int = 4, num_layers: int = 2,
                 dim_feedforward: int = 128, max_len: int = 4096, norm_first: bool = False):
        super().__init__()
        self.vocab_size, self.d_model, self.max_len = vocab_size, d_model, max_len
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.position = SinusoidalPositionalEncoding(max_len, d_model)
        self.layers = nn.ModuleList(TransformerEncoderLayer(d_model, num_heads, dim_feedforward, dropout=0.0,
                                                            norm_first=norm_first) for _ in range(num_layers))
        self.out = nn.Linear(d_model, vocab_size)

    def forward(self, ids):
        _check_ids(ids, self.vocab_size, self)
        T = ids.shape[1]
        if not 1 <= T <= self.max_len:
            raise ValueError(f"ids has {T} positions; this model handles 1..{self.max_len} (max_len)")
        x = self.position(self.embedding(ids) * math.sqrt(self.d_model))  # (B, T, d)
        mask = causal_mask(T, device=ids.device)  # (T, T)
        for layer in self.layers:
            x, _ = layer(x, mask=mask)  # (B, T, d)
        return self.out(x)  # (B, T, V)

    def step(self, ids, cache=None):
        """Add one token per row: ids (B, 1) -> ``(logits (B, V), new cache)``."""
        _check_ids(ids, self.vocab_size, self)
        if ids.shape[1] != 1:
            raise ValueError(f"step takes one new token per row, ids (B, 1); got {tuple(ids.shape)}")
        t = 0 if cache is None else cache[0][0].shape[2]  # positions already in the cache
        if cache is not None and len(cache) != len(self.layers):
            raise ValueError(f"cache must hold one (keys, values) pair per layer ({len(self.layers)}), "
                             f"got {len(cache)}")
        if t >= self.max_len:
            raise ValueError(f"the cache already holds {t} positions, the most this model handles (max_len)")
        x = self.embedding(ids) * math.sqrt(self.d_model) + self.position.pe[t]  # (B, 1, d)
        new_cache = []
        for i, layer in enumerate(self.layers):
            x, kv = _attend_step(layer, x, None if cache is None else cache[i])
            new_cache.append(kv)
        return self.out(x[:, 0]), new_cache  # (B, V)

    def prefill(self, ids):
        """Run a prefix token by token; returns ``(logits of the last position (B, V), cache)``."""
        _check_ids(ids, self.vocab_size, self)
        cache, logits = None, None
        for t in range(ids.shape[1]):
            logits, cache = self.step(ids[:, t:t + 1], cache)
        return logits, cache

    def next_logits(self, prefix, cache=None, use_cache: bool = True):
        """The logits after ``prefix`` (B, T): from ``cache`` (the first T-1 tokens) plus one step, or
        by re-reading all of ``prefix``; returns ``(logits (B, V), cache or None)``."""
        if use_cache:
            return self.step(prefix[:, -1:], cache)
        return self(prefix)[:, -1], None


class GRULM(nn.Module):
    """The recurrent counterpart: ``forward(ids (B, T))`` -> logits (B, T, V);
    ``step(ids (B, 1), state)`` -> ``(logits (B, V), state (layers, B, H))``: a fixed-size state."""

    def __init__(self, vocab_size: int, hidden_size: int = 64, num_layers: int = 1, cell: str = "gru"):
        super().__init__()
        kinds = {"gru": nn.GRU, "lstm": nn.LSTM, "rnn": nn.RNN}
        if cell not in kinds:
            raise ValueError(f"cell must be one of {sorted(kinds)}, got {cell!r}")
        self.vocab_size, self.hidden_size = vocab_size, hidden_size
        self.embedding = nn.Embedding(vocab_size, hidden_size)
        self.rnn = kinds[cell](hidden_size, hidden_size, num_layers, batch_first=True)
        self.out = nn.Linear(hidden_size, vocab_size)

    def forward(self, ids):
        _check_ids(ids, self.vocab_size, self)
        return self.out(self.rnn(self.embedding(ids))[0])  # (B, T, V)

    def step(self, ids, state=None):
        _check_ids(ids, self.vocab_size, self)
        if ids.shape[1] != 1:
            raise ValueError(f"step takes one new token per row, ids (B, 1); got {tuple(ids.shape)}")
        out, state = self.rnn(self.embedding(ids), state)  # (B, 1, H)
        return self.out(out[:, 0]), state

    def prefill(self, ids):
        _check_ids(ids, self.vocab_size, self)
        out, state = self.rnn(self.embedding(ids))
        return self.out(out[:, -1]), state


def cache_bytes(cache) -> int:
    """Bytes held by a key/value cache (list of pairs) or a recurrent state (tensor or tuple of tensors)."""
    if cache is None:
        return 0
    if isinstance(cache, torch.Tensor):
        return cache.numel() * cache.element_size()
    return sum(cache_bytes(c) for c in cache)
