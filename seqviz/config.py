"""Run-wide settings: quick mode, device choice and seeding.

Quick mode (``SEQVIZ_QUICK=1``, set by CI) shrinks data, widths and step counts so
every notebook runs in seconds; it never skips a code path. Chapters never branch on
the environment themselves: they ask :func:`scaled` for a size.

Devices, one rule for the whole package:

- **One default.** :func:`pick_device` (cuda, then mps, then cpu). A function that builds or
  trains a model (``train.fit`` and every runner of :mod:`seqviz.experiments` that builds one: the
  ``*_rows`` runners, the cost functions, ``learning_curve``, ``accuracy_vs_distance`` ...) takes
  ``device=None``, meaning ``pick_device()``, and places the model there.
- **Everything else follows the model.** A function or method that receives a model runs where
  its parameters are (:func:`model_device`): it moves the tensors it is given there, creates new
  ones there, and hands back results a caller can print or plot (decoding and recording helpers:
  on the device the inputs came from; curves to plot: on the CPU). This covers ``greedy``,
  ``log_prob_fn``, ``alignment``, ``rollout``, ``train.evaluate``, ``measure.measure``,
  ``experiments.accuracy_by_length``, ``trace.hidden_grads`` and ``gradients.rnn_step_jacobians``.
- **A model's forward does not move its inputs** (as in ``torch.nn``): ``forward``, ``encode``,
  ``decode`` and ``step`` of a model whose parameters sit on another device than its inputs raise
  one ``ValueError`` naming both devices (:func:`check_device`), not a CUDA traceback deep inside.
- **No host-device synchronisation in a forward.** Shape and dtype checks run everywhere; checks that
  need a value from a tensor (ids in range, lengths, a mask row with no key) run on CPU tensors only,
  or everywhere with ``SEQVIZ_DEBUG=1`` (:func:`value_checks`): on a GPU each ``.item()`` makes the
  host wait for the device.

``tests/test_devices.py`` checks all of this on a CPU-only machine with an emulated accelerator.
"""

from __future__ import annotations

import os
import random

_FALSE = {"", "0", "false", "no", "off"}


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in _FALSE


DEBUG: bool = _env_flag("SEQVIZ_DEBUG")
"""True when ``SEQVIZ_DEBUG`` is set: value checks (ids in range ...) run on accelerator tensors too."""

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


def model_device(model):
    """The device of ``model``'s parameters (or buffers); the CPU for a model that has neither."""
    import torch

    for tensor in model.parameters():
        return tensor.device
    for tensor in model.buffers():
        return tensor.device
    return torch.device("cpu")


def check_device(expected, name: str, **tensors) -> None:
    """``ValueError`` naming both devices if a tensor in ``tensors`` is not on ``expected`` (a device, or a
    tensor whose device counts). ``name`` says whose parameters sit on ``expected``. Reads no values."""
    import torch

    expected = expected.device if isinstance(expected, torch.Tensor) else torch.device(expected)
    for label, tensor in tensors.items():
        if isinstance(tensor, torch.Tensor) and tensor.device != expected:
            raise ValueError(f"{name}'s parameters are on {expected} but {label} is on {tensor.device}: move the "
                             f"inputs to the model's device first ({label}.to({str(expected)!r})), or the model "
                             f"to theirs")


def value_checks(tensor) -> bool:
    """Whether to run checks that read values out of ``tensor`` (``min``, ``any``, ``.item()``): on CPU
    tensors always, on an accelerator only with ``SEQVIZ_DEBUG`` (each read waits for the device)."""
    return DEBUG or tensor.device.type == "cpu"


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
