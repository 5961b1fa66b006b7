"""A tagging task whose labels need the words to the right (chapter 5).

Each sentence holds one ambiguous word ("bat", "bank", "bass", "pitch") and one cue
word that decides its sense ("cave" makes the bat an animal, "cricket" a club). The
tag of the ambiguous word is its sense; every other word is tagged "O". The cue sits
``distance`` words to the left or to the right of the ambiguous word: a left-to-right
reader that must tag the word when it reaches it can only guess when the cue comes
later, a bidirectional reader cannot miss it (Schuster and Paliwal, 1997).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

from .tokenizers import Vocab, pad_batch

SENSES = {  # ambiguous word -> {sense: cue words}
    "bat": {"animal": ("cave", "wings", "flew"), "club": ("cricket", "swung", "ball")},
    "bank": {"river": ("water", "shore", "fishing"), "money": ("loan", "cash", "account")},
    "bass": {"fish": ("lake", "hook", "caught"), "music": ("guitar", "band", "concert")},
    "pitch": {"field": ("grass", "stadium", "referee"), "tone": ("singer", "note", "tune")},
}
FILLERS = ("the", "a", "old", "big", "near", "then", "we", "saw", "by", "with", "and", "very", "there", "in",
           "that", "my", "was", "quite", "again", "today")
OUTSIDE = "O"


@dataclass
class Tagged:
    """A sentence, one tag per token, and where its ambiguous word and cue sit."""

    tokens: list[str]
    tags: list[str]
    info: dict


def tagging_task(n: int, min_len: int = 6, max_len: int = 12, right_share: float = 0.5, max_distance: int = 4,
                 seed: int = 0) -> list[Tagged]:
    """``n`` sentences of ``min_len..max_len`` tokens; a share ``right_share`` has its cue to the right.

    ``info``: ``word_index`` (position of the ambiguous word), ``cue_index``, ``side``
    ("left" or "right") and ``distance`` (1..``max_distance`` tokens between them).
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive int (number of sentences), got {n!r}")
    if not 0.0 <= right_share <= 1.0:
        raise ValueError(f"right_share is a probability in [0, 1], got {right_share!r}")
    if not isinstance(max_distance, int) or max_distance < 1 or not max_distance + 1 <= min_len <= max_len:
        raise ValueError(f"need max_distance >= 1 and max_distance + 1 <= min_len <= max_len, got "
                         f"max_distance={max_distance!r}, min_len={min_len!r}, max_len={max_len!r}")
    rng = random.Random(f"{seed}-{min_len}-{max_len}-{right_share}-{max_distance}")
    out = []
    for _ in range(n):
        length = rng.randint(min_len, max_len)
        distance = rng.randint(1, max_distance)
        side = "right" if rng.random() < right_share else "left"
        word = rng.choice(sorted(SENSES))
        sense = rng.choice(sorted(SENSES[word]))
        cue = rng.choice(SENSES[word][sense])
        first = rng.randint(0, length - 1 - distance)  # the earlier of the two positions
        word_index, cue_index = (first, first + distance) if side == "right" else (first + distance, first)
        tokens = [rng.choice(FILLERS) for _ in range(length)]
        tags = [OUTSIDE] * length
        tokens[word_index], tags[word_index], tokens[cue_index] = word, sense, cue
        out.append(Tagged(tokens, tags, dict(word_index=word_index, cue_index=cue_index, side=side,
                                             distance=distance, word=word)))
    return out


def tagging_vocabs() -> tuple[Vocab, Vocab]:
    """(word vocabulary, tag vocabulary); tag id 0 is <pad>, ignored by the loss."""
    cues = [c for senses in SENSES.values() for words in senses.values() for c in words]
    tags = [OUTSIDE, *(s for senses in SENSES.values() for s in senses)]
    return Vocab([*FILLERS, *SENSES, *cues], unknown="unk"), Vocab(tags)


def tagged_to_tensors(examples: list[Tagged], vocab: Vocab, tag_vocab: Vocab):
    """``(ids (N, T), lengths (N,), tags (N, T))``, right-padded; padded tags are 0 (<pad>)."""
    if not examples:
        raise ValueError("tagged_to_tensors got no examples")
    ids, lengths = pad_batch([vocab.encode(e.tokens) for e in examples], vocab.pad_id)
    tags, _ = pad_batch([tag_vocab.encode(e.tags) for e in examples], tag_vocab.pad_id)
    return ids, lengths, tags


def word_positions(examples: list[Tagged], side: str | None = None) -> torch.Tensor:
    """A (N, T) bool mask of the ambiguous words (optionally only those whose cue is on ``side``)."""
    if side not in (None, "left", "right"):
        raise ValueError(f"side must be None, 'left' or 'right', got {side!r}")
    T = max(len(e.tokens) for e in examples)
    mask = torch.zeros(len(examples), T, dtype=torch.bool)
    for row, e in enumerate(examples):
        if side is None or e.info["side"] == side:
            mask[row, e.info["word_index"]] = True
    return mask
