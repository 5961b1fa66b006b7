"""Chapter 4's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch04.py``)."""

from __future__ import annotations

import torch
from torch import nn

from seqviz.measure import count_parameters

from . import hidden, mistakes, solution, values
from .helpers import agree, agrees_with_cell, builtin_cell, randint, same

GATES = {"rnn": 1, "gru": 3, "lstm": 4}
BUILTINS = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}


def _gru_step_reference(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    xr, xz, xn = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)  # (B, H) each
    hr, hz, hn = (h @ weight_hh.T + bias_hh).chunk(3, dim=-1)  # (B, H) each
    r = torch.sigmoid(xr + hr)  # reset gate
    z = torch.sigmoid(xz + hz)  # update gate: near 1 keeps the old state
    n = torch.tanh(xn + r * hn)  # candidate; the reset gate multiplies W_hn h + b_hn
    return (1 - z) * n + z * h


def _gru_step_mirror(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """The mirror form h = (1 - z) h_{t-1} + z h~ of Chung et al. (2014), used with PyTorch's z."""
    xr, xz, xn = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)
    hr, hz, hn = (h @ weight_hh.T + bias_hh).chunk(3, dim=-1)
    r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
    n = torch.tanh(xn + r * hn)
    return (1 - z) * h + z * n


def _gru_step_reset_before_bias(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """The reset gate on W_hn h only, with b_hn added outside it."""
    H = h.shape[-1]
    xr, xz, xn = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)
    hr, hz, hn = (h @ weight_hh.T).chunk(3, dim=-1)
    br, bz, bn = bias_hh.split(H)
    r, z = torch.sigmoid(xr + hr + br), torch.sigmoid(xz + hz + bz)
    n = torch.tanh(xn + r * hn + bn)
    return (1 - z) * n + z * h


def _gru_step_swapped_rows(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """Reads the rows as z, r, n instead of PyTorch's r, z, n."""
    xz, xr, xn = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)
    hz, hr, hn = (h @ weight_hh.T + bias_hh).chunk(3, dim=-1)
    r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
    n = torch.tanh(xn + r * hn)
    return (1 - z) * n + z * h


def _gru_step_sized_for_one_case(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """Splits the gate rows in blocks of 4: right only when the hidden size happens to be 4."""
    xr, xz, xn = (x @ weight_ih.T + bias_ih).split(4, dim=-1)[:3]
    hr, hz, hn = (h @ weight_hh.T + bias_hh).split(4, dim=-1)[:3]
    r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
    return (1 - z) * torch.tanh(xn + r * hn) + z * h


def _count_reference(kind, input_size, hidden_size):
    return GATES[kind] * (hidden_size * (input_size + hidden_size) + 2 * hidden_size)


def _count_one_bias(kind, input_size, hidden_size):
    return GATES[kind] * (hidden_size * (input_size + hidden_size) + hidden_size)


def _count_gru_as_lstm(kind, input_size, hidden_size):
    gates = {"rnn": 1, "gru": 4, "lstm": 4}[kind]
    return gates * (hidden_size * (input_size + hidden_size) + 2 * hidden_size)


def _count_square(kind, input_size, hidden_size):
    return GATES[kind] * (2 * hidden_size * hidden_size + 2 * hidden_size)


values("ch04", gru_cell=lambda x, h, *weights: builtin_cell(nn.GRUCell, weights)(x, h).detach(),
       n_params=lambda kind, i, h: count_parameters(BUILTINS[kind](i, h)), gru_share=lambda gru, lstm: gru / lstm)
mistakes("ch04", "gru_cell", gru_mirror=_gru_step_mirror, gru_reset_outside_bias=_gru_step_reset_before_bias)
mistakes("ch04", "n_params", n_params_one_bias=_count_one_bias)

solution("ch04.ex1", lambda: _gru_step_reference, forbidden=("torch.gru_cell", "torch.nn.GRUCell.forward",
                                                             "torch.nn.GRU.forward"),
         wrong={"mirror": (lambda: _gru_step_mirror, "mirror form"),
                "reset outside the bias": (lambda: _gru_step_reset_before_bias, "the bias included"),
                "rows z, r, n": (lambda: _gru_step_swapped_rows, "row order of the weights"),
                "sized for H = 4": (lambda: _gru_step_sized_for_one_case, "raised")})
solution("ch04.ex2", lambda: _count_reference,
         forbidden=("torch.nn.RNN.__init__", "torch.nn.GRU.__init__", "torch.nn.LSTM.__init__",
                    "torch.nn.RNNBase.__init__", "seqviz.measure.count_parameters"), wrong={
    "one bias": (lambda: _count_one_bias, "two bias vectors per gate"),
    "GRU as LSTM": (lambda: _count_gru_as_lstm, "three blocks of rows"),
    "square": (lambda: _count_square, "parameters.")})
solution("ch04.ex2b", lambda: 0.75, wrong={"inverted": (lambda: 4 / 3, "the other way round"),
                                           "half": (lambda: 0.5, "depend on the sizes"),
                                           "percentage": (lambda: 75, "not a percentage")})
solution("ch04.ex3", lambda: [-10.0, 10.0, 0.0, 0.0], wrong={
    "zeros": (lambda: [0.0, 0.0, 0.0, 0.0], "the belt leaks"),
    "weak forget": (lambda: [0.0, 5.0, 0.0, 0.0], "the belt leaks"),
    "writes": (lambda: [10.0, 10.0, 10.0, 0.0], "something is written"),
    "a (1, 4) table": (lambda: torch.tensor([[-10.0, 10.0, 0.0, 0.0]]), "shape (4,)")})


@hidden("ch04.ex1")
def _hidden_gru_step(answer, g):
    sizes = [(1, 1, 1, torch.float64), (randint(g, 2, 9), randint(g, 1, 9), 5, torch.float32)]
    return agrees_with_cell(answer, nn.GRUCell, "gru_step", sizes, g, "for one unit in float64 and at another size")


@hidden("ch04.ex2")
def _hidden_gate_count(answer, g):
    cases = [(kind, randint(g, 1, 200), randint(g, 1, 200)) for kind in GATES for _ in range(2)]
    return agree(answer, lambda k, i, h: count_parameters(BUILTINS[k](i, h)), cases, "n_params")


# ex4: input gate shut, so c_t = f c_(t-1): the belt keeps f^k after k steps
values("ch04", belt_share=lambda forget, steps: forget ** steps)
solution("ch04.ex4", lambda: 0.95 ** 40, wrong={"one step": (lambda: 0.95, "after one step"),
                                               "no leak": (lambda: 1.0, "still multiplies"),
                                               "forgets all": (lambda: 0.0, "the factors multiply"),
                                               "subtracted": (lambda: 1 - 40 * 0.05, "the factors multiply")})


@hidden("ch04.ex4")
def _hidden_belt_share(answer, g):
    return same(answer, 0.95 ** 40, "the share of c_0 left in c_40", atol=0.002, rtol=0.0)
