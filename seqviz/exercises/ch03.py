"""Exercises of chapter 03, why memory fades (registered on import).

- ch03.ex1: the long-run slope of log||dL/dh_t|| from the spectral radius, for a non-normal W_hh
  whose largest singular value tells a different story;
- ch03.ex2: the gradient norms of a linear RNN in closed form, ||(W_hh^T)^(T-1-t) g||;
- ch03.ex3: the Jacobian of one tanh step, diag(1 - h_t^2) W_hh;
- ch03.ex4: clipping by norm, equal to ``torch.nn.utils.clip_grad_norm_``.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .hidden import agree, hidden_test, randint
from .registry import as_number, compare_tensors, exercise

# -- ex1: predict the slope ---------------------------------------------------------------------

EX1_W_HH = ((0.5, 1.0), (0.0, 0.5))  # eigenvalues 0.5, 0.5; largest singular value about 1.21


def _ex1_numbers():
    w = torch.tensor(EX1_W_HH, dtype=torch.float64)
    rho = torch.linalg.eigvals(w).abs().max().item()
    sigma = torch.linalg.matrix_norm(w, ord=2).item()
    return math.log(rho), math.log(sigma), rho, sigma


@exercise("ch03.ex1", "Predict the slope from the spectral radius", reference=lambda: math.log(0.5),
          wrong=[lambda: math.log(_ex1_numbers()[3]), lambda: 0.5, lambda: -0.5])
def check_slope(answer):
    value = as_number(answer, "a number: the slope of log||dL/dh_t|| per step back")
    slope, bound, rho, sigma = _ex1_numbers()
    if abs(value - slope) < 0.02:
        return True, (f"log(rho) = log {rho:.2f} = {slope:.3f}: far enough back, each step multiplies the gradient "
                      f"norm by {rho:.2f}, even though the largest singular value is {sigma:.2f} > 1.")
    if abs(value - bound) < 0.02:
        return False, (f"{value:.3f} is log of the largest singular value ({sigma:.2f}): that bounds a single "
                       "step, but the long-run rate of a product W^k is set by the eigenvalues (Gelfand's formula).")
    if abs(value - rho) < 0.02:
        return False, f"{value:.3f} is the factor per step; the slope on a log scale is its natural logarithm."
    if abs(value + rho) < 0.02:
        return False, "Close in spirit, but the slope is the natural logarithm of the factor per step."
    return False, (f"{value:.3f} is not it. For a linear RNN, dL/dh_t = (W_hh^T)^k g with k steps back: find the "
                   "eigenvalues of W_hh (torch.linalg.eigvals) and take the log of the largest modulus.")


# -- ex2: the closed form for a linear RNN ---------------------------------------------------------


def _closed_form_reference(w_hh, g, T):
    norms, v = [], g
    for _ in range(T):
        norms.append(torch.linalg.vector_norm(v))
        v = v @ w_hh  # (B, H): one more step back, g^T W = (W^T g)^T
    return torch.stack(norms[::-1])  # (T,): t = 0 is the farthest from the loss


def _closed_form_untransposed(w_hh, g, T):
    return _closed_form_reference(w_hh.T, g, T)


def _closed_form_reversed(w_hh, g, T):
    return _closed_form_reference(w_hh, g, T).flip(0)


def _closed_form_off_by_one(w_hh, g, T):
    return _closed_form_reference(w_hh, g @ w_hh, T)


@exercise("ch03.ex2", "Gradient norms of a linear RNN in closed form", reference=lambda: _closed_form_reference,
          wrong=[lambda: _closed_form_untransposed, lambda: _closed_form_reversed, lambda: _closed_form_off_by_one])
def check_closed_form(answer):
    if not callable(answer):
        return False, "answer should be your function closed_form_norms(w_hh, g, T) returning a tensor (T,)."
    from ..models import RNN
    from ..trace import hidden_grad_norms

    generator = torch.Generator().manual_seed(3)
    for B, H, T in ((2, 4, 6), (3, 5, 9)):
        rnn = RNN(3, H, nonlinearity="linear").double()
        with torch.no_grad():
            rnn.weight_hh_l0.copy_(torch.randn(H, H, generator=generator, dtype=torch.float64) / H**0.5 * 1.3)
        x = torch.randn(B, T, 3, generator=generator, dtype=torch.float64)
        g = torch.randn(B, H, generator=generator, dtype=torch.float64)
        expected = hidden_grad_norms(rnn, x, lambda out: (out[:, -1] * g).sum())  # loss at the last step: dL/dh_T = g
        got = answer(rnn.weight_hh_l0.detach().clone(), g.clone(), T)
        ok, message = compare_tensors(got, expected, f"the norms for B={B}, H={H}, T={T}", atol=1e-8, rtol=1e-6)
        if not ok:
            if isinstance(got, torch.Tensor) and got.shape == expected.shape:
                if torch.allclose(got.double().flip(0), expected):
                    message += " Your curve runs backwards: index t = T-1 is the last step, where the norm is ||g||."
                else:
                    message += (" Check the transpose (the error flows back through W_hh^T) and that the last "
                                "step gets no factor at all.")
            return False, message
    return True, "Your closed form equals hidden_grad_norms on a linear RNN: the error signal is just (W_hh^T)^k g."


@hidden_test("ch03.ex2")
def _hidden_closed_form(answer, g):
    cases = []
    for _ in range(3):
        B, H, T = randint(g, 1, 4), randint(g, 1, 6), randint(g, 1, 12)
        w = torch.randn(H, H, generator=g, dtype=torch.float64) / H ** 0.5
        cases.append((w, torch.randn(B, H, generator=g, dtype=torch.float64), T))
    return agree(answer, _closed_form_reference, cases, "closed_form_norms", atol=1e-8, rtol=1e-6)


# -- ex3: the Jacobian of one step ---------------------------------------------------------------


def _jacobian_reference(w_hh, h_t):
    return (1 - h_t * h_t).unsqueeze(1) * w_hh  # (H, H): row i scaled by tanh'(a_i)


@exercise("ch03.ex3", "The Jacobian of one tanh step", reference=lambda: _jacobian_reference,
          wrong=[lambda: (lambda w, h: w), lambda: (lambda w, h: (1 - h * h).unsqueeze(0) * w),
                 lambda: (lambda w, h: (1 - h).unsqueeze(1) * w)])
def check_jacobian(answer):
    if not callable(answer):
        return False, "answer should be your function step_jacobian(w_hh, h_t) returning an (H, H) tensor."
    generator = torch.Generator().manual_seed(4)
    for H in (3, 6):
        w_hh = torch.randn(H, H, generator=generator, dtype=torch.float64)
        w_ih = torch.randn(H, 2, generator=generator, dtype=torch.float64)
        x = torch.randn(2, generator=generator, dtype=torch.float64)
        h_prev = torch.randn(H, generator=generator, dtype=torch.float64).tanh()

        def step(h):
            return torch.tanh(w_ih @ x + w_hh @ h)

        expected = torch.autograd.functional.jacobian(step, h_prev)  # (H, H): d h_t / d h_{t-1}
        h_t = step(h_prev)
        got = answer(w_hh.clone(), h_t.clone())
        ok, message = compare_tensors(got, expected, f"the Jacobian for H={H}", atol=1e-9, rtol=1e-7)
        if not ok:
            if isinstance(got, torch.Tensor) and got.shape == expected.shape:
                if torch.allclose(got.double(), expected.T):
                    message += " It is transposed: row i belongs to unit i of h_t, so the slopes scale the rows."
                else:
                    message += " Recall d tanh(a)/da = 1 - tanh(a)^2 = 1 - h_t^2, one factor per row of W_hh."
            return False, message
    return True, ("step_jacobian equals autograd's Jacobian: diag(1 - h_t^2) W_hh. Its norm is at most "
                  "sigma_max(W_hh), and smaller wherever units saturate.")


@hidden_test("ch03.ex3")
def _hidden_jacobian(answer, g):
    cases = []
    for H in (1, randint(g, 2, 9)):
        cases.append((torch.randn(H, H, generator=g, dtype=torch.float64), torch.rand(H, generator=g,
                                                                                      dtype=torch.float64) * 2 - 1))
    return agree(answer, _jacobian_reference, cases, "step_jacobian", atol=1e-9, rtol=1e-7)


# -- ex4: clipping by norm ------------------------------------------------------------------------


def _clip_reference(grads, max_norm):
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    factor = min(1.0, max_norm / (float(total) + 1e-6))
    return [g * factor for g in grads]


def _clip_each(grads, max_norm):
    return [g * min(1.0, max_norm / (float(g.norm()) + 1e-6)) for g in grads]


def _clip_always(grads, max_norm):
    total = torch.linalg.vector_norm(torch.stack([g.norm() for g in grads]))
    return [g * (max_norm / (float(total) + 1e-6)) for g in grads]


@exercise("ch03.ex4", "Clipping by norm", reference=lambda: _clip_reference,
          wrong=[lambda: _clip_each, lambda: _clip_always, lambda: (lambda grads, m: [g.clamp(-m, m) for g in grads])])
def check_clip(answer):
    if not callable(answer):
        return False, "answer should be your function clip_norm(grads, max_norm) returning a list of tensors."
    generator = torch.Generator().manual_seed(5)
    for scale, max_norm in ((10.0, 1.0), (0.1, 1.0), (3.0, 2.5)):
        grads = [scale * torch.randn(shape, generator=generator) for shape in ((4, 3), (4,), (2, 2, 2))]
        params = [nn.Parameter(torch.zeros_like(g)) for g in grads]
        for p, g in zip(params, grads):
            p.grad = g.clone()
        nn.utils.clip_grad_norm_(params, max_norm)
        got = answer([g.clone() for g in grads], max_norm)
        if not isinstance(got, (list, tuple)) or len(got) != len(grads):
            return False, f"clip_norm should return a list of {len(grads)} tensors, one per gradient."
        for i, (mine, p) in enumerate(zip(got, params)):
            ok, message = compare_tensors(mine, p.grad, f"gradient {i} (scale {scale}, max_norm {max_norm})")
            if not ok:
                if scale < 1:
                    message += " When the total norm is already below max_norm, nothing should change."
                else:
                    message += (" Clip all gradients together: one total norm over every tensor, one common "
                                "factor max_norm / (total + 1e-6).")
                return False, message
    return True, "clip_norm equals torch.nn.utils.clip_grad_norm_: one shared factor, so the direction is kept."


@hidden_test("ch03.ex4")
def _hidden_clip(answer, g):
    cases = []
    for scale in (0.01, 100.0):
        grads = [torch.randn(*shape, generator=g) * scale for shape in ((3,), (2, 5), (4, 1, 2))]
        cases.append((grads, float(torch.rand((), generator=g) + 0.5)))
    return agree(answer, _clip_reference, cases, "clip_norm")
