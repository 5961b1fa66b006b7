"""Gated recurrent unit, from scratch (Cho et al., 2014), in PyTorch's form.

    r_t = sigmoid(W_ir x_t + b_ir + W_hr h_{t-1} + b_hr)             reset gate
    z_t = sigmoid(W_iz x_t + b_iz + W_hz h_{t-1} + b_hz)             update gate
    n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn))        candidate
    h_t = (1 - z_t) * n_t + z_t * h_{t-1}

Note the direction of ``z``: here, as in ``torch.nn.GRU``, z near 1 *keeps* the old state.
Cho et al. (2014) and seed 002 write the mirror form h_t = (1 - z) h_{t-1} + z h~, where
z near 1 takes the candidate; the two are the same model with z replaced by 1 - z.
The reset gate multiplies ``W_hn h + b_hn`` (after the product), again as PyTorch does,
so ``b_hh`` cannot be folded into the input projection. Weight rows are stacked r, z, n.

:meth:`GRU._scan` is these four lines in a loop: the reference, tested equal to
``torch.nn.GRU``. By default the model runs the fused fast path of ``_fused.py`` (the same
numbers, tested against this loop); ``GRU(..., fused=False)`` runs the loop.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from . import _fused
from .recurrent import RecurrentBase


class GRU(RecurrentBase):
    """Drop-in for ``torch.nn.GRU(..., batch_first=True)``.

    ``forward(x, state=None, return_trace=False)`` returns ``(out, h_n)``, plus with
    ``return_trace`` a dict with "h", "update", "reset", "candidate", each
    (num_layers * num_directions, B, T, hidden), time in input order. "update" is
    PyTorch's z (near 1 keeps the old state; see the module docstring for Cho et al.'s mirror form).
    """

    gates = 3
    state_names = ("h",)
    trace_names = ("h", "update", "reset", "candidate")
    builtin = nn.GRU
    fused_scan = staticmethod(_fused.gru_scan)
    fused_project = staticmethod(_fused.project)

    def _scan(self, projected, state, w_hh, b_hh, record):
        """The plain loop: ``projected`` (B, T, 3H) holds W_i* x_t + b_i* for every t,
        in reading order."""
        (h,) = state  # (B, H)
        hs, steps = [], {name: [] for name in self.trace_names[1:]}
        for t in range(projected.shape[1]):
            x_r, x_z, x_n = projected[:, t].chunk(3, dim=1)  # W_i* x_t + b_i*
            # (B, H) each: W_h* h_{t-1} + b_h*
            h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, dim=1)
            reset_gate = torch.sigmoid(x_r + h_r)  # r_t
            update_gate = torch.sigmoid(x_z + h_z)  # z_t: near 1 keeps h_{t-1}
            candidate = torch.tanh(x_n + reset_gate * h_n)  # n_t
            h = (1 - update_gate) * candidate + update_gate * h  # h_t
            hs.append(h)
            if record:
                for name, value in (("update", update_gate), ("reset", reset_gate),
                                    ("candidate", candidate)):
                    steps[name].append(value)
        out = torch.stack(hs, dim=1)  # (B, T, H)
        trace = {"h": out, **{name: torch.stack(v, dim=1)
                              for name, v in steps.items()}} if record else {}
        return out, (h,), trace
