"""Exercises of chapter 02, the sticky note (registered on import).

- ch02.ex1: one RNN step, ``rnn_step(x, h, W_ih, W_hh, b_ih, b_hh)``, equal to ``torch.nn.RNNCell``;
- ch02.ex2: the number of parameters of ``torch.nn.RNN(input_size, hidden_size)``, as a function;
  ch02.ex2b, its follow-up: how many parameters reading sequences twice as long adds;
- ch02.ex3: the last state of a tiny linear RNN, by hand: how much of the first input survives;
- ch02.ex4: backpropagation through time by hand: dL/dw of a scalar linear RNN as a sum over steps.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import torch
from torch import nn

from ..measure import count_parameters
from .hidden import agree, agrees_with_cell, hidden_test, randint
from .registry import as_number, cell_cases, compare_tensors, exercise

# -- ex1: one step ------------------------------------------------------------------------------


def _rnn_step_reference(x, h, W_ih, W_hh, b_ih, b_hh):
    return torch.tanh(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh)  # (B, H)


def _rnn_step_no_tanh(x, h, W_ih, W_hh, b_ih, b_hh):
    return x @ W_ih.T + b_ih + h @ W_hh.T + b_hh


def _rnn_step_forgets(x, h, W_ih, W_hh, b_ih, b_hh):
    return torch.tanh(x @ W_ih.T + b_ih + b_hh)  # ignores the previous note


def _rnn_step_one_bias(x, h, W_ih, W_hh, b_ih, b_hh):
    return torch.tanh(x @ W_ih.T + b_ih + h @ W_hh.T)


@exercise("ch02.ex1", "One step of the sticky note", reference=lambda: _rnn_step_reference,
          wrong=[lambda: _rnn_step_no_tanh, lambda: _rnn_step_forgets, lambda: _rnn_step_one_bias])
def check_rnn_step(answer):
    if not callable(answer):
        return False, "answer should be your function rnn_step (the function itself, without calling it)."
    generator = torch.Generator().manual_seed(2)
    for (batch, input_size, hidden_size), x, h, weights, expected in cell_cases(
            nn.RNNCell, ((3, 4, 5), (1, 2, 7), (6, 5, 3)), generator, squash_state=True):
        with torch.no_grad():
            got = answer(x, h, *weights)
        ok, message = compare_tensors(got, expected, f"rnn_step for batch {batch}, input {input_size}, "
                                                     f"hidden {hidden_size}")
        if not ok:
            if isinstance(got, torch.Tensor) and got.shape == expected.shape:
                if got.detach().abs().max() > 1:
                    message += " Some values lie outside [-1, 1]: did you squash with tanh?"
                else:
                    message += (" Check that you use the previous state h (times W_hh transposed) and add both "
                                "biases, b_ih and b_hh.")
            return False, message
    return True, "rnn_step equals torch.nn.RNNCell on three random batches: this is the whole recurrent cell."


@hidden_test("ch02.ex1")
def _hidden_rnn_step(answer, g):
    sizes = [(randint(g, 1, 6), randint(g, 1, 9), randint(g, 1, 9), dtype) for dtype in (torch.float32,
                                                                                          torch.float64)]
    return agrees_with_cell(answer, nn.RNNCell, "rnn_step", sizes, g, "in float32 and float64, at other sizes",
                            squash_state=True)


# -- ex2: counting parameters -------------------------------------------------------------------


def _count_reference(input_size, hidden_size):
    return hidden_size * input_size + hidden_size * hidden_size + 2 * hidden_size


@exercise("ch02.ex2", "Counting the sticky note's parameters", reference=lambda: _count_reference,
          wrong=[lambda: (lambda i, h: h * i + h * h + h), lambda: (lambda i, h: h * i + h * h),
                 lambda: (lambda i, h: 2 * h * i + 2 * h)])
def check_count(answer):
    if not callable(answer):
        return False, "answer should be a function rnn_parameters(input_size, hidden_size) returning an int."
    for input_size, hidden_size in ((1, 1), (3, 5), (16, 32), (100, 7)):
        expected = count_parameters(nn.RNN(input_size, hidden_size))
        got = as_number(answer(input_size, hidden_size), "an int (the number of parameters)")
        if got != expected:
            hint = ""
            if got == expected - hidden_size:
                hint = " You are one bias vector short: PyTorch keeps two, b_ih and b_hh (their sum acts as one)."
            elif got == expected - 2 * hidden_size:
                hint = " You forgot the biases."
            elif got < expected - 2 * hidden_size:
                hint = " Is W_hh (hidden x hidden) in your count?"
            return False, (f"for input_size={input_size}, hidden_size={hidden_size} you count {got:g}, "
                           f"but torch.nn.RNN has {expected}.{hint}")
    return True, ("your formula matches torch.nn.RNN for four sizes. Notice what is missing from it: the "
                  "length of the sequence.")


@exercise("ch02.ex2b", "Counting the note's parameters: longer sequences", reference=lambda: 0,
          wrong=[lambda: 16, lambda: 1, lambda: 2.0])
def check_count_follow_up(answer):
    got = as_number(answer, "a number of parameters (how many are added)")
    if got == 0:
        return True, ("none: W_ih, W_hh and the biases are used again at every step, so a network reading 10 or "
                      "1,000 tokens has exactly the same parameters.")
    return False, (f"{got:g} parameters would be added? Look at your formula: which of its terms mentions the "
                   "length of the sequence?")


@hidden_test("ch02.ex2")
def _hidden_rnn_count(answer, g):
    cases = [(randint(g, 1, 300), randint(g, 1, 300)) for _ in range(10)]
    return agree(answer, lambda i, h: count_parameters(nn.RNN(i, h)), cases, "rnn_parameters")


# -- ex3: a linear RNN by hand ------------------------------------------------------------------

EX3_W, EX3_U, EX3_XS = 0.5, 1.0, (1.0, 0.0, 0.0, 2.0)


def _linear_rnn_last(w=EX3_W, u=EX3_U, xs=EX3_XS):
    h = 0.0
    for x in xs:
        h = w * h + u * x
    return h  # 0.5**3 * 1 + 2 = 2.125


@exercise("ch02.ex3", "A linear sticky note, by hand", reference=lambda: _linear_rnn_last(),
          wrong=[lambda: 3.0, lambda: 2.0, lambda: 2.25])
def check_linear_last(answer):
    got = as_number(answer, "a number (h_4)")
    expected = _linear_rnn_last()
    if abs(got - expected) < 1e-6:
        return True, (f"h_4 = {expected:g}: of the first input only w^3 = {EX3_W ** 3:g} survives three "
                      "rewrites. The note fades geometrically; chapter 3 is about exactly this.")
    if abs(got - sum(EX3_XS)) < 1e-6:
        return False, f"{got:g} is the plain sum of the inputs: each rewrite multiplies the old note by w = {EX3_W}."
    if abs(got - EX3_XS[-1] * EX3_U) < 1e-6:
        return False, f"{got:g} forgets everything before the last step: h_3 is not zero."
    if abs(got - (EX3_XS[-1] + EX3_W ** 2 * EX3_XS[0])) < 1e-6:
        return False, (f"{got:g} is one rewrite short: x_1 enters at step 1 and is multiplied by w at steps 2, 3 "
                       "and 4.")
    return False, (f"{got:g} is not h_4. Write h_1, h_2, h_3, h_4 one after the other with "
                   f"h_t = {EX3_W} h_(t-1) + {EX3_U} x_t and h_0 = 0.")


# -- ex4: BPTT by hand --------------------------------------------------------------------------


def _grad_w_reference(w, xs):
    """dL/dw for h_t = w h_{t-1} + x_t, h_0 = 0, L = h_T: the sum over steps of dL/dh_t * h_{t-1}."""
    hs = [0.0]
    for x in xs:
        hs.append(w * hs[-1] + float(x))
    T = len(xs)
    return sum(w ** (T - t) * hs[t - 1] for t in range(1, T + 1))


def _grad_w_last_step_only(w, xs):
    hs = [0.0]
    for x in xs:
        hs.append(w * hs[-1] + float(x))
    return hs[-2]  # only the copy of w used at the last step


def _grad_w_no_chain(w, xs):
    hs = [0.0]
    for x in xs:
        hs.append(w * hs[-1] + float(x))
    return sum(hs[:-1])  # forgets that later copies pass the gradient back through w


def _autograd_grad(w, xs):
    w_t = torch.tensor(float(w), dtype=torch.float64, requires_grad=True)
    h = torch.zeros((), dtype=torch.float64)
    for x in xs:
        h = w_t * h + float(x)
    (grad,) = torch.autograd.grad(h, w_t)
    return grad.item()


@exercise("ch02.ex4", "Backpropagation through time, by hand", reference=lambda: _grad_w_reference,
          wrong=[lambda: _grad_w_last_step_only, lambda: _grad_w_no_chain])
def check_grad_w(answer):
    if not callable(answer):
        return False, "answer should be your function grad_w(w, xs) returning dL/dw as a number."
    generator = torch.Generator().manual_seed(4)
    cases = [(0.5, [1.0, 0.0, 0.0, 2.0]), (0.9, [1.0]), (-0.7, [0.3, -1.2, 2.0])]
    cases += [(float(torch.rand((), generator=generator) * 2 - 1), torch.randn(6, generator=generator).tolist())
              for _ in range(3)]
    for w, xs in cases:
        expected = _autograd_grad(w, xs)
        got = as_number(answer(w, list(xs)), "a number (dL/dw)")
        if abs(got - expected) > 1e-6 * max(1.0, abs(expected)):
            hint = ""
            if abs(got - _grad_w_last_step_only(w, xs)) < 1e-9:
                hint = (" That is only the last step's share. w was used at every step: add the share of each "
                        "copy, dL/dh_t * h_(t-1), where dL/dh_t = w^(T-t).")
            elif abs(got - _grad_w_no_chain(w, xs)) < 1e-9:
                hint = (" You added h_(t-1) for every step, but the loss reaches step t only through the later "
                        "rewrites: weight each share by dL/dh_t = w^(T-t).")
            xs_text = ", ".join(f"{x:.3g}" for x in xs)
            return False, f"for w = {w:.3g}, xs = [{xs_text}] you give {got:.6g}, autograd says {expected:.6g}.{hint}"
    return True, ("your sum over the unrolled copies equals autograd on six sequences: that sum is "
                  "backpropagation through time.")


@hidden_test("ch02.ex4")
def _hidden_grad_w(answer, g):
    cases = [(float(torch.rand((), generator=g) * 2.4 - 1.2), torch.randn(randint(g, 1, 12), generator=g).tolist())
             for _ in range(8)]
    return agree(answer, _grad_w_reference, cases, "grad_w", atol=1e-6, rtol=1e-6)
