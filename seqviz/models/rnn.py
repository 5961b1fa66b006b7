"""The vanilla (Elman) recurrent network, from scratch (Elman, 1990).

    h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)

the same weights at every step: the "sticky note" ``h`` is rewritten once per token.
``nonlinearity`` is "tanh" or "relu" as in ``torch.nn.RNN``, or "linear" (no squashing),
which chapter 3 uses because its gradients have a closed form.
"""

from __future__ import annotations

import torch
from torch import nn

from .recurrent import RecurrentBase

ACTIVATIONS = {"tanh": torch.tanh, "relu": torch.relu, "linear": lambda z: z}


class RNN(RecurrentBase):
    """Drop-in for ``torch.nn.RNN(..., batch_first=True)``; ``forward(x, state=None, return_trace=False)``.

    ``trace["h"]`` is every hidden state, (num_layers * num_directions, B, T, hidden).
    """

    gates = 1
    state_names = ("h",)
    trace_names = ("h",)
    builtin = nn.RNN

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, dropout: float = 0.0, bidirectional: bool = False):
        if nonlinearity not in ACTIVATIONS:
            raise ValueError(f"nonlinearity must be one of {sorted(ACTIVATIONS)}, got {nonlinearity!r}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, num_layers, bias, dropout, bidirectional)

    def _builtin_kwargs(self) -> dict:
        return {**super()._builtin_kwargs(), "nonlinearity": self.nonlinearity}

    def to_builtin(self) -> nn.Module:
        if self.nonlinearity == "linear":
            raise ValueError("torch.nn.RNN has no 'linear' nonlinearity; only tanh and relu RNNs convert")
        return super().to_builtin()

    def _scan(self, projected, state, w_hh, b_hh, record):
        act = ACTIVATIONS[self.nonlinearity]
        (h,) = state  # (B, H)
        if b_hh is not None:
            # the biases just add: fold b_hh in once
            projected = projected + b_hh
        w_hh_t = w_hh.t()  # (H, H)
        hs = []
        for t in range(projected.shape[1]):
            # (B, H): rewrite the note
            h = act(torch.addmm(projected[:, t], h, w_hh_t))
            hs.append(h)
        out = torch.stack(hs, dim=1)  # (B, T, H)
        return out, (h,), {"h": out}
