"""Encoders and blocks built by name, for the chapters that compare them side by side (8 and 10).

- :data:`KINDS` and :func:`make_encoder`: ``"RNN"``, ``"GRU"``, ``"LSTM"`` (``torch.nn``'s, from the one
  table of cells in :mod:`~seqviz.models.cells`) or ``"Transformer"`` (the causal
  :class:`~seqviz.models.CausalTransformerEncoder`), each mapping (B, T, input) to (B, T, hidden);
- :func:`make_block`: one self-attention block or one GRU layer of the same width (chapter 8's cost
  against length).
"""

from __future__ import annotations

from torch import nn

from .cells import make_recurrent
from .lm import CausalTransformerEncoder
from .transformer import TransformerEncoderLayer

KINDS = ("RNN", "GRU", "LSTM", "Transformer")


def make_encoder(kind: str, input_size: int, hidden_size: int, **kwargs) -> nn.Module:
    """A batch-first encoder of ``kind`` (one of :data:`KINDS`) mapping (B, T, input) to (B, T, hidden);
    ``kwargs`` go to its constructor."""
    if kind == "Transformer":
        return CausalTransformerEncoder(input_size, hidden_size, **kwargs)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return make_recurrent(kind, input_size, hidden_size, **kwargs)


def make_block(kind: str, d_model: int, num_heads: int = 4) -> nn.Module:
    """``"attention"``: a seqviz TransformerEncoderLayer (self-attention + FFN, dropout off);
    ``"gru"``: a ``torch.nn.GRU`` layer. Both map (B, T, d_model) to (B, T, d_model)."""
    if kind == "attention":
        return TransformerEncoderLayer(d_model, num_heads, 2 * d_model, dropout=0.0)
    if kind == "gru":
        return make_recurrent("gru", d_model, d_model)
    raise ValueError(f"kind must be 'attention' or 'gru', got {kind!r}")
