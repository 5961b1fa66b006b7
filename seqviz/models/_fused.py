"""The fused fast path of LSTM and GRU: the same equations as the plain loops in ``lstm.py`` and
``gru.py``, arranged for speed (chapter 4's models run on it by default; the tests check it against
the plain loop and against ``torch.nn``).

What makes it fast, and why a reader can skip it:

- the loop over time is one ``torch.autograd.Function`` whose backward is written out by hand
  (backpropagation through time, Werbos 1990): autograd would otherwise record about 20 small
  nodes per step. Everything that does not depend on the recurrence is computed for all steps at
  once, and ``dL/dW_hh`` is one matrix product after the loop. First derivatives only;
- results go straight into preallocated buffers (``out=``), the GRU's last line is a ``lerp``;
- the layout is time-major (T, B, ...), so each step reads one contiguous block;
- the backward pass touches each saved tensor as few times as it can: the derivative factors of all
  steps in a handful of passes, the output's gradient folded into the recurrent product (``addmm``).

Measured side by side with ``torch.nn.LSTM`` in ``benchmarks/recurrent_speed.py``.

``lstm_scan`` / ``gru_scan`` have the signature of ``RecurrentBase._scan``; ``project`` that of
``RecurrentBase._project``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.autograd.function import once_differentiable


def project(layer_input, w_ih, b_ih, b_hh):
    """The GRU's ``layer_input W_ih^T + b_ih``, computed time-major so that step t is one contiguous block; the
    result is still indexed (B, T, 3H). (``b_hh`` stays inside the loop: the reset gate multiplies it.)"""
    return F.linear(layer_input.transpose(0, 1), w_ih, b_ih).transpose(0, 1)


def project_lstm(layer_input, w_ih, b_ih, b_hh):
    """The LSTM's ``layer_input W_ih^T + b_ih + b_hh``: both biases are simply added, so they join the product;
    time-major as :func:`project`, indexed (B, T, 4H)."""
    bias = b_ih + b_hh if b_ih is not None else None
    return F.linear(layer_input.transpose(0, 1), w_ih, bias).transpose(0, 1)


def lstm_scan(projected, state, w_hh, b_hh, record):
    """The LSTM's loop over one direction of one layer: ``projected`` (B, T, 4H) from :func:`project_lstm`
    (``b_hh`` is in it already), state (h, c) each (B, H)."""
    h0, c0 = state  # (B, H) each
    dtype = projected.dtype  # under autocast the projection may be lower precision than the weights
    projected = projected.transpose(0, 1).contiguous()  # (T, B, 4H), a no-op after project
    out, h, c, gates, cells = _LSTMScan.apply(projected, h0.to(dtype), c0.to(dtype), w_hh.to(dtype))
    steps = {}
    if record:  # views of what the loop computed anyway: recording costs nothing
        input_gate, forget_gate, candidate, output_gate = gates.transpose(0, 1).unbind(2)  # (B, T, H) each
        steps = {"h": out.transpose(0, 1), "c": cells.transpose(0, 1), "input": input_gate,
                 "forget": forget_gate, "candidate": candidate, "output": output_gate}
    return out.transpose(0, 1).contiguous(), (h, c), steps  # out (B, T, H), contiguous like nn.LSTM's


def gru_scan(projected, state, w_hh, b_hh, record):
    """The GRU's loop over one direction of one layer: ``projected`` (B, T, 3H), state (h,) (B, H)."""
    (h0,) = state  # (B, H)
    dtype = projected.dtype  # under autocast the projection may be lower precision than the weights
    projected = projected.transpose(0, 1).contiguous()  # (T, B, 3H), a no-op after project
    b_hh = b_hh.to(dtype) if b_hh is not None else None
    out, h, gates = _GRUScan.apply(projected, h0.to(dtype), w_hh.to(dtype), b_hh)
    steps = {}
    if record:  # views of what the loop computed anyway: recording costs nothing
        reset_gate, update_gate, candidate = gates.transpose(0, 1).unbind(2)  # (B, T, H) each
        steps = {"h": out.transpose(0, 1), "update": update_gate, "reset": reset_gate, "candidate": candidate}
    return out.transpose(0, 1).contiguous(), (h,), steps  # out (B, T, H), contiguous like nn.GRU's


