"""Input checks every model of ``seqviz.models`` shares: one wording for one mistake.

- :func:`check_positive_int`: sizes and counts (``hidden_size``, ``num_heads``, ``T`` ...);
- :func:`check_ids`: integer token ids (B, T), on the model's device, inside the vocabulary;
- :func:`check_lengths`: the lengths (B,) of a right-padded batch, where they may come on the CPU.

Shapes and devices are always checked; values (``min``/``max``) only where reading them costs
no wait for an accelerator (:func:`seqviz.config.value_checks`). Private to the package: the
models call these, chapters never do.
"""

from __future__ import annotations

import torch

from ..config import check_device, value_checks


def check_positive_int(name: str, value, what: str = "") -> int:
    """``value`` if it is an int >= 1 (a bool is not), else ``ValueError`` naming ``name`` and what came."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive int{f' ({what})' if what else ''}, got {value!r}")
    return value


def check_ids(ids, vocab_size: int, name: str, weight: torch.Tensor | None = None, *, label: str = "ids",
              max_len: int | None = None) -> None:
    """Token ids (B, T) of an integer dtype, non-empty, at most ``max_len`` positions, on ``weight``'s device,
    in ``0..vocab_size-1``. ``name`` is the model's, ``label`` the argument's (``src``, ``input_ids`` ...)."""
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2 or ids.dtype not in (torch.int64, torch.int32):
        got = f"{tuple(ids.shape)} {ids.dtype}" if isinstance(ids, torch.Tensor) else type(ids).__name__
        raise ValueError(f"{name} expects {label}: integer token ids of shape (batch, time), got {got}")
    if ids.shape[0] == 0 or ids.shape[1] == 0:
        raise ValueError(f"{name} got an empty source: {label} has shape {tuple(ids.shape)} (expected at least "
                         "one sequence of at least one token)")
    if max_len is not None and ids.shape[1] > max_len:
        raise ValueError(f"{label} has {ids.shape[1]} positions; {name} handles 1..{max_len} (max_len)")
    if weight is not None:
        check_device(weight, name, **{label: ids})
    if value_checks(ids) and (int(ids.min()) < 0 or int(ids.max()) >= vocab_size):
        what = label if label.endswith("ids") else f"{label} ids"
        raise ValueError(f"{name} expects {what} in 0..{vocab_size - 1}, got {int(ids.min())}..{int(ids.max())}")


def check_lengths(lengths, ids: torch.Tensor, name: str) -> torch.Tensor:
    """The lengths (B,) of ``ids``'s rows, each in 1..T, moved to the ids' device; all T when ``lengths`` is None.
    They may come on the CPU (as ``pack_padded_sequence`` takes them)."""
    B, T = ids.shape
    if lengths is None:
        return torch.full((B,), T, dtype=torch.long, device=ids.device)
    if not isinstance(lengths, torch.Tensor) or lengths.shape != (B,) or (value_checks(lengths) and (
            int(lengths.min()) < 1 or int(lengths.max()) > T)):
        shape = tuple(lengths.shape) if isinstance(lengths, torch.Tensor) else type(lengths).__name__
        values = lengths.tolist()[:8] if isinstance(lengths, torch.Tensor) and value_checks(lengths) else "unread"
        raise ValueError(f"{name} expects lengths (B,) = ({B},) in 1..{T}; got shape {shape}, values {values} "
                         "(an empty sequence has length 0)")
    if lengths.device.type != "cpu":
        check_device(ids, name, lengths=lengths)
    return lengths.to(ids.device)
