"""Sampling from a language model: temperature, top-k, and one uniform number per token (chapter 4b).

:func:`sample` continues a prompt with any model that has ``prefill(ids (1, T)) -> (logits (1, V), state)``
and ``step(ids (1, 1), state) -> (logits (1, V), state)`` (``seqviz.models.GRULM`` and ``TransformerLM``).
Each step draws the next token by the book's one rule, which the live view of the chapter
(``seqviz/web/js/nn/sampling.js``) follows number for number:

1. ``z = (logits - max logit) / temperature`` (float64);
2. keep the ``top_k`` largest logits (ties: the lower id first); every other token gets probability 0;
3. ``p = softmax(z)`` over the kept tokens;
4. inverse CDF: walk the kept tokens **in id order**, adding up ``p``; the chosen token is the first whose
   running sum exceeds ``u``, one uniform number in [0, 1) per step (the last kept token with ``p > 0`` if
   rounding leaves the sum below ``u``).

Greedy decoding is ``top_k=1``: only the most likely token is kept, whatever ``u``. A low temperature
approaches it (the distribution sharpens onto the largest logit); a high one flattens the distribution.
The uniform numbers come from ``uniforms`` (e.g. the page's own generator, :func:`seqviz.web.generate.mulberry32`)
or from ``torch.rand(generator=generator)``. Re-exported by :mod:`seqviz.decode`.

Used by chapter 4b (language models), its exercises and its live view.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import torch

__all__ = ["Sample", "choose", "distribution", "sample"]


@dataclass
class Sample:
    """What :func:`sample` drew: ``ids`` (the new tokens, prompt excluded), ``probs`` (the probability each
    had in the distribution it was drawn from, after temperature and top-k), ``distributions`` ((n, V)
    float64 on the CPU: step i's whole distribution, 0 outside the top-k) and the ``uniforms`` used."""

    ids: list[int]
    probs: list[float]
    distributions: torch.Tensor | None = None
    uniforms: list[float] | None = None

    @property
    def mean_log_prob(self) -> float:
        """The mean natural log-probability per sampled token (``-inf`` if a token had probability 0)."""
        return sum(math.log(p) if p > 0 else -math.inf for p in self.probs) / len(self.probs)


def _check_options(temperature, top_k, vocab_size: int) -> None:
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0 \
            or not math.isfinite(temperature):
        raise ValueError(f"temperature must be a number > 0 (1: the model's own distribution; towards 0: greedy), "
                         f"got {temperature!r}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= vocab_size):
        raise ValueError(f"top_k must be None (every token) or an int in 1..{vocab_size} (the vocabulary size), "
                         f"got {top_k!r}")


def distribution(logits: torch.Tensor, temperature: float = 1.0, top_k: int | None = None) -> torch.Tensor:
    """The distribution one step draws from: ``logits`` (V,) -> probabilities (V,), float64 on the CPU,
    after ``temperature`` and ``top_k`` (0 outside the kept tokens; ties: the lower id is kept).

    A logit may be ``-inf`` (a token that can never come); NaN, ``+inf`` or a kept set that is all ``-inf``
    has no distribution, and is a ``ValueError`` (the page refuses the same)."""
    if not isinstance(logits, torch.Tensor) or logits.dim() != 1 or logits.numel() == 0:
        raise ValueError(f"logits must be a 1-D tensor (V,), got {getattr(logits, 'shape', type(logits).__name__)}")
    if not logits.is_floating_point():
        raise ValueError(f"logits must be a float tensor, got {logits.dtype}")
    _check_options(temperature, top_k, logits.numel())
    z = logits.detach().to("cpu", torch.float64)  # (V,)
    bad = torch.isnan(z) | (z == math.inf)
    if bad.any():
        raise ValueError(f"logits must be finite (or -inf for a token that cannot come), got {z[bad][0].item()} "
                         f"for token {int(bad.nonzero()[0])}")
    keep = torch.ones_like(z, dtype=torch.bool)
    if top_k is not None and top_k < z.numel():
        order = torch.sort(z, descending=True, stable=True).indices  # ties: the lower id first
        keep = torch.zeros_like(keep)
        keep[order[:top_k]] = True
    top = z[keep].max()
    if top == -math.inf:
        raise ValueError("every kept logit is -inf: no token can come next")
    z = (z - top) / temperature
    weights = torch.where(keep, z.exp(), torch.zeros_like(z))
    return weights / weights.sum()  # (V,)


def choose(probs: torch.Tensor, u: float) -> int:
    """Inverse CDF over ``probs`` (V,) in id order: the first id whose running sum exceeds ``u`` in [0, 1).

    ``probs`` must be a distribution: finite, in [0, 1], summing to 1 (within 1e-5)."""
    if not isinstance(probs, torch.Tensor) or probs.dim() != 1 or probs.numel() == 0 or not probs.is_floating_point():
        raise ValueError(f"probs must be a 1-D float tensor (V,), got "
                         f"{tuple(probs.shape) if isinstance(probs, torch.Tensor) else type(probs).__name__}")
    if isinstance(u, bool) or not isinstance(u, (int, float)) or not 0.0 <= u < 1.0:
        raise ValueError(f"u must be a uniform number in [0, 1), got {u!r}")
    p = probs.detach().to("cpu", torch.float64)
    if not bool(((p >= 0) & (p <= 1)).all()):
        raise ValueError(f"probs must lie in [0, 1] (a distribution), got values from {p.min().item():.3g} to "
                         f"{p.max().item():.3g}")
    if abs(float(p.sum()) - 1.0) > 1e-5:
        raise ValueError(f"probs must sum to 1 (a distribution), got {float(p.sum()):.6g}")
    running = torch.cumsum(p, 0)  # (V,)
    above = torch.nonzero((running > u) & (p > 0))
    if len(above):
        return int(above[0])
    return int(torch.nonzero(p > 0)[-1])  # rounding left the total below u: the last possible token


def sample(model, prompt_ids, steps: int, *, temperature: float = 1.0, top_k: int | None = None,
           generator: torch.Generator | None = None, uniforms=None, stop_ids=()) -> Sample:
    """Continue ``prompt_ids`` (a list of ids, or a tensor (T,) or (1, T)) by ``steps`` sampled tokens.

    ``temperature`` > 0 divides the logits; ``top_k`` (None: every token) keeps only the k most likely;
    ``top_k=1`` is greedy decoding. Each step uses one uniform number: ``uniforms[i]`` when given (at
    least ``steps`` of them, each in [0, 1)), else ``torch.rand((), generator=generator)``. Sampling stops
    early after a token of ``stop_ids`` (which is kept). Runs where the model's parameters are; the
    returned numbers live on the CPU.
    """
    ids = prompt_ids.tolist() if isinstance(prompt_ids, torch.Tensor) else prompt_ids
    if isinstance(ids, list) and len(ids) == 1 and isinstance(ids[0], list):
        ids = ids[0]
    if not isinstance(ids, (list, tuple)) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise ValueError(f"prompt_ids must be a list of token ids or a tensor (T,) or (1, T), got {prompt_ids!r}")
    if not ids:
        raise ValueError("the prompt is empty: give at least one token id to start from")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an int >= 1 (how many tokens to sample), got {steps!r}")
    if uniforms is not None:
        uniforms = [float(u) for u in uniforms]
        if len(uniforms) < steps or not all(0.0 <= u < 1.0 for u in uniforms[:steps]):
            raise ValueError(f"uniforms must hold at least steps = {steps} numbers in [0, 1), got {len(uniforms)}"
                             + ("" if len(uniforms) < steps else " (some outside [0, 1))"))
    if not hasattr(model, "prefill") or not hasattr(model, "step"):
        raise ValueError(f"model must have prefill(ids) and step(ids, state) (GRULM, TransformerLM), "
                         f"got {type(model).__name__}")
    parameter = next(model.parameters(), None) if hasattr(model, "parameters") else None
    device = parameter.device if parameter is not None else torch.device("cpu")
    if isinstance(stop_ids, (str, bytes)) or not hasattr(stop_ids, "__iter__") or \
            not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in stop_ids):
        raise ValueError(f"stop_ids must be a list of token ids, got {stop_ids!r}")
    stop = {int(s) for s in stop_ids}
    out, probs, dists, used = [], [], [], []
    with torch.no_grad():
        logits, state = model.prefill(torch.tensor([list(ids)], device=device))  # (1, V)
        _check_options(temperature, top_k, logits.shape[-1])
        for i in range(steps):
            p = distribution(logits[0], temperature, top_k)  # (V,) float64, CPU
            u = uniforms[i] if uniforms is not None else float(torch.rand((), generator=generator))
            token = choose(p, u)
            out.append(token)
            probs.append(float(p[token]))
            dists.append(p)
            used.append(u)
            if token in stop or i == steps - 1:
                break
            logits, state = model.step(torch.tensor([[token]], device=device), state)  # (1, V)
    return Sample(out, probs, torch.stack(dists), used)
