"""Gradients through time, chapter 3's machinery: Jacobians and their products, clipping, and the cost of
truncated BPTT. The per-step gradient norms themselves, dL/dh_t, are recorded by :mod:`seqviz.trace`
(:func:`~seqviz.trace.hidden_grad_norms`, the curve of chapters 3 and 4).

Backpropagation through time multiplies the error signal by one Jacobian per step,

    dL/dh_t = (dh_{t+1}/dh_t)^T dL/dh_{t+1},    dh_{t+1}/dh_t = diag(f'(a_{t+1})) W_hh

for the vanilla RNN h_t = f(a_t), a_t = W_ih x_t + W_hh h_{t-1} + b. So the signal that
reaches k steps back is a product of k such matrices, and shrinks or grows
geometrically (Bengio et al., 1994; Pascanu et al., 2013). The helpers here measure
each factor, the running product and its per-step rate, and give two predictions:

- the bound ``log(sigma_max(W_hh) * max f')`` (Pascanu et al., 2013): never exceeded;
- the mean-field rate ``log(rho(W_hh) * rms f')`` (Poole et al., 2016; Chen et al., 2018),
  which a random recurrent matrix follows closely.

Then the two remedies of chapter 3: clipping (by norm and by value, equal to
``torch.nn.utils.clip_grad_norm_`` / ``clip_grad_value_``) and truncated BPTT
(Williams & Peng, 1990; the module is :class:`seqviz.models.TruncatedBPTT`), whose time and
memory kept for backward :func:`tbptt_cost` measures (:func:`seqviz.measure.activation_bytes`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch

from .config import model_device
from .measure import activation_bytes, time_call
from .models import RNN
from .models._checks import check_positive_int

__all__ = [
    "activation_slope", "bound_log_slope", "clip_by_norm", "clip_by_value", "fit_log_slope", "predicted_log_slope",
    "product_norms", "recurrent_matrix", "rnn_step_jacobians", "tbptt_cost",
]


# -- the factors of the product -------------------------------------------------------


def recurrent_matrix(hidden_size: int, radius: float, kind: str = "gaussian", seed: int = 0) -> torch.Tensor:
    """A random (H, H) recurrent matrix whose spectral radius (largest |eigenvalue|) is ``radius``.

    ``kind="gaussian"``: i.i.d. normal entries, rescaled; its largest singular value is
    about twice its spectral radius. ``kind="orthogonal"``: ``radius`` times a random
    orthogonal matrix, whose singular values all equal ``radius``.
    """
    check_positive_int("hidden_size", hidden_size)
    if isinstance(radius, bool) or not isinstance(radius, (int, float)) or not math.isfinite(radius) or radius <= 0:
        raise ValueError(f"radius must be a finite number > 0, got {radius!r}")
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(hidden_size, hidden_size, generator=g, dtype=torch.float64)  # (H, H)
    if kind == "gaussian":
        w = w / torch.linalg.eigvals(w).abs().max()
    elif kind == "orthogonal":
        q, r = torch.linalg.qr(w)
        w = q * torch.sign(torch.diagonal(r))  # Haar-distributed orthogonal
    else:
        raise ValueError(f"kind must be 'gaussian' or 'orthogonal', got {kind!r}")
    return (radius * w).float()


def activation_slope(nonlinearity: str, h: torch.Tensor) -> torch.Tensor:
    """f'(a) written in terms of the output h = f(a): tanh 1 - h^2, relu [h > 0], linear 1."""
    if nonlinearity == "tanh":
        return 1 - h * h
    if nonlinearity == "relu":
        return (h > 0).to(h.dtype)
    if nonlinearity == "linear":
        return torch.ones_like(h)
    raise ValueError(f"nonlinearity must be 'tanh', 'relu' or 'linear', got {nonlinearity!r}")


def _check_rnn(rnn):

    if not isinstance(rnn, RNN):
        raise ValueError(f"expected a seqviz.models.RNN, got {type(rnn).__name__}")
    if rnn.bidirectional:
        raise ValueError("step Jacobians are defined here for unidirectional RNNs only")


def rnn_step_jacobians(rnn, x: torch.Tensor):
    """The per-step Jacobians of the top layer: ``J`` (B, T, H, H) with J[:, t] = dh_t/dh_{t-1}.

    Also returns the activation slopes f'(a_t), (B, T, H), so that J[:, t] =
    diag(slopes[:, t]) W_hh. Step 0 is the Jacobian with respect to the initial state.
    Runs where ``rnn`` is (``x`` is moved there); both results stay on that device.
    """
    _check_rnn(rnn)
    x = x.to(model_device(rnn))
    top = rnn.num_layers - 1
    with torch.no_grad():
        h = rnn(x, return_trace=True)[2]["h"][top]  # (B, T, H)
        slopes = activation_slope(rnn.nonlinearity, h)  # (B, T, H)
        w_hh = getattr(rnn, f"weight_hh_l{top}")  # (H, H)
        jac = slopes.unsqueeze(-1) * w_hh  # (B, T, H, H): row i scaled by f'(a_i)
    return jac, slopes


