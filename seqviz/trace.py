"""Recording what a recurrent network does: per-step gradients of the hidden state.

:func:`hidden_grads` returns dL/dh_t for every step t of the top layer: the *total*
derivative, the error signal that reaches h_t through the output at t and through every
later step (Werbos, 1990, backpropagation through time). :func:`hidden_grad_norms` is its
norm, the curve of chapter 3: for a vanilla RNN it shrinks or grows geometrically as t
moves back from the loss (Bengio et al., 1994; Pascanu et al., 2013).

How it works for every model of ``seqviz.models`` (RNN, LSTM, GRU): the lower layers run
as usual; the top layer is re-run one step at a time through the model's own ``_scan``
(the one method each :class:`~seqviz.models.RecurrentBase` subclass writes), and each
step's h_t is kept as a node of the graph. The gradient of the loss with respect to that
node is the sum over all paths, which is exactly the total derivative. Nothing is stored
on the model; its ordinary forward pass is untouched. A ``torch.nn.RNN``/``LSTM``/``GRU``
is first copied into the matching seqviz model.

Used by chapters 3 and 4.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

__all__ = ["as_seqviz", "hidden_grad_norms", "hidden_grads"]


def as_seqviz(model: nn.Module) -> nn.Module:
    """``model`` itself if it is a seqviz recurrent model; a ``torch.nn`` RNN/LSTM/GRU becomes a seqviz copy."""
    from .models import RecurrentBase

    if isinstance(model, RecurrentBase):
        return model
    if isinstance(model, nn.RNNBase):
        if not model.batch_first:
            raise ValueError(f"{type(model).__name__} must be built with batch_first=True (seqviz is batch-first)")
        if getattr(model, "proj_size", 0):
            raise ValueError("LSTMs with proj_size > 0 have no seqviz counterpart")
        from . import models

        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(model.mode, model.mode)  # "LSTM", "GRU"
        if not hasattr(models, name):
            raise ValueError(f"seqviz.models has no {name} yet, so a torch.nn.{name} cannot be traced")
        kwargs = dict(num_layers=model.num_layers, bias=model.bias, dropout=model.dropout,
                      bidirectional=model.bidirectional)
        if name == "RNN":
            kwargs["nonlinearity"] = model.nonlinearity
        first = next(model.parameters())
        ours = getattr(models, name)(model.input_size, model.hidden_size, **kwargs).to(first.device, first.dtype)
        return ours.copy_from(model).train(model.training)
    raise ValueError(f"hidden_grads expects a recurrent model from seqviz.models (or a torch.nn RNN/LSTM/GRU), "
                     f"got {type(model).__name__}")


def _top_layer_steps(model, x: torch.Tensor):
    """Run ``model`` on ``x`` with its top layer unrolled one step at a time.

    Returns ``out`` (B, T, D*H), equal to ``model(x)[0]``, and ``nodes``: for each
    direction a list of T tensors (B, H), the h_t of the top layer in input order.
    Gradients with respect to ``nodes`` are total derivatives.
    """
    model._check_input(x)
    if model.num_layers > 1 and model.dropout and model.training:
        raise ValueError("hidden_grads needs model.eval() when dropout > 0: dropout between layers is random")
    B, T, _ = x.shape
    init = model._initial_state(None, x)  # tuple of (L*D, B, H), one per state name
    h_index = model.state_names.index("h")
    top = model.num_layers - 1
    layer_input = x
    if top > 0:  # the lower layers, exactly as in forward: their outputs are the top layer's input
        layer_input = model(x, return_trace=True)[2]["h"][: top * model.num_directions]  # (L'*D, B, T, H)
        layer_input = torch.cat(list(layer_input[-model.num_directions:]), dim=-1)  # (B, T, D*H), last lower layer
    outputs, nodes = [], []
    for direction, suffix in enumerate(model._suffixes()):
        index = top * model.num_directions + direction
        w_ih, w_hh, b_ih, b_hh = model.layer_weights(top, suffix)
        projected = model._project(layer_input, w_ih, b_ih)  # the model's own input projection: (B, T, gates*H)
        order = range(T - 1, -1, -1) if direction == 1 else range(T)  # reading order
        state = tuple(s[index].to(projected.dtype) for s in init)  # each (B, H)
        hs = [None] * T
        for t in order:
            step_out, state, _ = model._scan(projected[:, t : t + 1], state, w_hh, b_hh, False)  # (B, 1, H)
            h = step_out[:, 0]  # (B, H): one node carries h_t to the output and to step t+1
            state = tuple(h if i == h_index else s for i, s in enumerate(state))
            hs[t] = h
        nodes.append(hs)
        outputs.append(torch.stack(hs, dim=1))  # (B, T, H), input order
    out = outputs[0] if len(outputs) == 1 else torch.cat(outputs, dim=-1)  # (B, T, D*H)
    return out, nodes


def hidden_grads(model: nn.Module, x: torch.Tensor, loss_fn: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    """dL/dh_t of the top layer for every step: a tensor (T, B, D*hidden).

    ``loss_fn(out) -> scalar`` receives the model's output ``out`` (B, T, D*hidden), the
    same tensor ``model(x)[0]`` returns. Row t is the total derivative of the loss with
    respect to the top layer's h_t (both directions side by side when bidirectional).
    The model's own parameter gradients are left untouched. Runs where the model is (``x`` is moved
    there); the gradients stay on that device.
    """
    from .config import model_device

    model = as_seqviz(model)
    if isinstance(x, torch.Tensor):
        x = x.to(model_device(model))
    out, nodes = _top_layer_steps(model, x)
    loss = loss_fn(out)
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        got = tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
        raise ValueError(f"loss_fn must return a scalar tensor, got {got}")
    flat = [h for hs in nodes for h in hs]
    if not loss.requires_grad:
        raise ValueError("loss_fn's result does not depend on the model's output: there is no gradient to trace")
    grads = torch.autograd.grad(loss.reshape(()), flat, allow_unused=True)
    grads = [torch.zeros_like(h) if g is None else g for h, g in zip(flat, grads)]
    T = x.shape[1]
    per_direction = [torch.stack(grads[d * T : (d + 1) * T]) for d in range(len(nodes))]  # each (T, B, H)
    return torch.cat(per_direction, dim=-1)  # (T, B, D*H)


def hidden_grad_norms(model: nn.Module, x: torch.Tensor, loss_fn: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    """||dL/dh_t|| for t = 0..T-1: a tensor (T,) on the CPU (a curve to plot), the norm over the whole
    (B, D*hidden) gradient. Runs where the model is.

    >>> norms = hidden_grad_norms(rnn, x, lambda out: out[:, -1].sum())   # loss at the last step
    """
    grads = hidden_grads(model, x, loss_fn)  # (T, B, D*H)
    return torch.linalg.vector_norm(grads.flatten(1), dim=1).detach().cpu()  # (T,)
