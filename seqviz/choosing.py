"""Chapter 10's models: the causal Transformer encoder, ``make_encoder`` and the ``Forecaster``.

(Moving to :mod:`seqviz.models`; the runners and measurements that were here live in :mod:`seqviz.experiments`
and :mod:`seqviz.measure`.)
"""

from __future__ import annotations

import torch
from torch import nn

from .config import check_device, model_device
from .models.mha import SinusoidalPositionalEncoding, causal_mask
from .models.transformer import TransformerEncoderLayer

__all__ = ["KINDS", "CausalTransformerEncoder", "Forecaster", "make_encoder"]

KINDS = ("RNN", "GRU", "LSTM", "Transformer")


class CausalTransformerEncoder(nn.Module):
    """``forward(x (B, T, input_size))`` -> ``(out (B, T, hidden_size), None)``: a linear input
    projection, sinusoidal positions, ``num_layers`` encoder blocks under a causal mask."""

    def __init__(self, input_size: int, hidden_size: int, num_heads: int = 4, num_layers: int = 1,
                 dim_feedforward: int | None = None, max_len: int = 1024, dropout: float = 0.0):
        super().__init__()
        self.input_size, self.hidden_size = input_size, hidden_size
        self.project = nn.Linear(input_size, hidden_size)
        self.position = SinusoidalPositionalEncoding(max_len, hidden_size)
        self.layers = nn.ModuleList(TransformerEncoderLayer(hidden_size, num_heads, dim_feedforward or 2 * hidden_size,
                                                            dropout=dropout, norm_first=True)
                                    for _ in range(num_layers))
        self.norm = nn.LayerNorm(hidden_size)

    def forward(self, x, state=None, return_trace: bool = False):
        if x.dim() != 3 or x.shape[-1] != self.input_size:
            raise ValueError(f"expected x (B, T, {self.input_size}), got {tuple(x.shape)}")
        check_device(self.project.weight, type(self).__name__, x=x)
        h = self.position(self.project(x))  # (B, T, H)
        mask = causal_mask(x.shape[1], device=x.device)  # (T, T)
        weights = []
        for layer in self.layers:
            h, w = layer(h, mask=mask)  # (B, T, H), (B, heads, T, T)
            weights.append(w)
        out = self.norm(h)
        return (out, None, {"attention": weights}) if return_trace else (out, None)


def make_encoder(kind: str, input_size: int, hidden_size: int, **kwargs) -> nn.Module:
    """A batch-first encoder of ``kind`` (one of :data:`KINDS`) mapping (B, T, input) to (B, T, hidden)."""
    builtins = {"RNN": nn.RNN, "GRU": nn.GRU, "LSTM": nn.LSTM}
    if kind in builtins:
        return builtins[kind](input_size, hidden_size, batch_first=True, **kwargs)
    if kind == "Transformer":
        return CausalTransformerEncoder(input_size, hidden_size, **kwargs)
    raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


class Forecaster(nn.Module):
    """``forward(x (B, T, 1))`` -> the next ``horizon`` values (B, horizon), read from the last step."""

    def __init__(self, kind: str, hidden_size: int = 32, horizon: int = 1, input_size: int = 1, **kwargs):
        super().__init__()
        self.kind, self.horizon = kind, horizon
        self.encoder = make_encoder(kind, input_size, hidden_size, **kwargs)
        self.head = nn.Linear(hidden_size, horizon)

    def forward(self, x):
        if x.dim() != 3:
            raise ValueError(f"Forecaster expects x (B, T, input_size), got {tuple(x.shape)}")
        check_device(self.head.weight, type(self).__name__, x=x)
        return self.head(self.encoder(x)[0][:, -1])  # (B, horizon)

    @torch.no_grad()
    def rollout(self, context: torch.Tensor, steps: int) -> torch.Tensor:
        """Forecast ``steps`` values after ``context`` (T,) by feeding each prediction back in; runs where the
        model is and answers on ``context``'s device."""
        window = context.detach().float().reshape(1, -1, 1).to(model_device(self))
        out = []
        for _ in range(steps):
            nxt = self(window)[:, :1]  # (1, 1)
            out.append(nxt)
            window = torch.cat([window[:, 1:], nxt[:, :, None]], dim=1)
        return torch.cat(out, 1)[0].to(context.device)  # (steps,)
