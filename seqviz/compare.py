"""``make_block`` for chapter 8's cost comparison (moving to :mod:`seqviz.models`; the measurements that were here
live in :mod:`seqviz.measure` and :mod:`seqviz.experiments`)."""

from __future__ import annotations

from torch import nn

__all__ = ["make_block"]


def make_block(kind: str, d_model: int, num_heads: int = 4) -> nn.Module:
    """``"attention"``: a seqviz TransformerEncoderLayer (self-attention + FFN, dropout off);
    ``"gru"``: a ``torch.nn.GRU`` layer. Both map (B, T, d_model) to (B, T, d_model)."""
    from .models import TransformerEncoderLayer

    if kind == "attention":
        return TransformerEncoderLayer(d_model, num_heads, 2 * d_model, dropout=0.0)
    if kind == "gru":
        return nn.GRU(d_model, d_model, batch_first=True)
    raise ValueError(f"kind must be 'attention' or 'gru', got {kind!r}")
