"""Byte-pair encoding from scratch (Sennrich et al., 2016), on bytes as GPT-2 does it (Radford et al., 2019).

A text is first cut into pieces by :data:`SPLIT` (a word with the space before it, a number, a run of
punctuation, white space), so that no token ever spans two words. Each piece starts as its UTF-8 bytes (256
base tokens: any text can be written, nothing is unknown). Training repeats one rule: count every pair of
adjacent tokens inside the pieces (each piece weighted by how often it occurs), and merge the most frequent
pair into a new token. ``num_merges`` merges give a vocabulary of ``256 + num_merges``. Encoding applies the
learned merges to a new piece in the order they were learned (lowest rank first). Ties between pairs of equal
count go to the pair of smaller ids, so training is deterministic.

:func:`learn_bpe` keeps the pair counts up to date as merges happen (only the pieces that hold the merged pair
are recounted), so a few thousand merges on a novel take seconds; the tests check it against the plain
recount-everything loop. Used by chapter 9b.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

__all__ = ["BPE", "SPLIT", "learn_bpe", "pieces"]

SPLIT = re.compile(r"'(?:s|t|re|ve|m|ll|d)| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+")


def pieces(text: str) -> list[str]:
    """``text`` cut by :data:`SPLIT`; the pieces join back into the text exactly."""
    if not isinstance(text, str):
        raise ValueError(f"BPE works on a string, got {type(text).__name__}")
    return SPLIT.findall(text)


@dataclass
class BPE:
    """Learned merges: ``merges[i]`` = the pair of token ids that token ``256 + i`` joins. ``vocab[i]`` is the bytes
    token ``i`` stands for."""

    merges: list[tuple[int, int]]
    vocab: list[bytes] = field(init=False, repr=False)
    _ranks: dict = field(init=False, repr=False)
    _cache: dict = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self):
        self.vocab = [bytes([b]) for b in range(256)]
        self._ranks = {}
        for rank, (a, b) in enumerate(self.merges):
            if not (0 <= a < len(self.vocab) and 0 <= b < len(self.vocab)):
                raise ValueError(f"merge {rank} joins ids {a} and {b}, but only ids below {len(self.vocab)} exist yet")
            self._ranks[(a, b)] = rank
            self.vocab.append(self.vocab[a] + self.vocab[b])

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def _encode_piece(self, piece: str) -> list[int]:
        if piece in self._cache:
            return self._cache[piece]
        ids = list(piece.encode("utf-8"))
        while len(ids) > 1:
            ranked = [(self._ranks.get(pair, len(self._ranks)), i) for i, pair in enumerate(zip(ids, ids[1:]))]
            rank, i = min(ranked)
            if rank == len(self._ranks):
                break  # no learned merge applies any more
            pair, new = (ids[i], ids[i + 1]), 256 + rank
            out, j = [], 0
            while j < len(ids):  # merge every occurrence of the pair, left to right
                if j + 1 < len(ids) and (ids[j], ids[j + 1]) == pair:
                    out.append(new)
                    j += 2
                else:
                    out.append(ids[j])
                    j += 1
            ids = out
        self._cache[piece] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text``."""
        return [i for piece in pieces(text) for i in self._encode_piece(piece)]

    def decode(self, ids) -> str:
        """The text of ``ids`` (bytes that are not whole UTF-8 characters become U+FFFD)."""
        try:
            return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")
        except (IndexError, TypeError):
            raise ValueError(f"ids must be token ids below {self.vocab_size}") from None

    def tokens(self, text: str) -> list[str]:
        """``text`` split into its tokens, each shown as text."""
        return [self.vocab[i].decode("utf-8", errors="replace") for i in self.encode(text)]


def learn_bpe(text: str, num_merges: int) -> BPE:
    """Learn ``num_merges`` merges on ``text`` (fewer if every piece is one token before that)."""
    if not isinstance(num_merges, int) or isinstance(num_merges, bool) or num_merges < 0:
        raise ValueError(f"num_merges must be an int >= 0, got {num_merges!r}")
    counts = Counter(pieces(text))
    if not counts:
        raise ValueError("learn_bpe needs a non-empty text")
    words = [list(piece.encode("utf-8")) for piece in counts]
    freq = list(counts.values())
    pair_count: Counter = Counter()
    where: dict = defaultdict(set)  # pair -> indices of the words that contain it
    for w, ids in enumerate(words):
        for pair in zip(ids, ids[1:]):
            pair_count[pair] += freq[w]
            where[pair].add(w)
    heap = [(-c, pair) for pair, c in pair_count.items()]
    heapq.heapify(heap)
    merges: list[tuple[int, int]] = []
    while len(merges) < num_merges and heap:
        negative, pair = heapq.heappop(heap)
        if pair_count.get(pair, 0) != -negative or -negative <= 0:
            continue  # a stale entry: the count changed since it was pushed
        new = 256 + len(merges)
        merges.append(pair)
        touched = Counter()
        for w in sorted(where.pop(pair, ())):
            ids = words[w]
            for old in zip(ids, ids[1:]):  # remove this word's pairs, then count the merged word's
                pair_count[old] -= freq[w]
                touched[old] += 0
            out, j = [], 0
            while j < len(ids):
                if j + 1 < len(ids) and (ids[j], ids[j + 1]) == pair:
                    out.append(new)
                    j += 2
                else:
                    out.append(ids[j])
                    j += 1
            words[w] = out
            for fresh in zip(out, out[1:]):
                pair_count[fresh] += freq[w]
                where[fresh].add(w)
                touched[fresh] += 0
        pair_count.pop(pair, None)
        for changed in touched:
            if changed != pair and pair_count.get(changed, 0) > 0:
                heapq.heappush(heap, (-pair_count[changed], changed))
    return BPE(merges)
