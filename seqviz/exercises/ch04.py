"""Exercises of chapter 04, gates: LSTM and GRU (registered on import).

- ch04.ex1: one GRU step, in PyTorch's convention, equal to ``torch.nn.GRUCell``;
- ch04.ex2: the parameter count of a one-layer RNN, LSTM or GRU; ch04.ex2b: the GRU's share of an LSTM's count;
- ch04.ex3: biases that make an LSTM cell keep whatever is on its belt for 100 steps.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import torch
from torch import nn

from ..measure import count_parameters
from ..models import CELLS
from .hidden import agree, agrees_with_cell, hidden_test, randint
from .registry import as_number, cell_cases, compare_tensors, exercise

# -- ex1: one GRU step ------------------------------------------------------------------------------


def _gru_step_reference(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    xr, xz, xn = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)  # (B, H) each
    hr, hz, hn = (h @ weight_hh.T + bias_hh).chunk(3, dim=-1)  # (B, H) each
    r = torch.sigmoid(xr + hr)  # reset gate
    z = torch.sigmoid(xz + hz)  # update gate: near 1 keeps the old state
    n = torch.tanh(xn + r * hn)  # candidate; the reset gate multiplies W_hn h + b_hn
    return (1 - z) * n + z * h


def _gru_step_mirror(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """The mirror form h = (1 - z) h_{t-1} + z h~ of Chung et al. (2014), used with PyTorch's z.

    Cho et al. (2014) and PyTorch write h = z h_{t-1} + (1 - z) h~: z near 1 keeps the old state.
    """
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


@exercise("ch04.ex1", "One GRU step", reference=lambda: _gru_step_reference,
          wrong=[lambda: _gru_step_mirror, lambda: _gru_step_reset_before_bias, lambda: _gru_step_swapped_rows,
                 lambda: _gru_step_sized_for_one_case])
def check_gru_step(answer):
    if not callable(answer):
        return False, "answer should be your function gru_step(x, h, weight_ih, weight_hh, bias_ih, bias_hh)."
    generator = torch.Generator().manual_seed(4)
    sizes = ((5, 3, 4), (1, 6, 2), (8, 2, 7))  # one sequence, and H != D
    for (batch, input_size, hidden_size), x, h, weights, expected in cell_cases(nn.GRUCell, sizes, generator,
                                                                                large_weights=True):
        with torch.no_grad():
            got = answer(x, h, *weights)
        ok, message = compare_tensors(got, expected, f"your h_t (batch {batch}, input {input_size}, hidden "
                                                     f"{hidden_size})")
        if ok:
            continue
        if isinstance(got, torch.Tensor) and got.shape == expected.shape:
            with torch.no_grad():
                if torch.allclose(got, _gru_step_mirror(x, h, *weights), atol=1e-5):
                    return False, ("That is the mirror form h = (1 - z) h_{t-1} + z n (the form of Chung et al. "
                                   "2014, and of seed 002's formula). Cho et al. (2014) and PyTorch write "
                                   "h_t = (1 - z) * n + z * h_{t-1}: z near 1 keeps the old state.")
                if torch.allclose(got, _gru_step_reset_before_bias(x, h, *weights), atol=1e-5):
                    return False, ("Almost: in PyTorch the reset gate multiplies (W_hn h + b_hn), the bias "
                                   "included, so b_hh cannot be added outside it.")
        return False, message + " Check the row order of the weights (r, z, n) and where the reset gate goes."
    return True, ("your step equals torch.nn.GRUCell on three batches and sizes: z near 1 keeps h_{t-1}, as in "
                  "Cho et al. (2014).")


@hidden_test("ch04.ex1")
def _hidden_gru_step(answer, g):
    sizes = [(1, 1, 1, torch.float64), (randint(g, 2, 9), randint(g, 1, 9), 5, torch.float32)]
    return agrees_with_cell(answer, nn.GRUCell, "gru_step", sizes, g, "for one unit in float64 and at another size")


# -- ex2: counting parameters -------------------------------------------------------------------------

GATES = {"rnn": 1, "gru": 3, "lstm": 4}


def _count_reference(kind, input_size, hidden_size):
    return GATES[kind] * (hidden_size * (input_size + hidden_size) + 2 * hidden_size)


def _count_one_bias(kind, input_size, hidden_size):
    return GATES[kind] * (hidden_size * (input_size + hidden_size) + hidden_size)


def _count_gru_as_lstm(kind, input_size, hidden_size):
    gates = {"rnn": 1, "gru": 4, "lstm": 4}[kind]
    return gates * (hidden_size * (input_size + hidden_size) + 2 * hidden_size)


def _count_square(kind, input_size, hidden_size):
    return GATES[kind] * (2 * hidden_size * hidden_size + 2 * hidden_size)


@exercise("ch04.ex2", "Count the parameters", reference=lambda: _count_reference,
          wrong=[lambda: _count_one_bias, lambda: _count_gru_as_lstm, lambda: _count_square])
def check_count(answer):
    if not callable(answer):
        return False, "answer should be your function n_params(kind, input_size, hidden_size) returning an int."
    from ..models import CELLS

    for kind, cell in CELLS.items():
        for input_size, hidden_size in ((3, 5), (32, 64), (100, 7)):
            expected = count_parameters(cell.builtin(input_size, hidden_size))
            got = as_number(answer(kind, input_size, hidden_size), "an int (the number of parameters)")
            if got != expected:
                hint = ""
                if got == _count_one_bias(kind, input_size, hidden_size):
                    hint = " PyTorch keeps two bias vectors per gate, b_ih and b_hh."
                elif kind == "gru":
                    hint = " A GRU has three blocks of rows (reset, update, candidate), not four."
                return False, (f"n_params({kind!r}, {input_size}, {hidden_size}) gave {got:g}, but torch.nn."
                               f"{cell.builtin.__name__} has {expected:,} parameters.{hint}")
    return True, ("Right for RNN, GRU and LSTM at every size tried: gates x (H (I + H) + 2H). A GRU has 3/4 of "
                  "an LSTM's parameters at the same sizes.")


@exercise("ch04.ex2b", "Count the parameters: the GRU's share", reference=lambda: 0.75,
          wrong=[lambda: 4 / 3, lambda: 0.5, lambda: 25])
def check_count_share(answer):
    got = as_number(answer, "a fraction (the GRU's parameters divided by the LSTM's)")
    if abs(got - 0.75) < 1e-3:
        return True, ("3/4 at any sizes: three blocks of gate rows against four, each with the same "
                      "H (D + H) + 2H parameters.")
    if abs(got - 4 / 3) < 1e-3:
        return False, "That is the LSTM's count divided by the GRU's: divide the other way round."
    if abs(got - 75) < 0.1:
        return False, "Give it as a fraction, not a percentage."
    return False, (f"{got:g} is not it. Divide n_params('gru', EMBED, HIDDEN) by n_params('lstm', EMBED, HIDDEN); "
                   "does the answer depend on the sizes?")


@hidden_test("ch04.ex2")
def _hidden_gate_count(answer, g):
    cases = [(kind, randint(g, 1, 200), randint(g, 1, 200)) for kind in CELLS for _ in range(2)]
    return agree(answer, lambda k, i, h: count_parameters(CELLS[k].builtin(i, h)), cases, "n_params")


# -- ex3: forget nothing ---------------------------------------------------------------------------------

STEPS = 100
START_VALUES = (1.0, -0.5, 0.3)


def _belt_after(bias):
    """c after STEPS steps of a one-unit LSTM with zero weights and bias_ih = bias, from each start value."""
    from ..models import LSTM

    lstm = LSTM(1, 1)
    with torch.no_grad():
        for p in lstm.parameters():
            p.zero_()
        lstm.bias_ih_l0.copy_(bias)
    x = torch.randn(1, STEPS, 1, generator=torch.Generator().manual_seed(0))  # ignored: the weights are zero
    finals = []
    for value in START_VALUES:
        h0, c0 = torch.zeros(1, 1, 1), torch.full((1, 1, 1), value)
        with torch.no_grad():
            _, (_, c) = lstm(x, (h0, c0))
        finals.append(c.item())
    return finals


@exercise("ch04.ex3", "Forget nothing", reference=lambda: [-10.0, 10.0, 0.0, 0.0],
          wrong=[lambda: [0.0, 0.0, 0.0, 0.0], lambda: [0.0, 5.0, 0.0, 0.0], lambda: [10.0, 10.0, 10.0, 0.0]])
def check_forget_nothing(answer):
    bias = torch.as_tensor(answer, dtype=torch.float32).flatten()
    if bias.numel() != 4:
        return False, f"answer should hold 4 numbers, the biases of the i, f, g, o rows; got {bias.numel()}."
    if not torch.isfinite(bias).all():
        return False, "the biases must be finite numbers (a sigmoid reaches 1 only in the limit)."
    finals = _belt_after(bias)
    f, i, g = torch.sigmoid(bias[1]).item(), torch.sigmoid(bias[0]).item(), torch.tanh(bias[2]).item()
    for start, end in zip(START_VALUES, finals):
        if abs(end - start) > 0.01 * abs(start):
            if f ** STEPS < 0.99:
                return False, (f"c went from {start} to {end:.3g} in {STEPS} steps. The forget gate is "
                               f"sigmoid({bias[1].item():g}) = {f:.4f}, and {f:.4f}^{STEPS} = {f ** STEPS:.3g}: "
                               "the belt leaks. It must be so close to 1 that its 100th power stays above 0.99.")
            return False, (f"c went from {start} to {end:.3g}: the belt keeps its load, but something is written "
                           f"onto it at every step (input gate {i:.3g} times candidate {g:.3g}). Close the input "
                           "gate or make the candidate zero.")
    return True, (f"c stays within 1 % of every start value. The forget gate is {f:.6f} (its {STEPS}th power "
                  f"{f ** STEPS:.4f}) and the write i * g is {i * g:.1e}: c_t = f c_(t-1) + i g ≈ c_(t-1).")
