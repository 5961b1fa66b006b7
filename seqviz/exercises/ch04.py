"""Exercises of chapter 04, gates: LSTM and GRU (registered on import).

- ch04.ex1: one GRU step, in PyTorch's convention, equal to ``torch.nn.GRUCell``;
- ch04.ex2: the parameter count of a one-layer RNN, LSTM or GRU; ch04.ex2b: the GRU's share of an LSTM's count;
- ch04.ex3: biases that make an LSTM cell keep whatever is on its belt for 100 steps;
- ch04.ex4 (a conceptual question, a number): the share of the cell state left after 40 steps with the forget
  gate at 0.95 and the input gate shut.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch04.py``).
"""

from __future__ import annotations

import numbers

import numpy as np
import torch

from ..book import readable
from .expected import Expected
from .registry import Feedback, as_number, as_tensor, cell_inputs, compare_tensors, describe, exercise

EXPECTED = Expected("ch04")

# -- ex1: one GRU step ------------------------------------------------------------------------------


@exercise("ch04.ex1", "One GRU step")
def check_gru_step(answer):
    if not callable(answer):
        return False, "answer should be your function gru_step(x, h, weight_ih, weight_hh, bias_ih, bias_hh)."
    generator = torch.Generator().manual_seed(4)
    sizes = ((5, 3, 4), (1, 6, 2), (8, 2, 7))  # one sequence, and H != D
    for (batch, input_size, hidden_size), x, h, weights in cell_inputs(sizes, generator, gates=3,
                                                                        large_weights=True):
        case = f"{batch},{input_size},{hidden_size}"
        expected = EXPECTED("gru_cell", case, x, h, *weights)
        with torch.no_grad():
            got = answer(x, h, *weights)
        ok, message = compare_tensors(got, expected, f"your h_t (batch {batch}, input {input_size}, hidden "
                                                     f"{hidden_size})")
        if ok:
            continue
        got = as_tensor(got, expected, "gru_step's result")
        if got.shape == expected.shape:
            mirror, outside = EXPECTED.maybe("gru_mirror", case), EXPECTED.maybe("gru_reset_outside_bias", case)
            if mirror is not None and torch.allclose(got, mirror, atol=1e-5):
                return False, ("That is the mirror form h = (1 - z) h_{t-1} + z n (the form of Chung et al. "
                               "2014, and of the long article's formula). Cho et al. (2014) and PyTorch write "
                               "h_t = (1 - z) * n + z * h_{t-1}: z near 1 keeps the old state.")
            if outside is not None and torch.allclose(got, outside, atol=1e-5):
                return False, ("Almost: in PyTorch the reset gate multiplies (W_hn h + b_hn), the bias "
                               "included, so b_hh cannot be added outside it.")
        return False, message + " Check the row order of the weights (r, z, n) and where the reset gate goes."
    return True, ("your step equals torch.nn.GRUCell on three batches and sizes: z near 1 keeps h_{t-1}, as in "
                  "Cho et al. (2014).")


# -- ex2: counting parameters -------------------------------------------------------------------------

KINDS = {"rnn": "RNN", "gru": "GRU", "lstm": "LSTM"}


@exercise("ch04.ex2", "Count the parameters")
def check_count(answer):
    if not callable(answer):
        return False, "answer should be your function n_params(kind, input_size, hidden_size) returning an int."
    for kind, builtin in KINDS.items():
        for input_size, hidden_size in ((3, 5), (32, 64), (100, 7)):
            case = f"{kind},{input_size},{hidden_size}"
            expected = EXPECTED("n_params", case, kind, input_size, hidden_size)  # of torch.nn.RNN, GRU, LSTM
            got = as_number(answer(kind, input_size, hidden_size), "an int (the number of parameters)")
            if got != expected:
                hint = ""
                if got == EXPECTED.maybe("n_params_one_bias", case):
                    hint = " PyTorch keeps two bias vectors per gate, b_ih and b_hh."
                elif kind == "gru":
                    hint = " A GRU has three blocks of rows (reset, update, candidate), not four."
                return False, (f"n_params({kind!r}, {input_size}, {hidden_size}) gave {got:g}, but torch.nn."
                               f"{builtin} has {expected:,} parameters.{hint}")
    return True, ("Right for RNN, GRU and LSTM at every size tried: gates x (H (I + H) + 2H). A GRU has 3/4 of "
                  "an LSTM's parameters at the same sizes.")


@exercise("ch04.ex2b", "Count the parameters: the GRU's share")
def check_count_share(answer):
    got = as_number(answer, "a fraction (the GRU's parameters divided by the LSTM's)")
    expected = EXPECTED("gru_share", "any", 3, 4)
    if abs(got - expected) < 1e-3:
        return True, ("3/4 at any sizes: three blocks of gate rows against four, each with the same "
                      "H (D + H) + 2H parameters.")
    if abs(got - 1 / expected) < 1e-3:
        return False, "That is the LSTM's count divided by the GRU's: divide the other way round."
    if abs(got - 100 * expected) < 0.1:
        return False, "Give it as a fraction, not a percentage."
    return False, (f"{got:g} is not it. Divide n_params('gru', EMBED, HIDDEN) by n_params('lstm', EMBED, HIDDEN); "
                   "does the answer depend on the sizes?")


