"""Why attention divides by sqrt(d): how peaked softmax rows get as the width grows, and how much gradient
then reaches the scores and the queries.

- :func:`attention_entropy`: the mean entropy of softmax rows of random q.k scores, with and without the
  1/sqrt(d) scaling;
- :func:`softmax_attention_gradients`: gradient norms of one attention step, per query row;
- :func:`attention_gradients`: those norms for random queries and keys of each width.

The inputs are random float64 tensors drawn on the CPU from a seeded generator (no model, no training), so the
numbers are the same on every machine. Used by chapter 8.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from ..measure import check_ints

__all__ = ["attention_entropy", "attention_gradients", "softmax_attention_gradients"]


def _check_sizes(widths, length, samples, scaled, seed) -> list[int]:
    widths = check_ints(widths, "widths", 1)
    check_ints([length], "length", 1)
    check_ints([samples], "samples", 1)
    check_ints([seed], "seed", 0)
    if not isinstance(scaled, bool):
        raise ValueError(f"scaled must be True or False, got {scaled!r}")
    return widths


def attention_entropy(widths: Sequence[int], *, length: int = 32, samples: int = 64, scaled: bool = True,
                      seed: int = 0) -> list[float]:
    """Mean entropy (nats) of softmax rows of q.k scores for random unit-variance q, k of each width.

    The maximum is log(length) (uniform weights); near 0 the softmax has saturated onto one key.
    """
    widths = _check_sizes(widths, length, samples, scaled, seed)
    g = torch.Generator().manual_seed(seed)
    out = []
    for d in widths:
        q = torch.randn(samples, length, d, generator=g, dtype=torch.float64)
        k = torch.randn(samples, length, d, generator=g, dtype=torch.float64)
        scores = q @ k.transpose(1, 2) / (math.sqrt(d) if scaled else 1.0)  # (samples, T, T)
        p = scores.softmax(-1)
        out.append(float(-(p * p.clamp_min(1e-300).log()).sum(-1).mean()))
    return out


def softmax_attention_gradients(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, readout: torch.Tensor, *,
                                scaled: bool = True) -> dict[str, torch.Tensor]:
    """Gradient norms of one attention step, per query row, for the loss ``L = sum_i z_i . readout_i``.

    ``q``, ``k``: (B, T, d); ``v``, ``readout``: (B, T, dv); ``z = softmax(q k^T / s) v`` with ``s = sqrt(d)`` if
    ``scaled`` else 1. Returns ``{"scores": ||dL/d logits_i||, "query": ||dL/dq_i||}``, each (B, T), where the
    logits are what enters the softmax. A saturated softmax row (one weight near 1) has a Jacobian near 0, so
    both norms collapse.
    """
    if not all(isinstance(t, torch.Tensor) for t in (q, k, v, readout)):
        raise ValueError(f"q, k, v and readout must be tensors, got {[type(t).__name__ for t in (q, k, v, readout)]}")
    if not isinstance(scaled, bool):
        raise ValueError(f"scaled must be True or False, got {scaled!r}")
    if q.dim() != 3 or k.shape != q.shape or v.dim() != 3 or v.shape[:2] != q.shape[:2] or readout.shape != v.shape:
        raise ValueError(f"expected q, k (B, T, d) and v, readout (B, T, dv) of matching B and T; got "
                         f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, readout {tuple(readout.shape)}")
    q = q.detach().clone().requires_grad_(True)
    scale = math.sqrt(q.shape[-1]) if scaled else 1.0
    with torch.enable_grad():
        logits = q @ k.transpose(1, 2) / scale  # (B, T, T)
        logits.retain_grad()
        z = logits.softmax(-1) @ v  # (B, T, dv)
        (z * readout).sum().backward()
    return {"scores": logits.grad.norm(dim=-1), "query": q.grad.norm(dim=-1)}


def attention_gradients(widths: Sequence[int], *, length: int = 32, samples: int = 64, value_width: int = 16,
                        scaled: bool = True, threshold: float = 0.01, seed: int = 0) -> dict[str, list[float]]:
    """Gradient norms (:func:`softmax_attention_gradients`) for random unit-variance q, k of each width.

    Values and read-out have a fixed width ``value_width``, so only the scores change with the width ``d``.
    Returns one number per width under each key: ``"query_median"`` and ``"query_mean"`` (of ||dL/dq|| over the
    query rows), ``"scores_median"`` (of ||dL/d logits||) and ``"starved"``, the share of query rows whose
    logits receive a gradient of norm below ``threshold``. The median and the mean can tell different stories:
    a saturated softmax starves most rows, while the few unsaturated ones can get large gradients.
    """
    widths = _check_sizes(widths, length, samples, scaled, seed)
    (value_width,) = check_ints([value_width], "value_width", 1)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold) \
            or threshold < 0:
        raise ValueError(f"threshold must be a finite number >= 0, got {threshold!r}")
    g = torch.Generator().manual_seed(seed)
    out: dict[str, list[float]] = {"query_median": [], "query_mean": [], "scores_median": [], "starved": []}
    for d in widths:
        q, k = (torch.randn(samples, length, d, generator=g, dtype=torch.float64) for _ in range(2))
        v, readout = (torch.randn(samples, length, value_width, generator=g, dtype=torch.float64) for _ in range(2))
        norms = softmax_attention_gradients(q, k, v, readout, scaled=scaled)
        out["query_median"].append(norms["query"].median().item())
        out["query_mean"].append(norms["query"].mean().item())
        out["scores_median"].append(norms["scores"].median().item())
        out["starved"].append((norms["scores"] < threshold).double().mean().item())
    return out
