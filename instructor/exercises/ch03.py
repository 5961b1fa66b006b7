"""Chapter 3's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch03.py``)."""

from __future__ import annotations

import math

import torch
from torch import nn

from . import hidden, mistakes, solution, values
from .helpers import agree, randint, same


def _slope_numbers(w_hh):
    w = torch.tensor(w_hh, dtype=torch.float64)
    rho = torch.linalg.eigvals(w).abs().max().item()
    sigma = torch.linalg.matrix_norm(w, ord=2).item()
    return math.log(rho), math.log(sigma), rho, sigma


def _linear_rnn_norms(w_hh, x, g):
    from seqviz.models import RNN
    from seqviz.trace import hidden_grad_norms

    rnn = RNN(x.shape[-1], w_hh.shape[0], nonlinearity="linear").double()
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(w_hh)
    return hidden_grad_norms(rnn, x, lambda out: (out[:, -1] * g).sum())  # loss at the last step: dL/dh_T = g


def _tanh_step_jacobian(w_ih, w_hh, x, h_prev):
    return torch.autograd.functional.jacobian(lambda h: torch.tanh(w_ih @ x + w_hh @ h), h_prev)  # (H, H)


def _clip_grad_norm(grads, max_norm):
    params = [nn.Parameter(torch.zeros_like(g)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    nn.utils.clip_grad_norm_(params, max_norm)
    return [p.grad for p in params]


def _closed_form_reference(w_hh, g, T):
    norms, v = [], g
    for _ in range(T):
        norms.append(torch.linalg.vector_norm(v))
        v = v @ w_hh  # (B, H): one more step back, g^T W = (W^T g)^T
    return torch.stack(norms[::-1])  # (T,): t = 0 is the farthest from the loss


def _jacobian_reference(w_hh, h_t):
    return (1 - h_t * h_t).unsqueeze(1) * w_hh  # (H, H): row i scaled by tanh'(a_i)


def _clip_reference(grads, max_norm):
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    factor = min(1.0, max_norm / (float(total) + 1e-6))
    return [g * factor for g in grads]


def _clip_without_epsilon(grads, max_norm):
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    return [g * min(1.0, max_norm / float(total)) for g in grads]


def _clip_each(grads, max_norm):
    return [g * min(1.0, max_norm / (float(g.norm()) + 1e-6)) for g in grads]


def _clip_always(grads, max_norm):
    total = torch.linalg.vector_norm(torch.stack([g.norm() for g in grads]))
    return [g * (max_norm / (float(total) + 1e-6)) for g in grads]


values("ch03", slope_numbers=_slope_numbers, linear_rnn_norms=_linear_rnn_norms,
       tanh_step_jacobian=_tanh_step_jacobian, clip_grad_norm=_clip_grad_norm)
mistakes("ch03", "clip_grad_norm", clip_without_epsilon=_clip_without_epsilon)

solution("ch03.ex1", lambda: math.log(0.5), wrong={
    "singular value": (lambda: math.log(_slope_numbers(((0.5, 1.0), (0.0, 0.5)))[3]), "largest singular value"),
    "the factor": (lambda: 0.5, "the factor per step"), "minus the factor": (lambda: -0.5, "natural logarithm")})
solution("ch03.ex2", lambda: _closed_form_reference, forbidden=("seqviz.trace.hidden_grad_norms",), wrong={
    "untransposed": (lambda: (lambda w, g, T: _closed_form_reference(w.T, g, T)), "Check the transpose"),
    "reversed": (lambda: (lambda w, g, T: _closed_form_reference(w, g, T).flip(0)), "runs backwards"),
    "off by one": (lambda: (lambda w, g, T: _closed_form_reference(w, g @ w, T)), "no factor at all")})
solution("ch03.ex3", lambda: _jacobian_reference,
         forbidden=("seqviz.gradients.rnn_step_jacobians", "torch.autograd.functional.jacobian"), wrong={
    "no slope": (lambda: (lambda w, h: w), "1 - h_t^2"),
    "columns": (lambda: (lambda w, h: (1 - h * h).unsqueeze(0) * w), "1 - h_t^2"),
    "1 - h": (lambda: (lambda w, h: (1 - h).unsqueeze(1) * w), "1 - h_t^2")})
solution("ch03.ex4", lambda: _clip_reference,
         forbidden=("torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm",
                    "torch.nn.utils.clip_grads_with_norm_", "torch.nn.utils.get_total_norm",
                    "seqviz.gradients.clip_by_norm"),
         wrong={"each": (lambda: _clip_each, "Clip all gradients together"),
                "always": (lambda: _clip_always, "nothing should change"),
                "clamp": (lambda: (lambda grads, m: [g.clamp(-m, m) for g in grads]), "Clip all gradients together"),
                "no epsilon": (lambda: _clip_without_epsilon, "divides by total + 1e-6")})


@hidden("ch03.ex2")
def _hidden_closed_form(answer, g):
    cases = []
    for _ in range(3):
        B, H, T = randint(g, 1, 4), randint(g, 1, 6), randint(g, 1, 12)
        w = torch.randn(H, H, generator=g, dtype=torch.float64) / H ** 0.5
        cases.append((w, torch.randn(B, H, generator=g, dtype=torch.float64), T))
    return agree(answer, _closed_form_reference, cases, "closed_form_norms", atol=1e-8, rtol=1e-6)


@hidden("ch03.ex3")
def _hidden_jacobian(answer, g):
    cases = []
    for H in (1, randint(g, 2, 9)):
        cases.append((torch.randn(H, H, generator=g, dtype=torch.float64),
                      torch.rand(H, generator=g, dtype=torch.float64) * 2 - 1))
    return agree(answer, _jacobian_reference, cases, "step_jacobian", atol=1e-9, rtol=1e-7)


@hidden("ch03.ex4")
def _hidden_clip(answer, g):
    cases = []
    for scale in (0.01, 100.0, 3e-7):
        grads = [torch.randn(*shape, generator=g) * scale for shape in ((3,), (2, 5), (4, 1, 2))]
        cases.append((grads, float(torch.rand((), generator=g) + 0.5) * (1e-6 if scale < 1e-3 else 1.0)))
    for grads, max_norm in cases:
        ok, message = _same_list(answer(grads, max_norm), _clip_reference(grads, max_norm), max_norm)
        if not ok:
            return ok, message
    return True, "clip_norm agrees with tiny, small and large gradients"


def _same_list(got, expected, max_norm):
    from .helpers import same

    scale = max(float(e.abs().max()) for e in expected)
    return same(got, expected, f"clip_norm(max_norm={max_norm:.3g})", atol=1e-5 * scale, rtol=1e-4)


# ex5: each step back multiplies by W_hh^T; 0.9 times an orthogonal matrix scales every vector by exactly 0.9
values("ch03", signal_left=lambda rho, steps: rho ** steps)
solution("ch03.ex5", lambda: 0.9 ** 10, wrong={"one step": (lambda: 0.9, "after one step back"),
                                              "subtracted": (lambda: 0.0, "the factor multiplies"),
                                              "grows": (lambda: 0.9 ** -10, "the ratio is below 1")})


@hidden("ch03.ex5")
def _hidden_left(answer, g):
    return same(answer, 0.9 ** 10, "the share left ten steps back", atol=0.005, rtol=0.0)
