"""Loss by position in the context, for any causal language model (Kaplan et al., 2020, Fig. 7), and loss per
character, so that models with different tokens can be compared.

- :func:`text_windows`: ``count`` windows of ``length + 1`` ids, evenly spaced over a long sequence;
- :func:`token_losses`: the loss (nats) of every predicted token of every window, (M, length): the model reads
  each window once and predicts tokens 1 .. length from the tokens before them, inside the window only;
- :func:`loss_by_position`: the mean over windows at each position, with its standard error;
- :func:`binned_losses`: those means over position ranges doubling in length (1, 2-3, 4-7, ...), as Kaplan et
  al. plot them on a log axis;
- :func:`loss_per_character`: nats per token turned into nats (and bits) per character, given how many
  characters the predicted tokens cover;
- :func:`character_bins`: loss per character over ranges of *characters* of context that double, so that a
  character model and a subword model share one axis (for a character model, :func:`binned_losses` again);
- :func:`character_curve`: the loss per character at each position of the window, against the characters of
  context read before it (averaged over windows);
- :func:`bins_table`: several models' ranges side by side, one row per range, for ``markdown_table``;
- :func:`token_characters`: how many characters each token of a window spells, from a ``transformers``
  tokenizer's offsets.

A model is anything with ``model(ids (B, T)) -> logits (B, T, V)``: a ``seqviz`` language model (``GRULM``,
``TransformerLM``, ``LlamaDecoder``, a long-run checkpoint) or a ``transformers`` model (whose output carries
``.logits``). Runs where the model's parameters are; returns CPU tensors. Used by chapter 9b.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ..config import model_device, progress as progress_bar

__all__ = ["binned_losses", "bins_table", "character_bins", "character_curve", "loss_by_position", "loss_per_character", "text_windows",
           "token_characters", "token_losses"]


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


def _doubling_ranges(first: int, last: int) -> list[tuple[int, int]]:
    """``(start, end)`` ranges ``first .. 2 first - 1``, ... up to ``last``, the final one taking the rest when the
    next would not fit whole (the rule of :func:`binned_losses`)."""
    ranges, start = [], first
    while start <= last:
        end = 2 * start if 4 * start - 1 <= last else last + 1
        ranges.append((start, end - 1))
        start = end
    return ranges


def _ranges_after(end: int, last: int) -> list[tuple[int, int]]:
    """Ranges that go on from ``end``: each ends at twice the end of the one before (``end + 1 .. 2 end``, ...) up
    to ``last``, the final one taking the rest when the next would not fit whole (the rule of
    :func:`binned_losses`)."""
    ranges, start = [], end + 1
    while start <= last:
        stop = 2 * end if 4 * end <= last else last
        ranges.append((start, stop))
        start, end = stop + 1, stop
    return ranges


def character_bins(losses: torch.Tensor, chars: torch.Tensor, first: int = 1, ranges=None,
                   continue_doubling: bool = False) -> list[dict]:
    """Loss per character against characters of context: rows ``{"start", "end", "mean", "se", "windows",
    "tokens", "values"}`` (``tokens``: how many predicted tokens of all the windows have their context in the
    range, so that a reader can see which means rest on few tokens; ``values``: {window index: that window's loss
    per character in the range}, for paired comparisons of two ranges).

    ``losses`` (M, T): nats of tokens 1 .. T of each window (:func:`token_losses`); ``chars`` (M, T + 1): how many
    characters each token of the window spells (all ones for a character model). The context of predicted token
    ``t`` is the characters of tokens 0 .. t - 1 of its window. Ranges of that context double from ``first``
    (the last one runs to the shortest window's longest context); in each, a window's loss per character is the
    sum of the losses of its tokens there over the characters they spell; ``mean`` and ``se`` are over the
    ``windows`` that have a token in the range. With one character per token this is :func:`binned_losses`.
    ``ranges``: ``[(start, end), ...]`` (both ends included) instead of the doubling ones, to read two models
    over exactly the same context. ``continue_doubling``: after the last of ``ranges``, go on with ranges that
    double (each ending at twice the end of the one before) up to the shortest window's longest context, the
    final one taking the rest: so a model that reads further than another (a subword model beside a character
    model) is read over the other's ranges and then over its own longer context, and no range reaches past the
    context every window holds."""
    if not isinstance(losses, torch.Tensor) or losses.dim() != 2 or losses.numel() == 0:
        raise ValueError(f"losses must be (M, T) (token_losses), got {getattr(losses, 'shape', type(losses))}")
    M, T = losses.shape
    if not isinstance(chars, torch.Tensor) or tuple(chars.shape) != (M, T + 1):
        raise ValueError(f"chars must be ({M}, {T + 1}): the characters of every token of each window, got "
                         f"{getattr(chars, 'shape', type(chars).__name__)}")
    if bool((chars < 1).any()):
        raise ValueError("every token spells at least one character: chars must be >= 1")
    chars = chars.long()
    context = chars.cumsum(1)[:, :-1]  # (M, T): characters read before each predicted token
    spelled = chars[:, 1:].double()  # (M, T): characters each predicted token spells
    last = int(context[:, -1].min())
    if not isinstance(first, int) or isinstance(first, bool) or not 1 <= first <= last:
        raise ValueError(f"first must be an int in 1..{last}, got {first!r}")
    if ranges is not None:
        ranges = [tuple(r) for r in ranges]
        if not ranges or not all(len(r) == 2 and all(isinstance(v, int) for v in r) and 1 <= r[0] <= r[1]
                                 for r in ranges):
            raise ValueError(f"ranges must be a non-empty list of (start, end) ints, 1 <= start <= end, got {ranges}")
    if not isinstance(continue_doubling, bool):
        raise ValueError(f"continue_doubling must be True or False, got {continue_doubling!r}")
    if continue_doubling:
        if ranges is None:
            raise ValueError("continue_doubling goes on from the last of ranges: give ranges as well")
        ranges = [(start, min(end, last)) for start, end in ranges if start <= last]  # none past the context
        ranges = (ranges + _ranges_after(max(end for _, end in ranges), last) if ranges
                  else _doubling_ranges(first, last))  # every range begins past this model's context
    rows = []
    for start, end in ranges or _doubling_ranges(first, last):
        inside = (context >= start) & (context <= end)  # (M, T)
        have = inside.any(1)  # windows with a token whose context lies in the range
        if not bool(have.any()):
            continue
        nats = (losses.double() * inside).sum(1)[have]
        per_window = nats / (spelled * inside).sum(1)[have]  # (windows,) nats per character
        se = float(per_window.std() / math.sqrt(len(per_window))) if len(per_window) > 1 else 0.0
        rows.append({"start": start, "end": end, "mean": float(per_window.mean()), "se": se,
                     "windows": int(have.sum()), "tokens": int(inside.sum()),
                     "values": {int(m): float(v) for m, v in zip(have.nonzero().flatten(), per_window)}})
    return rows


def character_curve(losses: torch.Tensor, chars: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(x (T,), mean (T,), se (T,))``: at each position of the window, the mean characters of context before
    the predicted token, the loss per character there (the windows' losses summed over the characters their
    tokens spell) and the standard error over windows. With one character per token: ``1 .. T`` and
    :func:`loss_by_position`."""
    if not isinstance(losses, torch.Tensor) or losses.dim() != 2 or losses.numel() == 0:
        raise ValueError(f"losses must be (M, T) (token_losses), got {getattr(losses, 'shape', type(losses))}")
    M, T = losses.shape
    if not isinstance(chars, torch.Tensor) or tuple(chars.shape) != (M, T + 1) or bool((chars < 1).any()):
        raise ValueError(f"chars must be ({M}, {T + 1}) counts >= 1 (the characters of every token of each "
                         f"window), got {getattr(chars, 'shape', type(chars).__name__)}")
    chars = chars.double()
    x = chars.cumsum(1)[:, :-1].mean(0)
    spelled = chars[:, 1:]
    mean = losses.double().sum(0) / spelled.sum(0)
    if M < 2:
        return x, mean, torch.zeros_like(mean)
    return x, mean, (losses.double() / spelled).std(0) / math.sqrt(M)


def bins_table(bins, tokens_of: str | None = None) -> list[dict]:
    """Rows ``{"range": "start–end", label: mean, ...}``, one per range start of any model's ``bins``
    (:func:`binned_losses` or :func:`character_bins` rows): a model without that range has no key (an empty cell
    in ``markdown_table``); a range's end is the smallest of the models' ends there (a model's last range runs to
    the end of its window). ``tokens_of``: the label of a model whose :func:`character_bins` rows count their
    tokens; each row then also holds ``"tokens"``, how many of that model's tokens the range holds (chapter 9b:
    SmolLM2's subword tokens, few in the shortest ranges)."""
    if not isinstance(bins, dict) or not bins or not all(isinstance(rows, list) and rows for rows in bins.values()):
        raise ValueError("bins must be a non-empty dict label -> rows (binned_losses or character_bins)")
    if tokens_of is not None and (tokens_of not in bins or not all("tokens" in r for r in bins[tokens_of])):
        raise ValueError(f"tokens_of must be a label of bins whose rows count tokens (character_bins), got "
                         f"{tokens_of!r}; the labels are {list(bins)}")
    table = []
    for start in sorted({r["start"] for rows in bins.values() for r in rows}):
        here = {label: r for label, rows in bins.items() for r in rows if r["start"] == start}
        end = min(r["end"] for r in here.values())
        table.append({"range": f"{start:,}–{end:,}", **{label: r["mean"] for label, r in here.items()}})
        if tokens_of in here:
            table[-1]["tokens"] = here[tokens_of]["tokens"]
    return table


def token_characters(tokenizer, text: str) -> torch.Tensor:
    """(N,) how many characters each token of ``tokenizer(text)["input_ids"]`` spells (a fast ``transformers``
    tokenizer): the distance from the end of the token before to the end of this one in the tokenizer's offsets,
    so that a run of tokens spells exactly the characters it covers (a byte-level token that holds part of a
    character counts one). ``text_windows(token_characters(tokenizer, text), length, count)`` lines up with
    ``text_windows(ids, length, count)``: the (M, T + 1) ``chars`` of :func:`character_bins`."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"text must be a non-empty string, got {type(text).__name__}")
    try:
        offsets = tokenizer(text, return_offsets_mapping=True)["offset_mapping"]
    except (NotImplementedError, TypeError, ValueError) as error:
        raise ValueError(f"the tokenizer gives no character offsets (a fast transformers tokenizer does): {error}") \
            from None
    ends = torch.tensor([end for _, end in offsets], dtype=torch.long)  # (N,)
    return (ends - torch.cat([ends.new_zeros(1), ends[:-1]])).clamp(min=1)
