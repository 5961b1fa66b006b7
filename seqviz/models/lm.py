"""The decoder-only Transformer, and the language models of chapter 10.

- :class:`CausalTransformerEncoder`: the book's one decoder-only Transformer: (an input projection),
  sinusoidal positions and ``num_layers`` :class:`~seqviz.models.TransformerEncoderLayer` blocks under
  a causal mask, each position seeing only itself and earlier ones (Radford et al., 2018). It has the
  interface of a recurrent layer (``out, _ = enc(x)``, ``hidden_size``), so it drops into
  :class:`~seqviz.models.SequenceClassifier` and :class:`~seqviz.models.Forecaster`; with the causal
  mask the state at a sequence's last real token never sees the padding after it. ``step`` adds one
  position with a key/value cache (Pope et al., 2022), the option of
  :class:`~seqviz.models.MultiHeadAttention`.
- :class:`TransformerLM`: token embedding, that decoder, a linear layer onto the vocabulary;
  ``step`` generates with the cache, so a token costs one attention row over the context;
- :class:`GRULM`: the recurrent counterpart; its "cache" is a fixed-size state;
- :func:`cache_bytes`: the memory a cache (or a state) holds.

The tests prove that cached steps give the same outputs as re-reading the prefix.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..config import check_device
from ._checks import check_ids
from .cells import make_recurrent
from .mha import SinusoidalPositionalEncoding, causal_mask
from .transformer import TransformerEncoderLayer

__all__ = ["CausalTransformerEncoder", "GRULM", "TransformerLM", "cache_bytes"]


class CausalTransformerEncoder(nn.Module):
    """``forward(x (B, T, input_size))`` -> ``(out (B, T, hidden_size), None)``, plus with ``return_trace``
    ``{"attention": [(B, heads, T, T) per layer]}``; ``step(x (B, 1, input_size), cache)`` ->
    ``(out (B, 1, hidden_size), cache)``.

    ``input_size=None`` skips the input projection (the input already has ``hidden_size`` features, as an
    embedding does). Pre-LN blocks (``norm_first=True``, the default) end with one LayerNorm; post-LN
    blocks are normalised already. A cache is a list with one ``(keys, values)`` pair per layer, each
    (B, heads, t, head_size); ``step`` returns a new one and leaves the old one untouched.
    """

    def __init__(self, input_size: int | None, hidden_size: int, num_heads: int = 4, num_layers: int = 1,
                 dim_feedforward: int | None = None, max_len: int = 1024, dropout: float = 0.0,
                 norm_first: bool = True):
        super().__init__()
        self.input_size, self.hidden_size, self.max_len = input_size, hidden_size, max_len
        self.project = nn.Linear(input_size, hidden_size) if input_size is not None else nn.Identity()
        self.position = SinusoidalPositionalEncoding(max_len, hidden_size)
        self.layers = nn.ModuleList(TransformerEncoderLayer(hidden_size, num_heads, dim_feedforward or 2 * hidden_size,
                                                            dropout=dropout, norm_first=norm_first)
                                    for _ in range(num_layers))
        self.norm = nn.LayerNorm(hidden_size) if norm_first else nn.Identity()

    def _check(self, x):
        width = self.input_size or self.hidden_size
        if not isinstance(x, torch.Tensor) or x.dim() != 3 or x.shape[-1] != width:
            got = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise ValueError(f"expected x (B, T, {width}), got {got}")
        check_device(self.position.pe, type(self).__name__, x=x)

    def forward(self, x, state=None, return_trace: bool = False):
        self._check(x)
        h = self.position(self.project(x))  # (B, T, H)
        mask = causal_mask(x.shape[1], device=x.device)  # (T, T)
        weights = []
        for layer in self.layers:
            h, w = layer(h, mask=mask)  # (B, T, H), (B, heads, T, T)
            weights.append(w)
        out = self.norm(h)
        return (out, None, {"attention": weights}) if return_trace else (out, None)

    def step(self, x, cache=None):
        """One more position: x (B, 1, input_size), ``cache`` of the t earlier ones (None at the start)."""
        self._check(x)
        if x.shape[1] != 1:
            raise ValueError(f"step takes one new position per row, x (B, 1, ...); got {tuple(x.shape)}")
        if cache is not None and len(cache) != len(self.layers):
            raise ValueError(f"cache must hold one (keys, values) pair per layer ({len(self.layers)}), "
                             f"got {len(cache)}")
        t = 0 if cache is None else cache[0][0].shape[2]  # positions already in the cache
        if t >= self.max_len:
            raise ValueError(f"the cache already holds {t} positions, the most this model handles (max_len)")
        h = self.position(self.project(x), start=t)  # (B, 1, H)
        new_cache = []
        for i, layer in enumerate(self.layers):  # one new query: it may see every cached position, no mask
            h, _, present = layer(h, past=None if cache is None else cache[i], use_cache=True)
            new_cache.append(present)
        return self.norm(h), new_cache


class TransformerLM(nn.Module):
    """A decoder-only Transformer language model: ``forward(ids (B, T))`` -> logits (B, T, V);
    ``step(ids (B, 1), cache)`` -> ``(logits (B, V), cache)``.

    The embeddings are scaled by sqrt(d_model), then read by a :class:`CausalTransformerEncoder`. They start
    with standard deviation ``d_model ** -0.5`` (as in :class:`~seqviz.models.TransformerSeq2Seq` and Vaswani et
    al., 2017), so that after the scaling a token's vector has entries of about the size of the positional code it
    is added to: with ``torch.nn``'s default N(0, 1) the token would outweigh its position sqrt(d_model) times
    over, and a model trained on characters learned little more than which character follows which (a long run
    stalled at the bigram's loss).
    ``use_cache=False`` in :meth:`next_logits` re-reads the whole prefix instead (what :meth:`forward`
    does). ``dropout`` (off by default, training mode only) acts on the embedded input, on every attention
    weight and on every residual branch, as in Vaswani et al. (2017); the long runs of ``make checkpoints`` use it.
    """

    def __init__(self, vocab_size: int, d_model: int = 64, num_heads: int = 4, num_layers: int = 2,
                 dim_feedforward: int = 128, max_len: int = 4096, norm_first: bool = False, dropout: float = 0.0):
        super().__init__()
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be a probability in [0, 1), got {dropout!r}")
        self.vocab_size, self.d_model, self.max_len = vocab_size, d_model, max_len
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.decoder = CausalTransformerEncoder(None, d_model, num_heads, num_layers, dim_feedforward, max_len,
                                                dropout=float(dropout), norm_first=norm_first)
        self.dropout = nn.Dropout(float(dropout))
        self.out = nn.Linear(d_model, vocab_size)
        nn.init.normal_(self.embedding.weight, std=d_model ** -0.5)  # after the scaling: unit size, like the code

    def _embed(self, ids):
        check_ids(ids, self.vocab_size, type(self).__name__, self.embedding.weight, max_len=self.max_len)
        return self.dropout(self.embedding(ids) * math.sqrt(self.d_model))  # (B, T, d)

    def forward(self, ids):
        return self.out(self.decoder(self._embed(ids))[0])  # (B, T, V)

    def step(self, ids, cache=None):
        """Add one token per row: ids (B, 1) -> ``(logits (B, V), new cache)``."""
        if isinstance(ids, torch.Tensor) and ids.dim() == 2 and ids.shape[1] != 1:
            raise ValueError(f"step takes one new token per row, ids (B, 1); got {tuple(ids.shape)}")
        h, cache = self.decoder.step(self._embed(ids), cache)  # (B, 1, d)
        return self.out(h[:, 0]), cache  # (B, V)

    def prefill(self, ids):
        """Run a prefix (B, T) token by token; returns ``(logits of the last position (B, V), cache)``."""
        check_ids(ids, self.vocab_size, type(self).__name__, self.embedding.weight, max_len=self.max_len)
        logits, cache = None, None
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
    ``step(ids (B, 1), state)`` -> ``(logits (B, V), state (layers, B, H))``: a fixed-size state.
    ``cell``: "gru", "lstm" or "rnn" (``torch.nn``'s).

    ``dropout`` (off by default, training mode only) zeroes a share of the embeddings, of the states passed
    between stacked layers and of the top layer's states before the output layer (Zaremba et al., 2014);
    ``tie_embeddings=True`` makes the output layer's weight the embedding table itself (Press and Wolf, 2017;
    Inan et al., 2017), which then starts uniform in [-0.1, 0.1]. A word-level model with thousands of words needs
    both to train long without memorising its text."""

    def __init__(self, vocab_size: int, hidden_size: int = 64, num_layers: int = 1, cell: str = "gru",
                 dropout: float = 0.0, tie_embeddings: bool = False):
        super().__init__()
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be a probability in [0, 1), got {dropout!r}")
        self.vocab_size, self.hidden_size = vocab_size, hidden_size
        self.embedding = nn.Embedding(vocab_size, hidden_size)
        extra = {"dropout": float(dropout)} if dropout and num_layers > 1 else {}
        self.rnn = make_recurrent(cell, hidden_size, hidden_size, num_layers=num_layers, **extra)
        self.dropout = nn.Dropout(float(dropout))
        self.out = nn.Linear(hidden_size, vocab_size)
        self.tie_embeddings = bool(tie_embeddings)
        if self.tie_embeddings:
            self.out.weight = self.embedding.weight  # (V, H): one table reads and writes the tokens
            # small, as for the word models of Zaremba et al. (2014) and Press and Wolf (2017): a table that is also
            # the output layer must not start with logits of size sqrt(H), as N(0, 1) would give
            nn.init.uniform_(self.embedding.weight, -0.1, 0.1)

    def _embed(self, ids):
        check_ids(ids, self.vocab_size, type(self).__name__, self.embedding.weight)
        return self.dropout(self.embedding(ids))  # (B, T, H)

    def forward(self, ids):
        return self.out(self.dropout(self.rnn(self._embed(ids))[0]))  # (B, T, V)

    def step(self, ids, state=None):
        x = self._embed(ids)
        if ids.shape[1] != 1:
            raise ValueError(f"step takes one new token per row, ids (B, 1); got {tuple(ids.shape)}")
        out, state = self.rnn(x, state)  # (B, 1, H)
        return self.out(self.dropout(out[:, 0])), state

    def prefill(self, ids):
        out, state = self.rnn(self._embed(ids))
        return self.out(self.dropout(out[:, -1])), state


def cache_bytes(cache) -> int:
    """Bytes held by a key/value cache (list of pairs) or a recurrent state (tensor or tuple of tensors)."""
    if cache is None:
        return 0
    if isinstance(cache, torch.Tensor):
        return cache.numel() * cache.element_size()
    return sum(cache_bytes(c) for c in cache)

