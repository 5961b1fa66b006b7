"""Write ``seqviz/data/real/book_prose.txt``: prose of this book's own chapters 1-4, a text no model released
before 2026 can have read (chapter 9b scores a pretrained model on it).

The markdown cells of the chapters, in order, with what is not prose left out: glued numbers (``{glue:text}``
roles, whose values depend on a run), MyST directives and their fences (exercises, solutions), display maths,
tables and HTML. Run ``python scripts/make_prose.py`` after rewriting those chapters; ``--check`` only reports
(exit 1 when the file would change).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ("01_why_order_matters", "02_sticky_note", "03_vanishing_gradients", "04_gates")
OUT = ROOT / "seqviz" / "data" / "real" / "book_prose.txt"
LIMIT = 40_000  # characters: enough for several windows of 1,024 tokens


def prose(markdown: str) -> str:
    markdown = re.sub(r"\$\$.*?\$\$", "", markdown, flags=re.DOTALL)            # display maths
    markdown = re.sub(r"```.*?```", "", markdown, flags=re.DOTALL)              # directives and code fences
    markdown = re.sub(r"\{glue:[a-z]+\}`[^`]*`", "", markdown)                  # numbers of one run
    markdown = re.sub(r"\{[a-z]+\}`([^`]*)`", r"\1", markdown)                  # other roles: keep their text
    lines = [line for line in markdown.splitlines()
             if not line.lstrip().startswith(("|", "<", ":", "#"))]             # tables, HTML, options, headings
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def text() -> str:
    parts = []
    for name in CHAPTERS:
        notebook = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
        parts += [prose("".join(c["source"])) for c in notebook["cells"] if c["cell_type"] == "markdown"]
    joined = "\n\n".join(p for p in parts if p)
    return joined[:joined.rfind("\n\n", 0, LIMIT)] + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="report whether the file is up to date")
    args = parser.parse_args(argv)
    new = text()
    if args.check:
        same = OUT.exists() and OUT.read_text() == new
        print("up to date" if same else f"{OUT.relative_to(ROOT)} differs from the chapters' prose")
        return 0 if same else 1
    OUT.write_text(new)
    print(f"wrote {OUT.relative_to(ROOT)}: {len(new):,} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
