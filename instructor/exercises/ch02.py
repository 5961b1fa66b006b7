"""Chapter 2's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch02.py``)."""

from __future__ import annotations

import torch
from torch import nn

from seqviz.exercises.ch02 import CH02_EX5_CHOICES
from seqviz.measure import count_parameters

from . import hidden, mistakes, solution, values
from .helpers import agree, agrees_with_cell, builtin_cell, randint, same_choice


def _rnn_step_reference(x, h, W_ih, W_hh, b_ih, b_hh):
    return torch.tanh(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh)  # (B, H)


def _rnn_step_no_tanh(x, h, W_ih, W_hh, b_ih, b_hh):
    return x @ W_ih.T + b_ih + h @ W_hh.T + b_hh


def _rnn_step_forgets(x, h, W_ih, W_hh, b_ih, b_hh):
    return torch.tanh(x @ W_ih.T + b_ih + b_hh)  # ignores the previous note


def _rnn_step_one_bias(x, h, W_ih, W_hh, b_ih, b_hh):
    return torch.tanh(x @ W_ih.T + b_ih + h @ W_hh.T)


def _count_reference(input_size, hidden_size):
    return hidden_size * input_size + hidden_size * hidden_size + 2 * hidden_size


def _linear_rnn_last(w, u, xs):
    h = 0.0
    for x in xs:
        h = w * h + u * x
    return h  # 0.5**3 * 1 + 2 = 2.125


def _states(w, xs):
    hs = [0.0]
    for x in xs:
        hs.append(w * hs[-1] + float(x))
    return hs


def _grad_w_reference(w, xs):
    """dL/dw for h_t = w h_{t-1} + x_t, h_0 = 0, L = h_T: the sum over steps of dL/dh_t * h_{t-1}."""
    hs, T = _states(w, xs), len(xs)
    return sum(w ** (T - t) * hs[t - 1] for t in range(1, T + 1))


def _grad_w_last_step_only(w, xs):
    return _states(w, xs)[-2]  # only the copy of w used at the last step


def _grad_w_no_chain(w, xs):
    return sum(_states(w, xs)[:-1])  # forgets that later copies pass the gradient back through w


def _autograd_grad(w, xs):
    w_t = torch.tensor(float(w), dtype=torch.float64, requires_grad=True)
    h = torch.zeros((), dtype=torch.float64)
    for x in xs:
        h = w_t * h + float(x)
    (grad,) = torch.autograd.grad(h, w_t)
    return grad.item()


values("ch02", rnn_cell=lambda x, h, *weights: builtin_cell(nn.RNNCell, weights)(x, h).detach(),
       rnn_parameters=lambda i, h: count_parameters(nn.RNN(i, h)), linear_last=_linear_rnn_last,
       grad_w=_autograd_grad)
mistakes("ch02", "grad_w", grad_w_last_step_only=_grad_w_last_step_only, grad_w_no_chain=_grad_w_no_chain)

solution("ch02.ex1", lambda: _rnn_step_reference, forbidden=("torch.rnn_tanh_cell", "torch.nn.RNNCell.forward",
                                                             "torch.nn.RNN.forward"),
         wrong={"no tanh": (lambda: _rnn_step_no_tanh, "did you squash with tanh?"),
                "forgets h": (lambda: _rnn_step_forgets, "previous state h"),
                "one bias": (lambda: _rnn_step_one_bias, "both biases")})
solution("ch02.ex2", lambda: _count_reference,
         forbidden=("torch.nn.RNN.__init__", "torch.nn.RNNBase.__init__", "seqviz.measure.count_parameters"), wrong={
    "one bias": (lambda: (lambda i, h: h * i + h * h + h), "one bias vector short"),
    "no biases": (lambda: (lambda i, h: h * i + h * h), "forgot the biases"),
    "no W_hh": (lambda: (lambda i, h: 2 * h * i + 2 * h), "but torch.nn.RNN has")})
solution("ch02.ex2b", lambda: 0, wrong={"16": (lambda: 16, "which of its terms"), "1": (lambda: 1, "which of its"),
                                         "2.0": (lambda: 2.0, "which of its terms")})
solution("ch02.ex3", lambda: 2.125, wrong={"sum": (lambda: 3.0, "plain sum"), "last": (lambda: 2.0, "forgets"),
                                           "one short": (lambda: 2.25, "one rewrite short")})
solution("ch02.ex4", lambda: _grad_w_reference,
         forbidden=("torch.autograd.grad", "torch.autograd.backward", "torch.Tensor.backward"), wrong={
    "last step": (lambda: _grad_w_last_step_only, "only the last step's share"),
    "no chain": (lambda: _grad_w_no_chain, "weight each share")})


@hidden("ch02.ex1")
def _hidden_rnn_step(answer, g):
    sizes = [(randint(g, 1, 6), randint(g, 1, 9), randint(g, 1, 9), dtype) for dtype in (torch.float32,
                                                                                          torch.float64)]
    return agrees_with_cell(answer, nn.RNNCell, "rnn_step", sizes, g, "in float32 and float64, at other sizes",
                            squash_state=True)


@hidden("ch02.ex2")
def _hidden_rnn_count(answer, g):
    cases = [(randint(g, 1, 300), randint(g, 1, 300)) for _ in range(10)]
    return agree(answer, lambda i, h: count_parameters(nn.RNN(i, h)), cases, "rnn_parameters")


@hidden("ch02.ex4")
def _hidden_grad_w(answer, g):
    cases = [(float(torch.rand((), generator=g) * 2.4 - 1.2), torch.randn(randint(g, 1, 12), generator=g).tolist())
             for _ in range(8)]
    return agree(answer, _grad_w_reference, cases, "grad_w", atol=1e-6, rtol=1e-6)


# ex5: with W_hh = 0, h_t = tanh(W_ih x_t + b): the last note has seen only the last word
values("ch02", no_recurrence=lambda choices: choices[1])
solution("ch02.ex5", lambda: "b", wrong={"every word": (lambda: "a", "only through W_hh"),
                                        "none": (lambda: "c", "not stuck at zero")})


@hidden("ch02.ex5")
def _hidden_no_recurrence(answer, g):
    return same_choice(answer, CH02_EX5_CHOICES, CH02_EX5_CHOICES[1])
