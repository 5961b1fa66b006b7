"""Vocabularies and padding.

Used by every chapter. Special tokens come first in every vocabulary, so their ids
are the same everywhere: ``<pad>`` = 0, ``<unk>`` = 1, ``<bos>`` = 2, ``<eos>`` = 3.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import torch

PAD, UNK, BOS, EOS = "<pad>", "<unk>", "<bos>", "<eos>"
SPECIALS = (PAD, UNK, BOS, EOS)


class Vocab:
    """A two-way map between tokens and integer ids.

    ``unknown="error"`` (the default) makes an unseen token a ``ValueError`` that names
    it; ``unknown="unk"`` maps it to ``<unk>`` instead.
    """

    def __init__(self, tokens: Iterable[str], specials: Sequence[str] = SPECIALS, unknown: str = "error"):
        if unknown not in ("error", "unk"):
            raise ValueError(f"unknown must be 'error' or 'unk', got {unknown!r}")
        if unknown == "unk" and UNK not in specials:
            raise ValueError(f"unknown='unk' needs {UNK!r} among the specials, got {tuple(specials)}")
        self.unknown = unknown
        self.itos: list[str] = []
        self.stoi: dict[str, int] = {}
        for token in [*specials, *tokens]:
            if not isinstance(token, str):
                raise ValueError(f"tokens must be strings, got {token!r} ({type(token).__name__})")
            if token not in self.stoi:
                self.stoi[token] = len(self.itos)
                self.itos.append(token)
        self.specials = tuple(specials)

    @classmethod
    def build(cls, corpus: Iterable[Sequence[str]], min_count: int = 1, **kwargs) -> "Vocab":
        """Vocabulary of every token seen at least ``min_count`` times, most frequent first."""
        counts = Counter(token for sequence in corpus for token in sequence)
        tokens = sorted((t for t, c in counts.items() if c >= min_count), key=lambda t: (-counts[t], t))
        return cls(tokens, **kwargs)

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    def __repr__(self) -> str:
        preview = ", ".join(self.itos[:8])
        return f"Vocab(size={len(self)}, [{preview}{', ...' if len(self) > 8 else ''}])"

    @property
    def pad_id(self) -> int:
        return self.stoi[PAD]

    def id(self, token: str) -> int:
        if token in self.stoi:
            return self.stoi[token]
        if self.unknown == "unk":
            return self.stoi[UNK]
        close = [t for t in self.itos if t.lower() == token.lower()][:3]
        hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
        raise ValueError(f"unknown token {token!r}: not in the vocabulary of {len(self)} tokens{hint}")

    def encode(self, tokens: Sequence[str]) -> list[int]:
        return [self.id(t) for t in tokens]

    def decode(self, ids: Iterable[int], skip_specials: bool = True) -> list[str]:
        out = []
        for i in ids:
            i = int(i)
            if not 0 <= i < len(self):
                raise ValueError(f"id {i} is outside the vocabulary (expected 0..{len(self) - 1})")
            if skip_specials and self.itos[i] in self.specials:
                continue
            out.append(self.itos[i])
        return out


def pad_batch(sequences: Sequence[Sequence[int]], pad_id: int = 0, max_len: int | None = None):
    """Right-pad id sequences into a ``(B, T)`` LongTensor; also return lengths ``(B,)``.

    Sequences longer than ``max_len`` are cut. An empty list, or an empty sequence,
    is a ``ValueError``: a model cannot read nothing.
    """
    if len(sequences) == 0:
        raise ValueError("pad_batch got no sequences (expected at least one)")
    lengths = [len(s) for s in sequences]
    if min(lengths) == 0:
        raise ValueError(f"sequence {lengths.index(0)} is empty (expected at least one token)")
    T = max(lengths) if max_len is None else max_len
    batch = torch.full((len(sequences), T), pad_id, dtype=torch.long)  # (B, T)
    for row, seq in enumerate(sequences):
        seq = list(seq)[:T]
        batch[row, : len(seq)] = torch.as_tensor(seq, dtype=torch.long)
    return batch, torch.as_tensor([min(n, T) for n in lengths], dtype=torch.long)