class _LSTMScan(torch.autograd.Function):
    """One direction of one layer, time-major: ``projected`` (T, B, 4H) holds x_t W_ih^T + b_ih + b_hh.

    Returns h_t for all t (T, B, H), h_T, c_T (B, H), the gates (T, B, 4, H) and c_t (T, B, H).
    """

    @staticmethod
    def forward(ctx, projected, h0, c0, w_hh):
        T, B, _ = projected.shape
        H = h0.shape[-1]
        with torch.autocast(projected.device.type, enabled=False):
            w_hh_t = w_hh.t()  # (H, 4H), a view
            gates = projected.new_empty(T, B, 4, H)  # i, f, g, o after squashing, kept for backward
            cells = projected.new_empty(T, B, H)  # c_t
            tanh_cells = projected.new_empty(T, B, H)  # tanh(c_t)
            out = projected.new_empty(T, B, H)  # h_t
            z = projected.new_empty(B, 4, H)  # one step's pre-activations, reused
            h, c = h0, c0
            for t in range(T):  # results go straight into the buffers (out=...): no copies afterwards
                torch.addmm(projected[t], h, w_hh_t, out=z.view(B, 4 * H))  # (B, 4H): all pre-activations at once
                torch.sigmoid(z, out=gates[t])  # (B, 4, H): i, f, o (and g, replaced next) in one call
                input_gate, forget_gate, candidate, output_gate = gates[t].unbind(1)  # (B, H) each, rows i, f, g, o
                torch.tanh(z[:, 2], out=candidate)  # (B, H) in [-1, 1]
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
        # All that does not depend on the recurrence, for every step at once, in few passes:
        # dL/dz_t = [dc_t, dc_t, dc_t, dh_t] * k_t (z = pre-activations of i, f, g, o), dc_t += dh_t * a_t.
        d_act = torch.addcmul(gates, gates, gates, value=-1)  # (T, B, 4, H): sigmoid' = s - s^2 (g's row unused)
        k = torch.empty_like(gates)  # (T, B, 4, H)
        torch.mul(d_act[:, :, 0], g, out=k[:, :, 0])  # dc/dz_i = i' g
        torch.mul(d_act[1:, :, 1], cells[:-1], out=k[1:, :, 1])  # dc/dz_f = f' c_{t-1}
        torch.mul(d_act[0, :, 1], c0, out=k[0, :, 1])
        torch.addcmul(i, i * g, g, value=-1, out=k[:, :, 2])  # dc/dz_g = i (1 - g^2): tanh' = 1 - tanh^2
        torch.mul(d_act[:, :, 3], tanh_c, out=k[:, :, 3])  # dh/dz_o = o' tanh(c)
        a = torch.addcmul(o, o * tanh_c, tanh_c, value=-1)  # (T, B, H): dh_t/dc_t = o (1 - tanh^2 c)
        extra = None  # gradients that reach the gates through the trace, as pre-activation gradients
        if grad_gates is not None:
            extra = grad_gates * d_act
            extra[:, :, 2] = grad_gates[:, :, 2] * (1 - g * g)
        grad_z = gates.new_empty(T, B, 4, H)  # dL/dz_t
        dh = grad_h if grad_h is not None else h0.new_zeros(B, H)  # dL/dh_t (total), starting at t = T-1
        if grad_out is not None:
            dh = dh + grad_out[T - 1]
        dc = grad_c if grad_c is not None else c0.new_zeros(B, H)  # dL/dc_t through step t+1
        for t in range(T - 1, -1, -1):
            dc = torch.addcmul(dc, dh, a[t])  # (B, H): total dL/dc_t
            if grad_cells is not None:
                dc = dc + grad_cells[t]
            torch.mul(dc.unsqueeze(1), k[t, :, :3], out=grad_z[t, :, :3])  # (B, 3, H): into i, f, g
            torch.mul(dh, k[t, :, 3], out=grad_z[t, :, 3])  # (B, H): into o
            if extra is not None:
                grad_z[t] += extra[t]
            step = grad_z[t].view(B, 4 * H)
            if grad_out is not None and t > 0:  # dL/dh_{t-1}: through W_hh, plus the output's own share
                dh = torch.addmm(grad_out[t - 1], step, w_hh)  # (B, H)
            else:
                dh = torch.mm(step, w_hh)  # (B, H)
            dc = dc * f[t]  # (B, H): dL/dc_{t-1} through the forget gate
        grad_z = grad_z.view(T, B, 4 * H)
        # dL/dW_hh = sum_t dz_t^T h_{t-1}: step 0 reads h0, the others the outputs before them
        grad_w_hh = torch.addmm(torch.mm(grad_z[0].t(), h0), grad_z[1:].reshape(-1, 4 * H).t(),
                                out[:-1].reshape(-1, H))  # (4H, H)
        return grad_z, dh, dc, grad_w_hh


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
                hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, dim=1)  # (B, H) each: W_h* h_{t-1} + b_h*
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
            dh = torch.addcmul(torch.mm(grad_hidden[t].view(B, 3 * H), w_hh), dh, z[t])  # (B, H): dL/dh_{t-1}
            if grad_out is not None and t > 0:
                dh = dh + grad_out[t - 1]  # ... plus the output's own share
        grad_projected = grad_hidden.clone()  # r and z: the same gradient reaches W_i* x_t as W_h* h
        grad_projected[:, :, 2] = grad_h_all * d_n  # n: before the reset gate multiplies
        if extra is not None:
            grad_projected[:, :, 2] += grad_gates[:, :, 2] * (1 - n * n)
        grad_hidden = grad_hidden.view(T * B, 3 * H)
        grad_w_hh = torch.mm(grad_hidden.t(), h_prev.view(T * B, H))  # (3H, H), all steps in one product
        grad_b_hh = grad_hidden.sum(0) if ctx.has_bias else None
        return grad_projected.view(T, B, 3 * H), dh, grad_w_hh, grad_b_hh
