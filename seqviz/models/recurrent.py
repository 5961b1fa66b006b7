"""The machinery every from-scratch recurrent model shares (RNN here; LSTM and GRU reuse it).

Parameters are laid out and named exactly as in ``torch.nn.RNN/LSTM/GRU``
(``weight_ih_l0``, ``weight_hh_l0_reverse`` ...), so ``copy_from`` is a
``load_state_dict`` after shape checks. A subclass writes only ``_scan``: one
direction of one layer, a plain loop over time, one line per equation.

Speed: the input projection ``x W_ih^T + b_ih`` of all time steps is one matrix
product before the loop; only the recurrent product ``h W_hh^T`` runs step by step.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class RecurrentBase(nn.Module):
    """Batch-first, multi-layer, optionally bidirectional recurrent network.

    Subclasses set ``gates`` (rows of ``weight_ih`` per hidden unit), ``state_names``,
    ``trace_names`` and ``builtin``, and implement :meth:`_scan`.
    """

    gates = 1
    state_names: tuple[str, ...] = ("h",)
    trace_names: tuple[str, ...] = ("h",)
    builtin: type[nn.Module] = nn.RNNBase

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 dropout: float = 0.0, bidirectional: bool = False):
        super().__init__()
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size), ("num_layers", num_layers)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.dropout, self.bidirectional = bool(bias), float(dropout), bool(bidirectional)
        self.num_directions = 2 if bidirectional else 1
        rows = self.gates * hidden_size
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else hidden_size * self.num_directions
            for suffix in self._suffixes():
                self.register_parameter(f"weight_ih_l{layer}{suffix}", nn.Parameter(torch.empty(rows, layer_input)))
                self.register_parameter(f"weight_hh_l{layer}{suffix}", nn.Parameter(torch.empty(rows, hidden_size)))
                if self.bias:
                    self.register_parameter(f"bias_ih_l{layer}{suffix}", nn.Parameter(torch.empty(rows)))
                    self.register_parameter(f"bias_hh_l{layer}{suffix}", nn.Parameter(torch.empty(rows)))
        self.reset_parameters()

    # -- set-up ------------------------------------------------------------------

    def _suffixes(self):
        return ("", "_reverse")[: self.num_directions]

    def reset_parameters(self):
        """PyTorch's initialisation: every weight and bias uniform in ±1/sqrt(hidden_size)."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    def _builtin_kwargs(self) -> dict:
        return dict(input_size=self.input_size, hidden_size=self.hidden_size, num_layers=self.num_layers,
                    bias=self.bias, dropout=self.dropout, bidirectional=self.bidirectional, batch_first=True)

    def extra_repr(self) -> str:
        kw = self._builtin_kwargs()
        kw.pop("batch_first")
        return ", ".join(f"{k}={v}" for k, v in kw.items())

    @torch.no_grad()
    def copy_from(self, module: nn.Module):
        """Copy the weights of the matching ``torch.nn`` module; returns ``self``."""
        if not isinstance(module, self.builtin):
            raise ValueError(f"{type(self).__name__}.copy_from expects a torch.nn.{self.builtin.__name__}, "
                             f"got {type(module).__name__}")
        ours = self._builtin_kwargs()
        for key, value in ours.items():
            theirs = getattr(module, key)
            if key != "batch_first" and theirs != value:
                raise ValueError(f"cannot copy: {key} is {value!r} here but {theirs!r} in the {type(module).__name__}")
        self._check_builtin_extra(module)
        for name, param in module.state_dict().items():
            ours_param = self.get_parameter(name)
            ours_param.copy_(param.to(ours_param.device, ours_param.dtype))
        return self

    def _check_builtin_extra(self, module):
        """Subclasses check options the constructors do not share (nonlinearity, proj_size)."""

    def to_builtin(self) -> nn.Module:
        """The equivalent ``torch.nn`` module (batch_first=True) with the same weights, for long runs."""
        module = self.builtin(**self._builtin_kwargs())
        module.load_state_dict(self.state_dict())
        first = next(self.parameters())
        return module.to(device=first.device, dtype=first.dtype)

    # -- forward -----------------------------------------------------------------

    def forward(self, x: torch.Tensor, state=None, return_trace: bool = False):
        """Read ``x`` (B, T, input_size); return ``(out, state)`` or ``(out, state, trace)``.

        ``out`` is (B, T, num_directions * hidden_size); the state has the layout of the
        ``torch.nn`` module; ``trace[name]`` is (num_layers * num_directions, B, T, hidden).
        """
        self._check_input(x)
        B, T, _ = x.shape
        init = self._initial_state(state, x)  # tuple of (L*D, B, H), one per state name
        finals = [[] for _ in self.state_names]
        trace = {name: [] for name in self.trace_names} if return_trace else None
        layer_input = x
        for layer in range(self.num_layers):
            outputs = []
            for direction, suffix in enumerate(self._suffixes()):
                index = layer * self.num_directions + direction
                w_ih, w_hh, b_ih, b_hh = self.layer_weights(layer, suffix)
                projected = self._project(layer_input, w_ih, b_ih)  # (B, T, gates*H): all steps at once
                if direction == 1:
                    projected = projected.flip(1)  # the backward direction reads right to left
                start = tuple(s[index].to(projected.dtype) for s in init)  # autocast: match the projection
                out, final, steps = self._scan(projected, start, w_hh, b_hh, return_trace)
                if direction == 1:
                    out = out.flip(1)
                    steps = {k: v.flip(1) for k, v in steps.items()}
                outputs.append(out)  # (B, T, H), time in input order
                for store, tensor in zip(finals, final):
                    store.append(tensor)
                if return_trace:
                    for name in self.trace_names:
                        trace[name].append(steps[name])
            layer_output = outputs[0] if len(outputs) == 1 else torch.cat(outputs, dim=-1)  # (B, T, D*H)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_output = F.dropout(layer_output, self.dropout, training=True)
            layer_input = layer_output
        final_state = tuple(torch.stack(store) for store in finals)  # each (L*D, B, H)
        final_state = final_state[0] if len(final_state) == 1 else final_state
        if return_trace:
            return layer_input, final_state, {name: torch.stack(v) for name, v in trace.items()}
        return layer_input, final_state

    def layer_weights(self, layer: int, suffix: str = ""):
        """``(weight_ih, weight_hh, bias_ih, bias_hh)`` of one layer and direction (biases None without bias)."""
        w_ih = getattr(self, f"weight_ih_l{layer}{suffix}")
        w_hh = getattr(self, f"weight_hh_l{layer}{suffix}")
        b_ih = getattr(self, f"bias_ih_l{layer}{suffix}") if self.bias else None
        b_hh = getattr(self, f"bias_hh_l{layer}{suffix}") if self.bias else None
        return w_ih, w_hh, b_ih, b_hh

    def _project(self, layer_input, w_ih, b_ih):
        """``layer_input W_ih^T + b_ih`` for every step at once; LSTM and GRU swap in a faster product."""
        return F.linear(layer_input, w_ih, b_ih)

    def _scan(self, projected, state, w_hh, b_hh, record):
        """One direction of one layer. ``projected`` (B, T, gates*H) in reading order.

        Returns ``out`` (B, T, H), the final state (a tuple like ``state``) and, when
        ``record``, a dict of (B, T, H) tensors for ``trace_names``.
        """
        raise NotImplementedError

    # -- checks ------------------------------------------------------------------

    def _check_input(self, x):
        name = type(self).__name__
        if not isinstance(x, torch.Tensor):
            raise ValueError(f"{name} expects a torch.Tensor (B, T, {self.input_size}), got {type(x).__name__}")
        if x.dim() != 3:
            raise ValueError(f"{name} expects x of shape (batch, time, {self.input_size}) (batch first), got "
                             f"{tuple(x.shape)}; for a single sequence use x.unsqueeze(0)")
        if x.shape[-1] != self.input_size:
            raise ValueError(f"{name} expects input size {self.input_size} in the last dimension, "
                             f"got {x.shape[-1]} (x has shape {tuple(x.shape)})")
        if x.shape[0] == 0 or x.shape[1] == 0:
            raise ValueError(f"{name} got an empty batch or an empty sequence: x has shape {tuple(x.shape)}")
        weight = self.weight_ih_l0
        if not x.is_floating_point():
            raise ValueError(f"{name} expects a floating-point x, got {x.dtype}; embed token ids first")
        if x.dtype != weight.dtype:
            raise ValueError(f"{name} has {weight.dtype} weights but x is {x.dtype}; convert one to match "
                             f"(x.to({weight.dtype}) or model.to({x.dtype}))")
        if x.device != weight.device:
            raise ValueError(f"{name} weights are on {weight.device} but x is on {x.device}; move one of them")

    def _initial_state(self, state, x):
        B = x.shape[0]
        shape = (self.num_layers * self.num_directions, B, self.hidden_size)
        if state is None:
            zeros = x.new_zeros(shape)
            return tuple(zeros for _ in self.state_names)
        parts = (state,) if isinstance(state, torch.Tensor) else tuple(state)
        if len(parts) != len(self.state_names):
            raise ValueError(f"{type(self).__name__} expects a state of {len(self.state_names)} tensor(s) "
                             f"({', '.join(self.state_names)}), got {len(parts)}")
        for label, part in zip(self.state_names, parts):
            if not isinstance(part, torch.Tensor) or tuple(part.shape) != shape:
                got = tuple(part.shape) if isinstance(part, torch.Tensor) else type(part).__name__
                raise ValueError(f"initial {label} must have shape {shape} (layers*directions, batch, hidden), "
                                 f"got {got}")
        return parts
