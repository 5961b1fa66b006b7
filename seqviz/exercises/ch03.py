"""Exercises of chapter 03, why memory fades (registered on import).

- ch03.ex1: the long-run slope of log||dL/dh_t|| from the spectral radius, for a non-normal W_hh
  whose largest singular value tells a different story;
- ch03.ex2: the gradient norms of a linear RNN in closed form, ||(W_hh^T)^(T-1-t) g||;
- ch03.ex3: the Jacobian of one tanh step, diag(1 - h_t^2) W_hh;
- ch03.ex4: clipping by norm, equal to ``torch.nn.utils.clip_grad_norm_`` (epsilon included);
- ch03.ex5 (a conceptual question, a number): how much of the error signal is left ten steps back when W_hh is
  0.9 times an orthogonal matrix.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch03.py``).
"""

from __future__ import annotations

import torch

from .expected import Expected
from .registry import as_number, as_sequence, as_tensor, compare_tensors, exercise

EXPECTED = Expected("ch03")

# -- ex1: predict the slope ---------------------------------------------------------------------

EX1_W_HH = ((0.5, 1.0), (0.0, 0.5))  # eigenvalues 0.5, 0.5; largest singular value about 1.21


@exercise("ch03.ex1", "Predict the slope from the spectral radius")
def check_slope(answer):
    value = as_number(answer, "a number: the slope of log||dL/dh_t|| per step back")
    slope, bound, rho, sigma = EXPECTED("slope_numbers", "book", EX1_W_HH)
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


@exercise("ch03.ex2", "Gradient norms of a linear RNN in closed form")
def check_closed_form(answer):
    if not callable(answer):
        return False, "answer should be your function closed_form_norms(w_hh, g, T) returning a tensor (T,)."
    generator = torch.Generator().manual_seed(3)
    for B, H, T in ((2, 4, 6), (3, 5, 9)):
        w_hh = torch.randn(H, H, generator=generator, dtype=torch.float64) / H**0.5 * 1.3
        x = torch.randn(B, T, 3, generator=generator, dtype=torch.float64)
        g = torch.randn(B, H, generator=generator, dtype=torch.float64)
        expected = EXPECTED("linear_rnn_norms", f"{B},{H},{T}", w_hh, x, g)  # hidden_grad_norms on a linear RNN
        got = answer(w_hh.clone(), g.clone(), T)
        ok, message = compare_tensors(got, expected, f"the norms for B={B}, H={H}, T={T}", atol=1e-8, rtol=1e-6)
        if not ok:
            got = as_tensor(got, expected, "closed_form_norms's result")
            if got.shape == expected.shape:
                if torch.allclose(got.double().flip(0), expected):
                    message += " Your curve runs backwards: index t = T-1 is the last step, where the norm is ||g||."
                else:
                    message += (" Check the transpose (the error flows back through W_hh^T) and that the last "
                                "step gets no factor at all.")
            return False, message
    return True, "Your closed form equals hidden_grad_norms on a linear RNN: the error signal is just (W_hh^T)^k g."


# -- ex3: the Jacobian of one step ---------------------------------------------------------------


@exercise("ch03.ex3", "The Jacobian of one tanh step")
def check_jacobian(answer):
    if not callable(answer):
        return False, "answer should be your function step_jacobian(w_hh, h_t) returning an (H, H) tensor."
    generator = torch.Generator().manual_seed(4)
    for H in (3, 6):
        w_hh = torch.randn(H, H, generator=generator, dtype=torch.float64)
        w_ih = torch.randn(H, 2, generator=generator, dtype=torch.float64)
        x = torch.randn(2, generator=generator, dtype=torch.float64)
        h_prev = torch.randn(H, generator=generator, dtype=torch.float64).tanh()
        h_t = torch.tanh(w_ih @ x + w_hh @ h_prev)
        expected = EXPECTED("tanh_step_jacobian", H, w_ih, w_hh, x, h_prev)  # autograd's d h_t / d h_{t-1}
        got = answer(w_hh.clone(), h_t.clone())
        ok, message = compare_tensors(got, expected, f"the Jacobian for H={H}", atol=1e-9, rtol=1e-7)
        if not ok:
            got = as_tensor(got, expected, "step_jacobian's result")
            if got.shape == expected.shape:
                if torch.allclose(got.double(), expected.T):
                    message += " It is transposed: row i belongs to unit i of h_t, so the slopes scale the rows."
                else:
                    message += " Recall d tanh(a)/da = 1 - tanh(a)^2 = 1 - h_t^2, one factor per row of W_hh."
            return False, message
    return True, ("step_jacobian equals autograd's Jacobian: diag(1 - h_t^2) W_hh. Its norm is at most "
                  "sigma_max(W_hh), and smaller wherever units saturate.")


