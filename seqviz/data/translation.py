"""A toy translation task whose source length is a dial (chapters 5-7).

The "source language" spells digits out as words, the "target language" writes them as
digits: ``seven two nine four`` -> ``7 2 9 4``. Every source word maps to one target
token, so the task is trivial for a reader who can look back at the source, and hard
for one that must first squeeze the whole source into a single vector: the longer the
source, the more a fixed-size summary has to hold (Cho et al., 2014; Bahdanau et al.,
2015). ``order="reverse"`` asks for the digits backwards, a reordering that makes the
alignment an anti-diagonal.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

from .tokenizers import BOS, EOS, Vocab, pad_batch

DIGIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
DIGITS = tuple(str(d) for d in range(10))
ORDERS = ("same", "reverse")


@dataclass
class Pair:
    """One source sentence and its translation (lists of tokens, without bos/eos)."""

    source: list[str]
    target: list[str]


def translate_digits(source: list[str], order: str = "same") -> list[str]:
    """The gold translation of a list of digit words."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    if len(source) == 0:
        raise ValueError("the source is empty (expected at least one digit word, like 'seven')")
    unknown = [w for w in source if w not in DIGIT_WORDS]
    if unknown:
        raise ValueError(f"unknown source word {unknown[0]!r}: expected digit words {', '.join(DIGIT_WORDS)}")
    digits = [DIGITS[DIGIT_WORDS.index(w)] for w in source]
    return digits[::-1] if order == "reverse" else digits


def translation_task(n: int, min_len: int = 1, max_len: int = 10, order: str = "same", seed: int = 0) -> list[Pair]:
    """``n`` random pairs; source lengths uniform in ``min_len..max_len`` (inclusive)."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive int (number of pairs), got {n!r}")
    if not isinstance(min_len, int) or not isinstance(max_len, int) or not 1 <= min_len <= max_len:
        raise ValueError(f"need 1 <= min_len <= max_len, got min_len={min_len!r}, max_len={max_len!r}")
    rng = random.Random(f"{seed}-{min_len}-{max_len}-{order}")
    pairs = []
    for _ in range(n):
        source = [rng.choice(DIGIT_WORDS) for _ in range(rng.randint(min_len, max_len))]
        pairs.append(Pair(source, translate_digits(source, order)))
    return pairs


def translation_vocabs() -> tuple[Vocab, Vocab]:
    """(source vocabulary, target vocabulary); both start with <pad>, <unk>, <bos>, <eos> and reject unknown words."""
    return Vocab(DIGIT_WORDS), Vocab(DIGITS)


def encode_source(text, vocab: Vocab) -> list[int]:
    """A source sentence (a string or a list of words) as ids; empty or unknown words are a ``ValueError``."""
    words = text.lower().split() if isinstance(text, str) else list(text)
    if not words:
        raise ValueError(f"the source is empty (expected at least one word, like 'seven two'), got {text!r}")
    return vocab.encode(words)


def pairs_to_tensors(pairs: list[Pair], source_vocab: Vocab, target_vocab: Vocab):
    """``(src (N, S), src_lengths (N,), tgt_in (N, U), tgt_out (N, U))``, right-padded with <pad> = 0.

    ``tgt_in`` is bos followed by the target, ``tgt_out`` the target followed by eos: at
    step u the decoder reads ``tgt_in[:, u]`` and must predict ``tgt_out[:, u]``.
    """
    if not pairs:
        raise ValueError("pairs_to_tensors got no pairs")
    bos, eos = target_vocab.stoi[BOS], target_vocab.stoi[EOS]
    src, src_lengths = pad_batch([encode_source(p.source, source_vocab) for p in pairs], source_vocab.pad_id)
    targets = [target_vocab.encode(p.target) for p in pairs]
    tgt_in, _ = pad_batch([[bos, *t] for t in targets], target_vocab.pad_id)  # (N, U)
    tgt_out, _ = pad_batch([[*t, eos] for t in targets], target_vocab.pad_id)  # (N, U)
    return src, src_lengths, tgt_in, tgt_out


def trim_padding(batch, pad_id: int = 0) -> list:
    """A minibatch with the padding columns that every row has cut off: each 2-D integer tensor of ``batch``
    (``src``, ``tgt_in``, ``tgt_out`` of :func:`pairs_to_tensors`) loses its trailing columns that hold
    ``pad_id`` in every row; other tensors (``src_lengths``) pass unchanged. A ``collate`` for
    :func:`seqviz.train.fit`: a batch of short sentences then costs what short sentences cost."""
    if not isinstance(batch, (list, tuple)) or not all(isinstance(t, torch.Tensor) for t in batch):
        raise ValueError(f"batch must be a list of tensors, got {type(batch).__name__}")
    out = []
    for t in batch:
        if t.dim() == 2 and not t.dtype.is_floating_point and t.shape[1] > 0:
            used = (t != pad_id).any(0).nonzero()  # columns with at least one real token
            t = t[:, : int(used[-1]) + 1] if len(used) else t[:, :1]
        out.append(t)
    return out


def strip_specials(ids, vocab: Vocab) -> list[str]:
    """Decoder output ids -> tokens, stopping at the first eos and dropping bos and pads."""
    out = []
    for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids):
        token = vocab.itos[int(i)]
        if token == EOS:
            break
        if token not in vocab.specials:
            out.append(token)
    return out
