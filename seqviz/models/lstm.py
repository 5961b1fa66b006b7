"""Long short-term memory, from scratch (Hochreiter & Schmidhuber, 1997; forget gate: Gers et al., 2000).

    i_t = sigmoid(W_ii x_t + b_ii + W_hi h_{t-1} + b_hi)      input gate: how much new to write
    f_t = sigmoid(W_if x_t + b_if + W_hf h_{t-1} + b_hf)      forget gate: how much of the belt to keep
    g_t = tanh(W_ig x_t + b_ig + W_hg h_{t-1} + b_hg)         candidate: what to write
    o_t = sigmoid(W_io x_t + b_io + W_ho h_{t-1} + b_ho)      output gate: how much of the belt to show
    c_t = f_t * c_{t-1} + i_t * g_t                           the cell state, a "conveyor belt"
    h_t = o_t * tanh(c_t)

The rows of ``weight_ih``/``weight_hh`` are stacked in PyTorch's order i, f, g, o (``W_ii``
is the first quarter of ``weight_ih_l0``), so ``copy_from(torch.nn.LSTM(...))`` is a plain
copy. :meth:`LSTM._scan` is these six lines in a loop: the reference, tested equal to
``torch.nn.LSTM``. By default the model runs the fused fast path of ``_fused.py`` instead
(the same numbers, tested against this loop); ``LSTM(..., fused=False)`` runs the loop.
Chapter 4 plots the gates from the trace.
"""

from __future__ import annotations

import torch
from torch import nn

from . import _fused
from .recurrent import RecurrentBase


class LSTM(RecurrentBase):
    """Drop-in for ``torch.nn.LSTM(..., batch_first=True)`` (no ``proj_size``).

    ``forward(x, state=None, return_trace=False)`` returns ``(out, (h_n, c_n))``, plus with
    ``return_trace`` a dict with "h", "c", "forget", "input", "output", "candidate", each
    (num_layers * num_directions, B, T, hidden), time in input order.
    """

    gates = 4
    state_names = ("h", "c")
    trace_names = ("h", "c", "forget", "input", "output", "candidate")
    builtin = nn.LSTM
    fused_scan = staticmethod(_fused.lstm_scan)
    fused_project = staticmethod(_fused.project_lstm)

    def _check_builtin_extra(self, module):
        if getattr(module, "proj_size", 0) != 0:
            raise ValueError(f"cannot copy: LSTM supports proj_size=0 only, got proj_size={module.proj_size} "
                             "in the torch.nn.LSTM")

    def _scan(self, projected, state, w_hh, b_hh, record):
        """The plain loop: ``projected`` (B, T, 4H) holds W_i* x_t + b_i*
        for every t, in reading order."""
        h, c = state  # (B, H) each
        if b_hh is not None:
            # the biases just add: fold b_hh in once
            projected = projected + b_hh
        w_hh_t = w_hh.t()  # (H, 4H)
        hs, steps = [], {name: [] for name in self.trace_names[1:]}
        for t in range(projected.shape[1]):
            # (B, 4H): W_i* x_t + b_i* + W_h* h_{t-1} + b_h*
            z = torch.addmm(projected[:, t], h, w_hh_t)
            # (B, H) each, rows i, f, g, o
            z_i, z_f, z_g, z_o = z.chunk(4, dim=1)
            input_gate = torch.sigmoid(z_i)  # i_t
            forget_gate = torch.sigmoid(z_f)  # f_t
            candidate = torch.tanh(z_g)  # g_t
            output_gate = torch.sigmoid(z_o)  # o_t
            # c_t: keep some of the belt, write some new
            c = forget_gate * c + input_gate * candidate
            h = output_gate * torch.tanh(c)  # h_t: show some of the belt
            hs.append(h)
            if record:
                for name, value in (("c", c), ("forget", forget_gate),
                                    ("input", input_gate),
                                    ("output", output_gate),
                                    ("candidate", candidate)):
                    steps[name].append(value)
        out = torch.stack(hs, dim=1)  # (B, T, H)
        trace = {"h": out, **{name: torch.stack(v, dim=1)
                              for name, v in steps.items()}
                 } if record else {}
        return out, (h, c), trace
