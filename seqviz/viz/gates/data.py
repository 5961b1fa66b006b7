"""The gates of one sentence, checked, and the conveyor belt's survival product (chapter 4). No drawing.

- :func:`check_gates`: validate ``{name: (T, H)}`` gates against the tokens; pick some hidden units;
- :func:`forget_survival`: how much of the cell state after step t is still on the belt at step s,
  the product of the forget gates in between;
- :func:`belt_floor`: where a belt axis starts, the same for every belt view (plotly, still and page).

Gate names in :data:`SIGMOID_GATES` lie in 0..1 (they come out of a sigmoid) and are drawn on a
fixed scale; anything else (candidate, c, h) is signed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .._plumbing import as_array

SIGMOID_GATES = ("forget", "input", "output", "update", "reset")
GATE_COLORSCALE = "Viridis"  # gates in [0, 1]
VALUE_COLORSCALE = "RdBu_r"  # candidate, c and h: signed


def check_gates(gates: Mapping[str, object], tokens: Sequence[str], units=None):
    """Validate one sentence's gates; return (tokens, {name: (T, H') array}, unit indices)."""
    if not isinstance(gates, Mapping) or not gates:
        raise ValueError("gates must be a non-empty dict {name: (T, H) tensor}, e.g. {'forget': trace['forget'][0, 0]}")
    tokens = [str(t) for t in tokens]
    if not tokens:
        raise ValueError("the sentence is empty: give at least one token")
    arrays = {}
    for name, values in gates.items():
        array = as_array(values)
        if array.ndim != 2:
            raise ValueError(f"gate {name!r} must be (T, H) = (tokens, hidden units) for one sentence, "
                             f"got shape {array.shape}; pick one layer and one sentence, e.g. trace[{name!r}][0, 0]")
        if array.shape[0] != len(tokens):
            raise ValueError(f"gate {name!r} has {array.shape[0]} time steps but there are {len(tokens)} tokens; "
                             "expected one row per token")
        arrays[str(name)] = array
    widths = {a.shape[1] for a in arrays.values()}
    if len(widths) != 1:
        raise ValueError(f"every gate must have the same number of hidden units, got {sorted(widths)}")
    H = widths.pop()
    units = list(range(H)) if units is None else [int(u) for u in units]
    if not units or min(units) < 0 or max(units) >= H:
        raise ValueError(f"units must be a non-empty list of indices in 0..{H - 1}, got {units}")
    return tokens, {k: a[:, units] for k, a in arrays.items()}, units


def belt_floor(shares, linear_above: float = 0.05) -> float:
    """Where a belt axis starts: 0.0 (a linear axis from 0 to 1) when every share drawn is at least
    ``linear_above``; otherwise the power of ten at or below the smallest share, the low end of a log axis, so
    that the lines follow the data and never sit flat against an edge. NaNs (steps before a start) are skipped."""
    values = np.asarray(shares, dtype=np.float64).ravel()
    values = values[~np.isnan(values)]
    if values.size == 0:
        raise ValueError("belt_floor needs at least one share that is a number, got none")
    if values.min() < 0 or values.max() > 1:
        raise ValueError("shares on the belt lie in [0, 1] (products of forget gates); got values outside")
    smallest = max(float(values.min()), 1e-12)
    return 0.0 if smallest >= linear_above else 10.0 ** math.floor(math.log10(smallest))


def forget_survival(forget):
    """The conveyor belt: ``S[t, s, u] = f[t+1, u] * ... * f[s, u]`` for s >= t, NaN for s < t.

    ``forget`` is (T, H), the forget gates of one sentence (or (..., T, H) for a batch). Since
    ``c_s = f_s * c_{s-1} + i_s * g_s``, ``S[t, s]`` is the share of the cell state after step
    t that is still in the cell state after step s (``S[t, t] = 1``). Returns (..., T, T, H).
    """
    import torch  # here, not at the top: importing seqviz.viz stays free of torch

    f = torch.as_tensor(forget, dtype=torch.float64) if not isinstance(forget, torch.Tensor) else forget.detach()
    if f.dim() < 2:
        raise ValueError(f"forget must be (T, H) (or (..., T, H)), got shape {tuple(f.shape)}")
    if f.numel() and (f.min() < 0 or f.max() > 1):
        raise ValueError("forget gates lie in [0, 1] (they come out of a sigmoid); got values outside")
    T = f.shape[-2]
    out = torch.full((*f.shape[:-2], T, T, f.shape[-1]), float("nan"), dtype=f.dtype, device=f.device)
    for t in range(T):
        out[..., t, t, :] = 1.0
        if t + 1 < T:
            out[..., t, t + 1 :, :] = torch.cumprod(f[..., t + 1 :, :], dim=-2)  # (..., T-t-1, H)
    return out
