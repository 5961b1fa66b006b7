"""Text as token ids for language models: characters or words, their vocabulary, and training windows.

- :func:`tokens_of`: a text's characters, or its words and punctuation marks (:func:`seqviz.data.real.tokenize`);
- :func:`text_vocab`, :func:`encode_text`: those tokens as ids; a vocabulary keeps the tokens seen ``min_count``
  times, the rest become ``<unk>``;
- :func:`windows`: ``(inputs, targets)`` windows of a 1-D id tensor, each target the next token of its input.

Used by chapter 4b (``seqviz.experiments.language``, which re-exports these names), chapter 10 and the long-run
language models of ``make checkpoints``.
"""

from __future__ import annotations

import torch

from .real import tokenize
from .tokenizers import UNK, Vocab

LEVELS = ("char", "word")


def check_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"level must be 'char' or 'word', got {level!r}")
    return level


def tokens_of(text: str, level: str) -> list[str]:
    """The text's tokens: its characters, or its words and punctuation marks (lower-cased)."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    return list(text) if check_level(level) == "char" else tokenize(text)


def text_vocab(text: str, level: str = "char", min_count: int = 1) -> Vocab:
    """A vocabulary of ``text``'s tokens seen at least ``min_count`` times, most frequent first; others map to
    ``<unk>`` (the only special token)."""
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be a positive int, got {min_count!r}")
    return Vocab.build([tokens_of(text, level)], min_count=min_count, specials=(UNK,), unknown="unk")


def encode_text(text: str, vocab: Vocab, level: str = "char") -> torch.Tensor:
    """The text as a 1-D LongTensor of ids."""
    if not isinstance(vocab, Vocab):
        raise ValueError(f"vocab must be a seqviz Vocab (text_vocab), got {type(vocab).__name__}")
    return torch.tensor(vocab.encode(tokens_of(text, level)), dtype=torch.long)


def check_token_ids(ids, name: str, seq_len: int) -> torch.Tensor:
    """``ids`` if it is a 1-D LongTensor with at least ``seq_len + 1`` tokens, else a ``ValueError``."""
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or ids.dtype != torch.long:
        raise ValueError(f"{name} must be a 1-D LongTensor of token ids, got {getattr(ids, 'shape', type(ids))}")
    if ids.numel() < seq_len + 1:
        raise ValueError(f"{name} has {ids.numel()} tokens; a window of {seq_len} needs at least {seq_len + 1}")
    return ids


def windows(ids: torch.Tensor, seq_len: int, stride: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """``(inputs (M, seq_len), targets (M, seq_len))``: windows of ``ids`` every ``stride`` tokens (default
    ``seq_len``: contiguous), each target the next token of its input."""
    if isinstance(seq_len, bool) or not isinstance(seq_len, int) or seq_len < 1:
        raise ValueError(f"seq_len must be a positive int, got {seq_len!r}")
    if stride is not None and (isinstance(stride, bool) or not isinstance(stride, int) or stride < 1):
        raise ValueError(f"stride must be a positive int or None, got {stride!r}")
    ids = check_token_ids(ids, "ids", seq_len)
    stride = stride or seq_len
    starts = torch.arange(0, ids.numel() - seq_len, stride)
    rows = ids[starts[:, None] + torch.arange(seq_len + 1)]  # (M, seq_len + 1)
    return rows[:, :-1], rows[:, 1:]
