"""Matrix products for the hand-written backward passes of LSTM and GRU (no autograd here).

``matmul_nt(a, b)`` is ``a @ b.T``. On a CPU with float32 it calls oneDNN, the library
``torch.nn.LSTM`` itself runs on, through ``torch.ops.mkldnn._linear_pointwise``; elsewhere
(GPU, float64, a build without oneDNN) it is plain ``torch.matmul``. Why: aten's float32
``mm`` goes to MKL, which on the AMD EPYC machines this book is tested on ran the recurrent
products 1.3x and the big ones 2.4x slower than oneDNN. The oneDNN path is probed once on
first use (it must exist and agree with ``torch.matmul``); any failure falls back for good.
The two differ only by float32 rounding (the order of a sum).

:class:`Linear` is ``F.linear`` as an autograd Function built on ``matmul_nt``, for the input
projection of all steps (first derivatives only).
"""

from __future__ import annotations

import torch
from torch.autograd.function import once_differentiable

_ONEDNN: bool | None = None  # None: not probed yet

try:  # torch >= 2.4 asks per device type; 2.1-2.3 take no argument and have a CPU-specific function
    torch.is_autocast_enabled("cpu")
    _cpu_autocast_enabled = lambda: torch.is_autocast_enabled("cpu")  # noqa: E731
except TypeError:
    _cpu_autocast_enabled = torch.is_autocast_cpu_enabled


def _onednn_ok() -> bool:
    global _ONEDNN
    if _ONEDNN is None:
        try:
            op = torch.ops.mkldnn._linear_pointwise
            a, b = torch.randn(5, 7), torch.randn(3, 7)
            _ONEDNN = bool(torch.backends.mkldnn.is_available()) and torch.allclose(
                op(a, b, None, "none", [], ""), a @ b.T, atol=1e-5)
        except Exception:  # missing op, build without oneDNN, changed signature ...
            _ONEDNN = False
    return _ONEDNN


def matmul_nt(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``a @ b.T (+ bias)``: a (..., K), b (N, K), bias (N,); not differentiable."""
    if a.device.type == "cpu" and a.dtype == torch.float32 and b.dtype == torch.float32 and _onednn_ok():
        return torch.ops.mkldnn._linear_pointwise(a, b, bias, "none", [], "")
    return torch.nn.functional.linear(a, b, bias)


class Linear(torch.autograd.Function):
    """``x W^T + b`` for x (B, T, in): the input projection of every step in one product."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        return matmul_nt(x, weight, bias)  # (B, T, out)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        grad_2d = grad.reshape(-1, grad.shape[-1])  # (B*T, out)
        grad_x = matmul_nt(grad, weight.t()) if ctx.needs_input_grad[0] else None  # (B, T, in)
        grad_w = matmul_nt(grad_2d.t(), x.reshape(-1, x.shape[-1]).t())  # (out, in)
        grad_b = grad_2d.sum(0) if ctx.has_bias else None  # (out,)
        return grad_x, grad_w, grad_b


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """``F.linear`` with the oneDNN products where they apply, else ``F.linear`` itself."""
    if (x.device.type == "cpu" and x.dtype == torch.float32 and not _cpu_autocast_enabled()
            and _onednn_ok()):
        return Linear.apply(x, weight, bias)
    return torch.nn.functional.linear(x, weight, bias)