def product_norms(jacobians: torch.Tensor) -> torch.Tensor:
    """||dh_{T-1}/dh_t||_2 = ||J_{T-1} ... J_{t+1}||_2 for t = 0..T-1 (1 at t = T-1): (B, T), float64.

    The product is renormalised at every step and its log-norm accumulated, so long
    products neither underflow nor overflow before the final exp.
    """
    if jacobians.dim() != 4 or jacobians.shape[-1] != jacobians.shape[-2]:
        raise ValueError(f"jacobians must be (B, T, H, H), got {tuple(jacobians.shape)}")
    B, T, H, _ = jacobians.shape
    jac = jacobians.detach().double()
    product = torch.eye(H, dtype=torch.float64, device=jac.device).expand(B, H, H)  # (B, H, H)
    log_scale = torch.zeros(B, dtype=torch.float64, device=jac.device)
    log_norms = torch.zeros(B, T, dtype=torch.float64, device=jac.device)
    for t in range(T - 2, -1, -1):
        product = product @ jac[:, t + 1]  # (B, H, H): now dh_{T-1}/dh_t, up to the scale
        norm = torch.linalg.matrix_norm(product, ord=2).clamp_min(1e-300)  # (B,)
        product = product / norm.view(B, 1, 1)
        log_scale = log_scale + norm.log()
        log_norms[:, t] = log_scale
    return log_norms.exp()


def fit_log_slope(norms: torch.Tensor, skip: int = 0) -> float:
    """The least-squares slope of log(norm) against the number of steps back from the end.

    ``norms`` is (T,), in time order (the loss at the end); entries that are zero or not
    finite are left out; so are the ``skip`` steps nearest the end (a transient). The
    result is the per-step log-rate: norms shrink by ``exp(slope)`` per step when it is < 0.
    """
    norms = torch.as_tensor(norms, dtype=torch.float64).detach().cpu().flatten()
    steps_back = torch.arange(norms.numel() - 1, -1, -1, dtype=torch.float64)  # (T,)
    keep = torch.isfinite(norms) & (norms > 0) & (steps_back >= skip)
    if int(keep.sum()) < 2:
        return float("nan")
    k, y = steps_back[keep], norms[keep].log()
    k0 = k - k.mean()
    return float((k0 * (y - y.mean())).sum() / (k0 * k0).sum())


def predicted_log_slope(weight_hh: torch.Tensor, slopes: torch.Tensor) -> float:
    """Mean-field rate log(rho(W_hh) * rms f'): each step back multiplies ||dL/dh|| by about rho * rms f'.

    For a linear RNN (f' = 1) it is the exact long-run rate, log rho (Gelfand's formula).
    """
    rho = torch.linalg.eigvals(weight_hh.detach().double()).abs().max().item()
    rms = slopes.detach().double().pow(2).mean().sqrt().item()
    return math.log(rho * rms) if rho * rms > 0 else float("-inf")


def bound_log_slope(weight_hh: torch.Tensor, slopes: torch.Tensor) -> float:
    """The worst case log(sigma_max(W_hh) * max f'): no step can multiply the norm by more."""
    sigma = torch.linalg.matrix_norm(weight_hh.detach().double(), ord=2).item()
    top = slopes.detach().double().max().item()
    return math.log(sigma * top) if sigma * top > 0 else float("-inf")


# -- clipping ------------------------------------------------------------------------


def _tensors(grads, name):
    grads = [grads] if isinstance(grads, torch.Tensor) else list(grads)
    if not grads or not all(isinstance(g, torch.Tensor) for g in grads):
        raise ValueError(f"{name} expects a tensor or a non-empty list of tensors")
    return grads


def _check_bound(value, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")


def clip_by_norm(grads: torch.Tensor | Sequence[torch.Tensor], max_norm: float, eps: float = 1e-6):
    """Scale all gradients together so that their joint L2 norm is at most ``max_norm``.

    Returns ``(clipped, total_norm)``; the inputs are not changed. Same numbers as
    ``torch.nn.utils.clip_grad_norm_`` (which scales by max_norm / (norm + 1e-6)). The
    direction of the whole gradient is kept; only its length is capped.
    """
    grads = _tensors(grads, "clip_by_norm")
    _check_bound(max_norm, "max_norm")
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g.detach()) for g in grads]))
    factor = (max_norm / (total + eps)).clamp(max=1.0)
    return [g * factor for g in grads], total


def clip_by_value(grads: torch.Tensor | Sequence[torch.Tensor], clip_value: float):
    """Clamp every entry to [-clip_value, clip_value] (as ``clip_grad_value_``); the direction changes."""
    grads = _tensors(grads, "clip_by_value")
    _check_bound(clip_value, "clip_value")
    return [g.clamp(-clip_value, clip_value) for g in grads]


# -- truncated backpropagation through time ---------------------------------------------


def tbptt_cost(loss_fn: Callable[[], torch.Tensor], repeats: int = 5) -> dict[str, float]:
    """Time ``loss_fn().backward()`` and count what it keeps for backward.

    Returns ``{"ms": median milliseconds per call (:func:`seqviz.measure.time_call`, which waits for the
    accelerator), "mb": MiB saved for backward (:func:`seqviz.measure.activation_bytes`)}``; the parameters'
    ``.grad`` are left as the last call made them. Chapter 3 compares full and truncated BPTT with it.
    """
    if not callable(loss_fn):
        raise ValueError(f"loss_fn must be a function () -> scalar loss, got {type(loss_fn).__name__}")
    check_positive_int("repeats", repeats)
    loss, saved = activation_bytes(loss_fn, return_result=True)
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        raise ValueError(f"loss_fn must return a scalar tensor, got {getattr(loss, 'shape', type(loss).__name__)}")
    loss.backward()
    seconds = time_call(lambda: loss_fn().backward(), min_time=0.0, repeats=repeats, device=loss.device)
    return {"ms": 1000 * seconds, "mb": saved / 2**20}
