"""Long short-term memory, from scratch (Hochreiter & Schmidhuber, 1997; forget gate: Gers et al., 2000).

    i_t = sigmoid(W_ii x_t + b_ii + W_hi h_{t-1} + b_hi)      input gate: how much new to write
    f_t = sigmoid(W_if x_t + b_if + W_hf h_{t-1} + b_hf)      forget gate: how much of the belt to keep
    g_t = tanh(W_ig x_t + b_ig + W_hg h_{t-1} + b_hg)         candidate: what to write
    o_t = sigmoid(W_io x_t + b_io + W_ho h_{t-1} + b_ho)      output gate: how much of the belt to show
    c_t = f_t * c_{t-1} + i_t * g_t                           the cell state, a "conveyor belt"
    h_t = o_t * tanh(c_t)

The rows of ``weight_ih``/``weight_hh`` are stacked in PyTorch's order i, f, g, o, so
``copy_from(torch.nn.LSTM(...))`` is a plain copy. Chapter 4 plots the gates from the trace.

Speed: the loop over time is one ``torch.autograd.Function`` whose backward is written out
by hand (backpropagation through time, Werbos 1990). Everything that does not depend on the
recurrence is computed for all steps at once, and ``dL/dW_hh`` is one matrix product after
the loop. Without it, autograd records about 20 small nodes per step and the model ran about
5x slower than ``torch.nn.LSTM``. The tests check gradients against ``torch.nn.LSTM`` and with
``gradcheck``; second derivatives are not supported.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.autograd.function import once_differentiable

from ._matmul import linear, matmul_nt
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

    def _check_builtin_extra(self, module):
        if getattr(module, "proj_size", 0) != 0:
            raise ValueError(f"cannot copy: LSTM supports proj_size=0 only, got proj_size={module.proj_size} "
                             "in the torch.nn.LSTM")

    def _project(self, layer_input, w_ih, b_ih):
        # F.linear on oneDNN where it applies (see _matmul), computed time-major so that step t is one
        # contiguous block; the result is still indexed (B, T, 4H)
        return linear(layer_input.transpose(0, 1), w_ih, b_ih).transpose(0, 1)

    def _scan(self, projected, state, w_hh, b_hh, record):
        h0, c0 = state  # (B, H) each
        dtype = projected.dtype  # under autocast the projection may be lower precision than the weights
        if b_hh is not None:
            projected = projected + b_hh.to(dtype)  # (B, T, 4H): both biases are simply added, fold b_hh in once
        projected = projected.transpose(0, 1).contiguous()  # (T, B, 4H), a no-op after _project
        out, h, c, gates, cells = _LSTMScan.apply(projected, h0.to(dtype), c0.to(dtype), w_hh.to(dtype))
        steps = {}
        if record:  # views of what the loop computed anyway: recording costs nothing
            input_gate, forget_gate, candidate, output_gate = gates.transpose(0, 1).unbind(2)  # (B, T, H) each
            steps = {"h": out.transpose(0, 1), "c": cells.transpose(0, 1), "input": input_gate,
                     "forget": forget_gate, "candidate": candidate, "output": output_gate}
        return out.transpose(0, 1).contiguous(), (h, c), steps  # out (B, T, H), contiguous like nn.LSTM's


class _LSTMScan(torch.autograd.Function):
    """One direction of one layer, time-major: ``projected`` (T, B, 4H) holds x_t W_ih^T + b_ih + b_hh.

    Returns h_t for all t (T, B, H), h_T, c_T (B, H), the gates (T, B, 4, H) and c_t (T, B, H).
    """

    @staticmethod
    def forward(ctx, projected, h0, c0, w_hh):
        T, B, _ = projected.shape
        H = h0.shape[-1]
        with torch.autocast(projected.device.type, enabled=False):
            gates = projected.new_empty(T, B, 4, H)  # i, f, g, o after squashing, kept for backward
            cells = projected.new_empty(T, B, H)  # c_t
            tanh_cells = projected.new_empty(T, B, H)  # tanh(c_t)
            out = projected.new_empty(T, B, H)  # h_t
            h, c = h0, c0
            for t in range(T):  # results go straight into the buffers (out=...): no copies afterwards
                z = projected[t] + matmul_nt(h, w_hh)  # (B, 4H): every gate's pre-activation in one product
                zi, zf, zg, zo = z.chunk(4, dim=1)  # (B, H) each, PyTorch's row order i, f, g, o
                input_gate = torch.sigmoid(zi, out=gates[t, :, 0])  # (B, H) in [0, 1]
                forget_gate = torch.sigmoid(zf, out=gates[t, :, 1])  # (B, H) in [0, 1]
                candidate = torch.tanh(zg, out=gates[t, :, 2])  # (B, H) in [-1, 1]
                output_gate = torch.sigmoid(zo, out=gates[t, :, 3])  # (B, H) in [0, 1]
                c = torch.addcmul(forget_gate * c, input_gate, candidate, out=cells[t])  # (B, H): f*c + i*g
                h = torch.mul(output_gate, torch.tanh(c, out=tanh_cells[t]), out=out[t])  # (B, H)
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(h0, c0, w_hh, gates, cells, tanh_cells, out)
        return out, h.clone(), c.clone(), gates, cells

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out, grad_h, grad_c, grad_gates, grad_cells):
        h0, c0, w_hh, gates, cells, tanh_c, out = ctx.saved_tensors
        T, B, _, H = gates.shape
        i, f, g, o = gates.unbind(2)  # (T, B, H) each
        c_prev = torch.cat([c0.unsqueeze(0), cells[:-1]])  # (T, B, H): c_{t-1}
        # All that does not depend on the recurrence, for every step at once:
        # dL/dz_t = [dc_t, dc_t, dc_t, dh_t] * k_t (z = pre-activations of i, f, g, o), dc_t += dh_t * a_t.
        d_act = gates * (1 - gates)  # (T, B, 4, H): sigmoid' = s (1 - s); the g row is replaced next
        d_act[:, :, 2] = 1 - g * g  # tanh' = 1 - tanh^2
        k = d_act * torch.stack([g, c_prev, i, tanh_c], dim=2)  # (T, B, 4, H)
        a = o * (1 - tanh_c * tanh_c)  # (T, B, H): d h_t / d c_t through h = o * tanh(c)
        extra = grad_gates * d_act if grad_gates is not None else None  # the trace's gates reached the loss
        w_hh_t = w_hh.t().contiguous()  # (H, 4H)
        grad_z = gates.new_empty(T, B, 4, H)  # dL/dz_t
        dh = grad_h if grad_h is not None else h0.new_zeros(B, H)  # dL/dh_t (total), starting at t = T-1
        if grad_out is not None:
            dh = dh + grad_out[T - 1]
        dc = grad_c if grad_c is not None else c0.new_zeros(B, H)  # dL/dc_t through step t+1
        for t in range(T - 1, -1, -1):
            dc = torch.addcmul(dc, dh, a[t])  # (B, H): total dL/dc_t
            if grad_cells is not None:
                dc = dc + grad_cells[t]
            torch.mul(torch.stack([dc, dc, dc, dh], dim=1), k[t], out=grad_z[t])  # (B, 4, H)
            if extra is not None:
                grad_z[t] += extra[t]
            dh = matmul_nt(grad_z[t].view(B, 4 * H), w_hh_t)  # (B, H): dL/dh_{t-1} through W_hh
            if grad_out is not None and t > 0:
                dh = dh + grad_out[t - 1]  # ... plus the output's own share
            dc = dc * f[t]  # (B, H): dL/dc_{t-1} through the forget gate
        grad_z = grad_z.view(T, B, 4 * H)
        h_prev = torch.cat([h0.unsqueeze(0), out[:-1]])  # (T, B, H): h_{t-1}
        grad_w_hh = matmul_nt(grad_z.view(T * B, 4 * H).t(), h_prev.view(T * B, H).t())  # (4H, H), all steps
        return grad_z, dh, dc, grad_w_hh
