"""The machinery every from-scratch recurrent model shares: RNN, LSTM and GRU (chapters 2-4).

Parameters are laid out and named exactly as in ``torch.nn.RNN/LSTM/GRU``
(``weight_ih_l0``, ``weight_hh_l0_reverse`` ...), so ``copy_from`` is a
``load_state_dict`` after shape checks. A subclass writes ``_scan``: one direction of
one layer, a plain loop over time, one line per equation. That loop is the reference,
tested equal to ``torch.nn``. LSTM and GRU also offer a fused fast path (``fused_scan``,
in ``_fused.py``), tested equal to the plain loop and used by default; ``fused=False``
runs the plain loop.

Speed: the input projection ``x W_ih^T + b_ih`` of all time steps is one matrix
product before the loop; only the recurrent product ``h W_hh^T`` runs step by step.

:meth:`RecurrentBase.steps` is the public per-step API: the top layer read one step at
a time, each h_t its own node of the autograd graph (``seqviz.gradients`` uses it).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_positive_int


class RecurrentBase(nn.Module):
    """Batch-first, multi-layer, optionally bidirectional recurrent network.

    Subclasses set ``gates`` (rows of ``weight_ih`` per hidden unit), ``state_names``,
    ``trace_names`` and ``builtin``, implement :meth:`_scan` (the plain loop) and may set
    ``fused_scan`` and ``fused_project`` (a fast path computing the same). ``fused=False``
    (or setting ``model.fused = False``) runs the plain loop, which also supports second derivatives.
    """

    gates = 1
    state_names: tuple[str, ...] = ("h",)
    trace_names: tuple[str, ...] = ("h",)
    builtin: type[nn.Module] = nn.RNNBase
    fused_scan = None  # f(projected, state, w_hh, b_hh, record), as _scan; None: no fast path
    fused_project = None  # f(layer_input, w_ih, b_ih, b_hh) -> what fused_scan reads

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 dropout: float = 0.0, bidirectional: bool = False, *, fused: bool = True):
        super().__init__()
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size), ("num_layers", num_layers)):
            check_positive_int(name, value)
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.dropout, self.bidirectional = bool(bias), float(dropout), bool(bidirectional)
        self.num_directions = 2 if bidirectional else 1
        self.fused = bool(fused)
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

    def _paths(self):
        """``(project, scan)``: the fused fast path where the model has one and ``fused`` is on, else the plain loop."""
        if self.fused and type(self).fused_scan is not None:
            return type(self).fused_project, type(self).fused_scan
        return (lambda layer_input, w_ih, b_ih, b_hh: self._project(layer_input, w_ih, b_ih)), self._scan

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
        init = self._initial_state(state, x)  # tuple of (L*D, B, H), one per state name
        finals = [[] for _ in self.state_names]
        trace = {name: [] for name in self.trace_names} if return_trace else None
        project, scan = self._paths()
        layer_input = x
        for layer in range(self.num_layers):
            outputs = []
            for direction, suffix in enumerate(self._suffixes()):
                index = layer * self.num_directions + direction
                w_ih, w_hh, b_ih, b_hh = self.layer_weights(layer, suffix)
                projected = project(layer_input, w_ih, b_ih, b_hh)  # (B, T, gates*H): all steps at once
                if direction == 1:
                    projected = projected.flip(1)  # the backward direction reads right to left
                start = tuple(s[index].to(projected.dtype) for s in init)  # autocast: match the projection
                out, final, steps = scan(projected, start, w_hh, b_hh, return_trace)
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

    def steps(self, x: torch.Tensor, state=None):
        """Read ``x`` (B, T, input_size) with the top layer run one step at a time.

        Returns ``(out, hs)``: ``out`` (B, T, D*hidden) equals ``forward``'s; ``hs[direction][t]``
        (B, hidden) is the top layer's h_t, in input order, each its own node of the autograd
        graph: the gradient of a loss with respect to it is the total derivative dL/dh_t (through
        the output at t and through every later step). The plain loop runs here (no fused path).
        """
        self._check_input(x)
        if self.num_layers > 1 and self.dropout and self.training:
            raise ValueError(f"{type(self).__name__}.steps needs eval() when dropout > 0: dropout between "
                             "layers is random")
        T = x.shape[1]
        init = self._initial_state(state, x)  # tuple of (L*D, B, H), one per state name
        h_index = self.state_names.index("h")
        top = self.num_layers - 1
        layer_input = x
        if top > 0:  # the lower layers, exactly as in forward: their outputs are the top layer's input
            lower = self(x, state, return_trace=True)[2]["h"][: top * self.num_directions]  # (L'*D, B, T, H)
            layer_input = torch.cat(list(lower[-self.num_directions:]), dim=-1)  # (B, T, D*H), last lower layer
        outputs, hs_all = [], []
        for direction, suffix in enumerate(self._suffixes()):
            index = top * self.num_directions + direction
            w_ih, w_hh, b_ih, b_hh = self.layer_weights(top, suffix)
            projected = self._project(layer_input, w_ih, b_ih)  # (B, T, gates*H)
            order = range(T - 1, -1, -1) if direction == 1 else range(T)  # reading order
            step_state = tuple(s[index].to(projected.dtype) for s in init)  # each (B, H)
            hs = [None] * T
            for t in order:
                step_out, step_state, _ = self._scan(projected[:, t:t + 1], step_state, w_hh, b_hh, False)
                h = step_out[:, 0]  # (B, H): one node carries h_t to the output and to step t+1
                step_state = tuple(h if i == h_index else s for i, s in enumerate(step_state))
                hs[t] = h
            hs_all.append(hs)
            outputs.append(torch.stack(hs, dim=1))  # (B, T, H), input order
        out = outputs[0] if len(outputs) == 1 else torch.cat(outputs, dim=-1)  # (B, T, D*H)
        return out, hs_all

    def _project(self, layer_input, w_ih, b_ih):
        """``layer_input W_ih^T + b_ih`` for every step at once (B, T, gates*H)."""
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
