"""A synthetic time series to forecast (chapter 10).

Each series is a sum of two sines with random phases plus Gaussian noise; at a random
point (the "regime shift") the slow sine's period and amplitude change. A forecaster
sees a window of ``length`` past values and predicts the next ``horizon`` values; to do
well after a shift it must notice from the window which regime it is in.
"""

from __future__ import annotations

import math

import torch

__all__ = ["forecast_windows", "sine_series"]


def sine_series(n: int, length: int, *, noise: float = 0.1, shift: bool = True, seed: int = 0) -> torch.Tensor:
    """(n, length) float32 series: sin(2 pi t / P1 + a) + 0.5 sin(2 pi t / P2 + b) + noise.

    P1 is drawn from [16, 32]; with ``shift`` it jumps to a period from [6, 12] (and the
    amplitude to 1.5) at a random step in the middle half of the series. P2 is fixed at 5.
    """
    for name, value in (("n", n), ("length", length)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise}")
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)[None]  # (1, T)
    period = 16 + 16 * torch.rand(n, 1, generator=g)  # (n, 1)
    amplitude = torch.ones(n, 1)
    phase_a, phase_b = (2 * math.pi * torch.rand(2, n, 1, generator=g)).unbind(0)
    if shift:
        at = (length // 4 + torch.rand(n, 1, generator=g) * (length // 2)).floor()  # (n, 1)
        after = t >= at  # (n, T)
        period = torch.where(after, 6 + 6 * torch.rand(n, 1, generator=g), period)
        amplitude = torch.where(after, torch.full_like(amplitude, 1.5), amplitude)
    slow = amplitude * torch.sin(2 * math.pi * t / period + phase_a)  # (n, T)
    fast = 0.5 * torch.sin(2 * math.pi * t / 5 + phase_b)
    return slow + fast + noise * torch.randn(n, length, generator=g)


def forecast_windows(series: torch.Tensor, length: int, horizon: int = 1, stride: int = 1):
    """Cut (n, T) series into ``(inputs (m, length, 1), targets (m, horizon))`` training pairs."""
    if not isinstance(series, torch.Tensor) or series.dim() != 2:
        raise ValueError(f"series must be a (n, T) tensor, got {getattr(series, 'shape', type(series).__name__)}")
    if length < 1 or horizon < 1 or stride < 1 or length + horizon > series.shape[1]:
        raise ValueError(f"need 1 <= length, horizon, stride and length + horizon <= T = {series.shape[1]}; "
                         f"got length={length}, horizon={horizon}, stride={stride}")
    windows = series.unfold(1, length + horizon, stride)  # (n, k, length + horizon)
    windows = windows.reshape(-1, length + horizon)
    return windows[:, :length, None].contiguous(), windows[:, length:].contiguous()
