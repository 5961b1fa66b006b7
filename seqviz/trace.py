"""Recording what a recurrent model does with its error signal (chapters 3 and 4): dL/dh_t for every step.

:func:`hidden_grads` returns dL/dh_t for every step t of the top layer: the *total* derivative, the error signal
that reaches h_t through the output at t and through every later step (Werbos, 1990, backpropagation through
time); :func:`hidden_grad_norms` is its norm, the curve of chapters 3 and 4. It works for every recurrent model
of ``seqviz.models`` through the public per-step API :meth:`~seqviz.models.RecurrentBase.steps` (each h_t its own
node of the graph); a ``torch.nn`` RNN/LSTM/GRU is first copied into the matching seqviz model
(:func:`as_seqviz`). Nothing is stored on the model. This is the one public path of these names
(``from seqviz.trace import hidden_grad_norms``); the rest of chapter 3's gradients (Jacobians, clipping,
truncated BPTT) is :mod:`seqviz.gradients`.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from .config import model_device
from .models import seqviz_twin as as_seqviz

__all__ = ["as_seqviz", "hidden_grad_norms", "hidden_grads"]


def hidden_grads(model: nn.Module, x: torch.Tensor, loss_fn: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    """dL/dh_t of the top layer for every step: a tensor (T, B, D*hidden).

    ``loss_fn(out) -> scalar`` receives the model's output ``out`` (B, T, D*hidden), the
    same tensor ``model(x)[0]`` returns. Row t is the total derivative of the loss with
    respect to the top layer's h_t (both directions side by side when bidirectional).
    The model's own parameter gradients are left untouched. Runs where the model is (``x`` is moved
    there); the gradients stay on that device.
    """
    if not callable(loss_fn):
        raise ValueError(f"loss_fn must be a function out -> scalar loss, got {type(loss_fn).__name__}")
    model = as_seqviz(model)
    if isinstance(x, torch.Tensor):
        x = x.to(model_device(model))
    out, nodes = model.steps(x)  # nodes[direction][t]: h_t (B, H), one node of the graph each
    loss = loss_fn(out)
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        got = tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
        raise ValueError(f"loss_fn must return a scalar tensor, got {got}")
    if not loss.requires_grad:
        raise ValueError("loss_fn's result does not depend on the model's output: there is no gradient to trace")
    flat = [h for hs in nodes for h in hs]
    grads = torch.autograd.grad(loss.reshape(()), flat, allow_unused=True)
    grads = [torch.zeros_like(h) if g is None else g for h, g in zip(flat, grads)]
    T = x.shape[1]
    per_direction = [torch.stack(grads[d * T : (d + 1) * T]) for d in range(len(nodes))]  # each (T, B, H)
    return torch.cat(per_direction, dim=-1)  # (T, B, D*H)


def hidden_grad_norms(model: nn.Module, x: torch.Tensor,
                      loss_fn: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    """||dL/dh_t|| for t = 0..T-1: a tensor (T,) on the CPU (a curve to plot), the norm over the whole
    (B, D*hidden) gradient. Runs where the model is.

    >>> norms = hidden_grad_norms(rnn, x, lambda out: out[:, -1].sum())   # loss at the last step
    """
    grads = hidden_grads(model, x, loss_fn)  # (T, B, D*H)
    return torch.linalg.vector_norm(grads.flatten(1), dim=1).detach().cpu()  # (T,)