# -- ex4: clipping by norm ------------------------------------------------------------------------

# (scale of the gradients, max_norm): far above, below, a little above, and a total norm so small that the
# 1e-6 in max_norm / (total + 1e-6) changes the factor (clipping without it is off by a factor of 1.5 there)
EX4_CASES = ((10.0, 1.0), (0.1, 1.0), (3.0, 2.5), (1e-6, 1e-6))


@exercise("ch03.ex4", "Clipping by norm")
def check_clip(answer):
    if not callable(answer):
        return False, "answer should be your function clip_norm(grads, max_norm) returning a list of tensors."
    generator = torch.Generator().manual_seed(5)
    for scale, max_norm in EX4_CASES:
        grads = [scale * torch.randn(shape, generator=generator) for shape in ((4, 3), (4,), (2, 2, 2))]
        expected = EXPECTED("clip_grad_norm", f"{scale},{max_norm}", grads, max_norm)  # clip_grad_norm_'s result
        got = as_sequence(answer([g.clone() for g in grads], max_norm), len(grads),
                          f"clip_norm's result (one tensor per gradient, {len(grads)} here)")
        for i, (mine, clipped) in enumerate(zip(got, expected)):
            ok, message = compare_tensors(mine, clipped, f"gradient {i} (scale {scale:g}, max_norm {max_norm:g})",
                                          atol=1e-5 * scale, rtol=1e-4)
            if not ok:
                no_eps = EXPECTED.maybe("clip_without_epsilon", f"{scale},{max_norm}")
                mine = as_tensor(mine, clipped, "a clipped gradient")
                if scale < 1e-3 and no_eps is not None and mine.shape == clipped.shape and \
                        torch.allclose(mine.double(), no_eps[i].double(), atol=1e-5 * scale, rtol=1e-4):
                    message += (" Your factor is max_norm / total: clip_grad_norm_ divides by total + 1e-6, which "
                                "matters when the norms are tiny.")
                elif (scale, max_norm) == (0.1, 1.0):  # the total norm is below max_norm here
                    message += " When the total norm is already below max_norm, nothing should change."
                else:
                    message += (" Clip all gradients together: one total norm over every tensor, one common "
                                "factor max_norm / (total + 1e-6).")
                return False, message
    return True, "clip_norm equals torch.nn.utils.clip_grad_norm_: one shared factor, so the direction is kept."


# -- ex5: ten steps back (predict, then run) ------------------------------------------------------

EX5_RHO, EX5_STEPS = 0.9, 10


@exercise("ch03.ex5", "How much is left ten steps back")
def check_left(answer):
    value = as_number(answer, "a number: the ratio ||dL/dh_(T-10)|| / ||dL/dh_T||")
    left = EXPECTED("signal_left", f"{EX5_RHO},{EX5_STEPS}", EX5_RHO, EX5_STEPS)
    if abs(value - left) <= 0.005:
        return True, (f"{EX5_RHO}^{EX5_STEPS} = {left:.3f}: each step back multiplies the signal by W_hh^T, and "
                      f"0.9 times an orthogonal matrix shrinks every vector by exactly {EX5_RHO}. About a third is "
                      "left after ten steps, a thousandth after 66.")
    if abs(value - EX5_RHO) <= 0.005:
        return False, (f"{EX5_RHO} is what is left after one step back. Each of the {EX5_STEPS} steps multiplies "
                       f"by {EX5_RHO} again.")
    if value > 1:
        return False, ("Going back, the signal is multiplied by W_hh^T once per step, and this W_hh shrinks every "
                       f"vector to {EX5_RHO} of its length: the ratio is below 1.")
    if value <= 0.005:
        return False, (f"Taking away 1 - {EX5_RHO} = 0.1 per step would leave nothing after ten steps, but the "
                       f"factor multiplies: {EX5_RHO} x {EX5_RHO} x ... , which is never zero.")
    return False, (f"Each step back multiplies the signal by W_hh^T, and 0.9 times an orthogonal matrix scales "
                   f"every vector by exactly {EX5_RHO}: multiply {EX5_STEPS} such factors.")
