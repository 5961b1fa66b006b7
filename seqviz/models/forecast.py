"""A forecaster: any encoder of :func:`~seqviz.models.make_encoder` and a linear head (chapter 10).

``Forecaster(kind)(x (B, T, 1))`` predicts the next ``horizon`` values from the encoder's state at the
last step; :meth:`Forecaster.rollout` feeds its own predictions back in to forecast further.
"""

from __future__ import annotations

import torch
from torch import nn

from ..config import check_device, model_device
from .encoders import make_encoder


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
