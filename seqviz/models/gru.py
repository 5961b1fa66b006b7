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

Speed: as in ``lstm.py``, the loop over time is one ``torch.autograd.Function`` with a
hand-written backward (first derivatives only); the tests check it against ``torch.nn.GRU``.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.autograd.function import once_differentiable

from ._matmul import linear, matmul_nt
from .recurrent import RecurrentBase


class GRU(RecurrentBase):
    """Drop-in for ``torch.nn.GRU(..., batch_first=True)``.

    ``forward(x, h0=None, return_trace=False)`` returns ``(out, h_n)``, plus with
    ``return_trace`` a dict with "h", "update", "reset", "candidate", each
    (num_layers * num_directions, B, T, hidden), time in input order. "update" is
    PyTorch's z (near 1 keeps the old state; see the module docstring for Cho et al.'s mirror form).
    """

    gates = 3
    state_names = ("h",)
    trace_names = ("h", "update", "reset", "candidate")
    builtin = nn.GRU

    def _project(self, layer_input, w_ih, b_ih):
        # F.linear on oneDNN where it applies (see _matmul), time-major; still indexed (B, T, 3H)
        return linear(layer_input.transpose(0, 1), w_ih, b_ih).transpose(0, 1)

    def _scan(self, projected, state, w_hh, b_hh, record):
        (h0,) = state  # (B, H)
        dtype = projected.dtype  # under autocast the projection may be lower precision than the weights
        projected = projected.transpose(0, 1).contiguous()  # (T, B, 3H), a no-op after _project
        b_hh = b_hh.to(dtype) if b_hh is not None else None
        out, h, gates = _GRUScan.apply(projected, h0.to(dtype), w_hh.to(dtype), b_hh)
        steps = {}
        if record:  # views of what the loop computed anyway: recording costs nothing
            reset_gate, update_gate, candidate = gates.transpose(0, 1).unbind(2)  # (B, T, H) each
            steps = {"h": out.transpose(0, 1), "update": update_gate, "reset": reset_gate, "candidate": candidate}
        return out.transpose(0, 1).contiguous(), (h,), steps  # out (B, T, H), contiguous like nn.GRU's


class _GRUScan(torch.autograd.Function):
    """One direction of one layer, time-major: ``projected`` (T, B, 3H) holds x_t W_ih^T + b_ih.

    Returns h_t for all t (T, B, H), h_T (B, H) and the gates r, z, n (T, B, 3, H).
    """

    @staticmethod
    def forward(ctx, projected, h0, w_hh, b_hh):
        T, B, _ = projected.shape
        H = h0.shape[-1]
        with torch.autocast(projected.device.type, enabled=False):
            gates = projected.new_empty(T, B, 3, H)  # r, z, n, kept for backward
            hidden_n = projected.new_empty(T, B, H)  # W_hn h_{t-1} + b_hn, kept for backward
            out = projected.new_empty(T, B, H)  # h_t
            h = h0
            for t in range(T):  # results go straight into the buffers (out=...): no copies afterwards
                xr, xz, xn = projected[t].chunk(3, dim=1)  # (B, H) each: W_i* x_t + b_i*
                hr, hz, hn = matmul_nt(h, w_hh, b_hh).chunk(3, dim=1)  # (B, H) each: W_h* h_{t-1} + b_h*
                reset_gate = torch.sigmoid(xr + hr, out=gates[t, :, 0])  # (B, H) in [0, 1]
                update_gate = torch.sigmoid(xz + hz, out=gates[t, :, 1])  # (B, H) in [0, 1]; near 1 keeps h
                candidate = torch.tanh(torch.addcmul(xn, reset_gate, hn), out=gates[t, :, 2])  # (B, H) in [-1, 1]
                hidden_n[t] = hn
                h = torch.lerp(candidate, h, update_gate, out=out[t])  # (B, H): (1 - z) * n + z * h_{t-1}
        ctx.set_materialize_grads(False)
        ctx.has_bias = b_hh is not None
        ctx.save_for_backward(h0, w_hh, gates, hidden_n, out)
        return out, h.clone(), gates

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out, grad_h, grad_gates):
        h0, w_hh, gates, hidden_n, out = ctx.saved_tensors
        T, B, _, H = gates.shape
        r, z, n = gates.unbind(2)  # (T, B, H) each
        h_prev = torch.cat([h0.unsqueeze(0), out[:-1]])  # (T, B, H): h_{t-1}
        # All that does not depend on the recurrence, for every step at once. Per unit of dL/dh_t:
        d_n = (1 - z) * (1 - n * n)  # (T, B, H): into the candidate's pre-activation (and W_in x_t)
        d_r = d_n * hidden_n * r * (1 - r)  # into the reset gate's pre-activation
        d_z = (h_prev - n) * z * (1 - z)  # into the update gate's pre-activation
        k = torch.stack([d_r, d_z, d_n * r], dim=2)  # (T, B, 3, H): into W_hr h, W_hz h, W_hn h + b_hn
        extra = None  # gradients that reach the gates through the trace, as pre-activation gradients
        if grad_gates is not None:
            g_r, g_z, g_n = grad_gates.unbind(2)
            e_n = g_n * (1 - n * n)
            extra = torch.stack([(g_r + e_n * hidden_n) * r * (1 - r), g_z * z * (1 - z), e_n * r], dim=2)
        w_hh_t = w_hh.t().contiguous()  # (H, 3H)
        grad_hidden = gates.new_empty(T, B, 3, H)  # dL/d(W_h* h_{t-1} + b_h*)
        grad_h_all = gates.new_empty(T, B, H)  # dL/dh_t (total)
        dh = grad_h if grad_h is not None else h0.new_zeros(B, H)  # dL/dh_t, starting at t = T-1
        if grad_out is not None:
            dh = dh + grad_out[T - 1]
        for t in range(T - 1, -1, -1):
            grad_h_all[t] = dh
            torch.mul(dh.unsqueeze(1), k[t], out=grad_hidden[t])  # (B, 3, H)
            if extra is not None:
                grad_hidden[t] += extra[t]
            dh = torch.addcmul(matmul_nt(grad_hidden[t].view(B, 3 * H), w_hh_t), dh, z[t])  # (B, H): dL/dh_{t-1}
            if grad_out is not None and t > 0:
                dh = dh + grad_out[t - 1]  # ... plus the output's own share
        grad_projected = grad_hidden.clone()  # r and z: the same gradient reaches W_i* x_t as W_h* h
        grad_projected[:, :, 2] = grad_h_all * d_n  # n: before the reset gate multiplies
        if extra is not None:
            grad_projected[:, :, 2] += grad_gates[:, :, 2] * (1 - n * n)
        grad_hidden = grad_hidden.view(T * B, 3 * H)
        grad_w_hh = matmul_nt(grad_hidden.t(), h_prev.view(T * B, H).t())  # (3H, H), all steps in one product
        grad_b_hh = grad_hidden.sum(0) if ctx.has_bias else None
        return grad_projected.view(T, B, 3 * H), dh, grad_w_hh, grad_b_hh
