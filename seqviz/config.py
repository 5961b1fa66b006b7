"""Run-wide settings: quick mode, device choice and seeding.

Quick mode (``SEQVIZ_QUICK=1``, set by CI) shrinks data, widths and step counts so
every notebook runs in seconds; it never skips a code path. Chapters never branch on
the environment themselves: they ask :func:`scaled` for a size.
"""

from __future__ import annotations

import os
import random

_FALSE = {"", "0", "false", "no", "off"}


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in _FALSE


QUICK: bool = _env_flag("SEQVIZ_QUICK")
"""True when ``SEQVIZ_QUICK`` is set to anything but 0/false/no/off."""

BOOK: bool = _env_flag("SEQVIZ_BOOK")
"""True while the book is being built (``make book``): progress bars stay quiet and live
widgets show a still of their first picture (a kernel-less page cannot run their Python)."""


def scaled(full, quick=None):
    """Return ``full`` normally and ``quick`` in quick mode.

    With ``quick`` omitted, an int shrinks to a tenth (at least 1) and a float to a
    tenth; anything else must name its quick value explicitly.

    >>> scaled(2000, quick=50)   # 2000 in a normal run, 50 under SEQVIZ_QUICK=1
    """
    if not QUICK:
        return full
    if quick is not None:
        return quick
    if isinstance(full, bool) or not isinstance(full, (int, float)):
        raise ValueError(f"scaled() needs an explicit quick value for {type(full).__name__} {full!r}")
    return max(1, full // 10) if isinstance(full, int) else full / 10


def progress(iterable=None, **kwargs):
    """A ``tqdm.auto`` progress bar, silent while the book is built (a finished bar is noise there)."""
    from tqdm.auto import tqdm

    kwargs["disable"] = kwargs.get("disable", False) or BOOK
    return tqdm(iterable, **kwargs)


def pick_device(prefer: str | None = None):
    """The best available ``torch.device``: cuda, then mps, then cpu.

    ``prefer`` ("cuda", "mps", "cpu" or "cuda:1") forces a choice and fails with a
    ``ValueError`` if that device is not available here.
    """
    import torch

    if prefer is not None:
        kind = str(prefer).split(":")[0]
        available = {
            "cpu": True,
            "cuda": torch.cuda.is_available(),
            "mps": getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available(),
        }
        if kind not in available:
            raise ValueError(f"prefer must be one of 'cuda', 'mps', 'cpu' (optionally 'cuda:N'), got {prefer!r}")
        if not available[kind]:
            raise ValueError(f"device {prefer!r} was requested but is not available on this machine")
        return torch.device(prefer)
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def seed_everything(seed: int) -> int:
    """Seed Python, NumPy and PyTorch (all devices); the same seed gives the same numbers on CPU."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    return seed