# -- ex3: forget nothing ---------------------------------------------------------------------------------

STEPS = 100
START_VALUES = (1.0, -0.5, 0.3)


def _four_biases(answer) -> torch.Tensor:
    """The answer as 4 numbers: a list or tuple of 4, or a 1-D tensor or array of 4 (a (1, 4) table is not)."""
    if isinstance(answer, (torch.Tensor, np.ndarray)):
        if answer.ndim != 1 or answer.shape[0] != 4:
            raise Feedback(f"answer should be 4 numbers in a row (the biases of the i, f, g, o rows), shape (4,); "
                           f"got {describe(answer)}.")
        values = answer.tolist()
    elif isinstance(answer, (list, tuple)) and len(answer) == 4:
        values = list(answer)
    else:
        raise Feedback(f"answer should hold 4 numbers, the biases of the i, f, g, o rows; got {describe(answer)}.")
    if not all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values):
        raise Feedback(f"each of the 4 biases should be a number, got {describe(answer)}.")
    return torch.tensor([as_number(v, "a bias (a number)") for v in values], dtype=torch.float32)


def _belt_after(bias):
    """c after STEPS steps of a one-unit LSTM with zero weights and bias_ih = bias, from each start value (the
    student's biases simulated: this checks their effect, it does not compute an answer)."""
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


@exercise("ch04.ex3", "Forget nothing")
def check_forget_nothing(answer):
    bias = _four_biases(answer)
    finals = _belt_after(bias)
    f, i, g = torch.sigmoid(bias[1]).item(), torch.sigmoid(bias[0]).item(), torch.tanh(bias[2]).item()
    for start, end in zip(START_VALUES, finals):
        if abs(end - start) > 0.01 * abs(start):
            if f ** STEPS < 0.99:
                return False, (f"The cell state c went from {start} to {readable(end, 3)} in {STEPS} steps. The "
                               f"forget gate is sigmoid({bias[1].item():g}) = {f:.4f}, and {f:.4f}^{STEPS} = "
                               f"{readable(f ** STEPS, 3)}: the belt leaks. It must be so close to 1 that its 100th "
                               "power stays above 0.99.")
            return False, (f"The cell state c went from {start} to {readable(end, 3)}: the belt keeps its load, but "
                           f"something is written onto it at every step (input gate {readable(i, 3)} times "
                           f"candidate {readable(g, 3)}). Close the input gate or make the candidate zero.")
    if i * g == 0:
        return True, (f"The cell state c stays within 1% of every start value. The forget gate is {f:.6f} (its "
                      f"{STEPS}th power {f ** STEPS:.4f}) and nothing is written onto the belt (i g = 0): "
                      "c_t = f c_(t-1) + i g = f c_(t-1) ≈ c_(t-1).")
    return True, (f"The cell state c stays within 1% of every start value. The forget gate is {f:.6f} (its "
                  f"{STEPS}th power {f ** STEPS:.4f}) and the write i g is only {readable(i * g)}: "
                  "c_t = f c_(t-1) + i g ≈ c_(t-1).")


# -- ex4: the belt under a constant forget gate (predict, then run) ---------------------------------

EX4_FORGET, EX4_STEPS = 0.95, 40


@exercise("ch04.ex4", "A leaky belt")
def check_belt_share(answer):
    value = as_number(answer, "a number: the share of c_0 left in c_40")
    share = EXPECTED("belt_share", f"{EX4_FORGET},{EX4_STEPS}", EX4_FORGET, EX4_STEPS)
    if abs(value - share) <= 0.002:
        return True, (f"{EX4_FORGET}^{EX4_STEPS} = {share:.3f}: with the input gate shut, c_t = f c_(t-1), so "
                      "the belt multiplies by the forget gate and by nothing else, no weight matrix and no tanh "
                      "slope. A gate of 0.95 still leaks: to keep the number for 40 words, the forget gate must "
                      "stay much nearer 1.")
    if abs(value - EX4_FORGET) <= 0.002:
        return False, (f"{EX4_FORGET} is what is left after one step: the forget gate multiplies at each of the "
                       f"{EX4_STEPS}.")
    if abs(value - 1) <= 0.002:
        return False, ("The belt has no weight matrix to shrink it, but the forget gate still multiplies: "
                       f"c_t = {EX4_FORGET} c_(t-1) at every step.")
    if value <= 0.005:
        return False, (f"A forget gate of {EX4_FORGET} keeps {EX4_FORGET} of the belt at every step (it forgets "
                       f"{1 - EX4_FORGET:.2f}): the factors multiply, and {EX4_STEPS} of them never reach zero.")
    return False, (f"With the input gate shut, c_t = f c_(t-1): multiply {EX4_STEPS} forget gates of "
                   f"{EX4_FORGET}.")
