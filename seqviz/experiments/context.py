"""Loss by position in the context, for any causal language model (Kaplan et al., 2020, Fig. 7), and loss per
character, so that models with different tokens can be compared.

- :func:`text_windows`: ``count`` windows of ``length + 1`` ids, evenly spaced over a long sequence;
- :func:`token_losses`: the loss (nats) of every predicted token of every window, (M, length): the model reads
  each window once and predicts tokens 1 .. length from the tokens before them, inside the window only;
- :func:`loss_by_position`: the mean over windows at each position, with its standard error;
- :func:`binned_losses`: those means over position ranges doubling in length (1, 2-3, 4-7, ...), as Kaplan et
  al. plot them on a log axis;
- :func:`loss_per_character`: nats per token turned into nats (and bits) per character, given how many
  characters the predicted tokens cover.

A model is anything with ``model(ids (B, T)) -> logits (B, T, V)``: a ``seqviz`` language model (``GRULM``,
``TransformerLM``, ``LlamaDecoder``, a long-run checkpoint) or a ``transformers`` model (whose output carries
``.logits``). Runs where the model's parameters are; returns CPU tensors. Used by chapter 9b.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ..config import model_device, progress as progress_bar

__all__ = ["binned_losses", "loss_by_position", "loss_per_character", "text_windows", "token_losses"]


def text_windows(ids, length: int, count: int) -> torch.Tensor:
    """(count, length + 1) windows of the 1-D ``ids``, their starts evenly spaced from the first id to the last
    possible start (overlapping only if the text is too short for ``count`` separate windows)."""
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or ids.dtype not in (torch.int64, torch.int32):
        raise ValueError(f"ids must be a 1-D tensor of token ids, got {getattr(ids, 'shape', type(ids).__name__)}")
    for name, value in (("length", length), ("count", count)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    last = ids.numel() - (length + 1)
    if last < 0:
        raise ValueError(f"the text has {ids.numel():,} tokens; a window of {length:,} needs at least {length + 1:,}")
    starts = torch.linspace(0, last, count).round().long()  # (count,)
    return ids.long()[starts[:, None] + torch.arange(length + 1)]  # (count, length + 1)


def _logits(model, ids):
    out = model(ids)
    return out.logits if hasattr(out, "logits") else out  # transformers' output, or seqviz's tensor


def token_losses(model, windows: torch.Tensor, batch_size: int = 1, progress: bool = True) -> torch.Tensor:
    """(M, T) negative log-likelihoods in nats: entry (m, t) is the loss of token t + 1 of window m given tokens
    0 .. t of that window. ``windows``: (M, T + 1) ids (:func:`text_windows`)."""
    if not isinstance(windows, torch.Tensor) or windows.dim() != 2 or windows.shape[1] < 2:
        raise ValueError(f"windows must be (M, T + 1) token ids with T >= 1, got "
                         f"{getattr(windows, 'shape', type(windows).__name__)}")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    device = model_device(model)
    was_training = model.training
    model.eval()
    rows = []
    try:
        with torch.no_grad():
            for start in progress_bar(range(0, len(windows), batch_size), desc="loss by position",
                                      disable=not progress, leave=False):
                batch = windows[start:start + batch_size].to(device)
                logits = _logits(model, batch[:, :-1])  # (b, T, V)
                if logits.shape[:2] != batch[:, 1:].shape:
                    raise ValueError(f"the model returned logits {tuple(logits.shape)} for ids "
                                     f"{tuple(batch[:, :-1].shape)}; expected (B, T, V)")
                loss = F.cross_entropy(logits.float().transpose(1, 2), batch[:, 1:], reduction="none")  # (b, T)
                rows.append(loss.cpu())
    finally:
        model.train(was_training)
    return torch.cat(rows)


def loss_by_position(losses: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(mean (T,), standard error (T,))`` of (M, T) losses over the M windows (the error is 0 with one window)."""
    if not isinstance(losses, torch.Tensor) or losses.dim() != 2 or losses.numel() == 0:
        raise ValueError(f"losses must be (M, T) (token_losses), got {getattr(losses, 'shape', type(losses))}")
    mean = losses.double().mean(0)
    if losses.shape[0] < 2:
        return mean, torch.zeros_like(mean)
    return mean, losses.double().std(0) / math.sqrt(losses.shape[0])


def binned_losses(losses: torch.Tensor, first: int = 1) -> list[dict]:
    """Mean loss over position ranges that double: rows ``{"start", "end", "mean", "se"}`` (both ends included)
    for context lengths ``first .. 2 first - 1``, ``2 first .. 4 first - 1`` ..., the last range running to the
    window's end when the next one would not fit whole (so no range is a stub of a few positions). A position's
    context length is the number of tokens the model saw before predicting it (position index + 1); ``se`` is the
    standard error over windows of each window's mean in the range."""
    if not isinstance(losses, torch.Tensor) or losses.dim() != 2:
        raise ValueError(f"losses must be (M, T) (token_losses), got {getattr(losses, 'shape', type(losses))}")
    T = losses.shape[1]
    if not isinstance(first, int) or not 1 <= first <= T:
        raise ValueError(f"first must be an int in 1..{T}, got {first!r}")
    rows, start = [], first
    while start <= T:
        end = 2 * start if 4 * start - 1 <= T else T + 1  # the next range would not fit: this one takes the rest
        per_window = losses[:, start - 1:end - 1].double().mean(1)  # (M,): context lengths start .. end - 1
        se = float(per_window.std() / math.sqrt(len(per_window))) if len(per_window) > 1 else 0.0
        rows.append({"start": start, "end": end - 1, "mean": float(per_window.mean()), "se": se})
        start = end
    return rows


def loss_per_character(losses: torch.Tensor, characters: int) -> dict:
    """``{"nats_per_token", "nats_per_char", "bits_per_char", "chars_per_token", "tokens", "characters"}`` for the
    losses of a set of predicted tokens that together spell ``characters`` characters of text."""
    if not isinstance(losses, torch.Tensor) or losses.numel() == 0:
        raise ValueError("losses must be a non-empty tensor of token losses (token_losses)")
    if not isinstance(characters, int) or characters < 1:
        raise ValueError(f"characters must be a positive int (how many characters the tokens spell), got "
                         f"{characters!r}")
    total, tokens = float(losses.double().sum()), losses.numel()
    return {"nats_per_token": total / tokens, "nats_per_char": total / characters,
            "bits_per_char": total / characters / math.log(2), "chars_per_token": characters / tokens,
            "tokens": tokens, "characters": characters}
