"""Byte-pair encoding of words into subwords (Sennrich, Haddow and Birch, 2016), for the translators.

(:mod:`seqviz.data.bpe` is the other byte-pair encoder: of running text into ids, for chapter 9b's language
models.)

A word vocabulary has to stop somewhere, and every word past its end becomes ``<unk>``: in the book's
English-French pairs, one French word in twenty of the test sentences is seen fewer than twice in training.
Byte-pair encoding learns a vocabulary of *pieces* instead. It starts from single characters and, ``merges``
times, glues together the two adjacent symbols that occur together most often in the training words (each
word counted as often as it occurs), so frequent words end up as one piece and rare ones as a few:
``"chanteront" -> ["chant@@", "eront"]``. A piece that a word continues after carries ``@@`` (the convention of
``subword-nmt``), so :func:`join` puts the words back together exactly.

- :meth:`SubwordBPE.learn`: the merges, from word counts (ties broken by the pair itself, so the result never
  depends on the order the words came in);
- :meth:`SubwordBPE.encode` / :func:`join`: words -> pieces -> words;
- :meth:`SubwordBPE.to_dict` / :meth:`SubwordBPE.from_dict`: the merges as plain data (a checkpoint ships them).

Used by the long-run translators of ``make checkpoints`` (chapters 5-7).
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

CONTINUES = "@@"
END = "</w>"  # marks a word's last symbol while learning, so that "ent" at a word's end and inside it differ


def _word_symbols(word: str) -> list[str]:
    return [*word[:-1], word[-1] + END]


class SubwordBPE:
    """Merges learned by :meth:`learn`, applied by :meth:`encode`: ``BPE(merges)`` with ``merges`` a list of
    ``(left, right)`` symbol pairs, in the order they were learned (earlier merges apply first)."""

    def __init__(self, merges: Sequence[Sequence[str]]):
        checked = []
        for pair in merges:
            if (isinstance(pair, str) or len(pair) != 2 or not all(isinstance(s, str) and s for s in pair)):
                raise ValueError(f"each merge must be a pair of non-empty strings, got {pair!r}")
            checked.append((pair[0], pair[1]))
        self.merges = checked
        self.ranks = {pair: rank for rank, pair in enumerate(checked)}
        self._cache: dict[str, list[str]] = {}

    def __repr__(self) -> str:
        return f"BPE({len(self.merges)} merges)"

    @classmethod
    def learn(cls, words: Iterable[str] | Mapping[str, int], merges: int) -> "SubwordBPE":
        """Learn ``merges`` merges from ``words`` (an iterable of word tokens, or a mapping word -> count).
        Stops early when no pair occurs twice."""
        if isinstance(merges, bool) or not isinstance(merges, int) or merges < 0:
            raise ValueError(f"merges must be an int >= 0, got {merges!r}")
        counts = Counter(words) if not isinstance(words, Mapping) else Counter(dict(words))
        bad = [w for w in counts if not isinstance(w, str) or not w or any(c.isspace() for c in w)]
        if bad:
            raise ValueError(f"words must be non-empty strings without spaces, got {bad[0]!r}")
        vocab = [(_word_symbols(w), c) for w, c in sorted(counts.items())]  # (symbols, count) per distinct word
        pairs: Counter = Counter()
        where: dict[tuple[str, str], set[int]] = {}
        for i, (symbols, count) in enumerate(vocab):
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] += count
                where.setdefault(pair, set()).add(i)
        heap = [(-c, pair) for pair, c in pairs.items()]
        heapq.heapify(heap)
        learned = []
        while len(learned) < merges and heap:
            negative, pair = heapq.heappop(heap)
            if pairs.get(pair, 0) != -negative:  # a stale entry: the count changed since it was pushed
                continue
            if -negative < 2:
                break
            learned.append(pair)
            merged = pair[0] + pair[1]
            touched: set[tuple[str, str]] = set()
            for i in sorted(where.pop(pair, ())):
                symbols, count = vocab[i]
                for old in zip(symbols, symbols[1:]):  # take the word's pairs out ...
                    pairs[old] -= count
                    touched.add(old)
                new, j = [], 0
                while j < len(symbols):
                    if j + 1 < len(symbols) and (symbols[j], symbols[j + 1]) == pair:
                        new.append(merged)
                        j += 2
                    else:
                        new.append(symbols[j])
                        j += 1
                vocab[i] = (new, count)
                for fresh in zip(new, new[1:]):  # ... and put the merged word's pairs back
                    pairs[fresh] += count
                    where.setdefault(fresh, set()).add(i)
                    touched.add(fresh)
            pairs.pop(pair, None)
            for p in touched:
                if pairs.get(p, 0) > 0:
                    heapq.heappush(heap, (-pairs[p], p))
                else:
                    pairs.pop(p, None)
        return cls(learned)

    def split(self, word: str) -> list[str]:
        """One word as pieces, every piece but the last ending in ``@@``."""
        if not isinstance(word, str) or not word:
            raise ValueError(f"split expects a non-empty word, got {word!r}")
        if word in self._cache:
            return self._cache[word]
        symbols = _word_symbols(word)
        while len(symbols) > 1:
            ranked = [(self.ranks.get(p, len(self.ranks)), j) for j, p in enumerate(zip(symbols, symbols[1:]))]
            rank, _ = min(ranked)
            if rank == len(self.ranks):  # no pair left that a merge joins
                break
            pair, new, j = self.merges[rank], [], 0
            while j < len(symbols):
                if j + 1 < len(symbols) and (symbols[j], symbols[j + 1]) == pair:
                    new.append(pair[0] + pair[1])
                    j += 2
                else:
                    new.append(symbols[j])
                    j += 1
            symbols = new
        pieces = [s + CONTINUES for s in symbols[:-1]] + [symbols[-1][: -len(END)]]
        self._cache[word] = pieces
        return pieces

    def encode(self, words: Sequence[str]) -> list[str]:
        """Words (e.g. :func:`seqviz.data.real.tokenize`'s) -> pieces."""
        if isinstance(words, str):
            raise ValueError("encode expects a list of words, not one string (split the sentence first)")
        return [piece for word in words for piece in self.split(word)]

    def to_dict(self) -> dict:
        return {"merges": [list(pair) for pair in self.merges]}

    @classmethod
    def from_dict(cls, data: Mapping) -> "SubwordBPE":
        if not isinstance(data, Mapping) or "merges" not in data:
            raise ValueError("a BPE is stored as {'merges': [[left, right], ...]}")
        return cls(data["merges"])


def join(pieces: Sequence[str]) -> list[str]:
    """Pieces -> words: a piece ending in ``@@`` is glued to the next one (a dangling one at the end stays
    a word of its own, without the marker)."""
    words, current = [], ""
    for piece in pieces:
        if piece.endswith(CONTINUES):
            current += piece[: -len(CONTINUES)]
        else:
            words.append(current + piece)
            current = ""
    if current:
        words.append(current)
    return words
