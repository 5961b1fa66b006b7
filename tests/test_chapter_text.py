"""What a reader sees of a chapter reads like a book: no internal words, no cut-off code.

- "seed" in the reader's text means a random seed: the two source articles are named by their titles, never as
  "the seeds" or "seed articles";
- a code cell the reader sees (not tagged ``remove-cell``) has no line longer than the book's code column holds
  at 1280 px (77 characters of 14 px monospace in the theme's 652 px; longer lines scroll, their ends hidden),
  and 73 in a solution, whose dropdown is narrower;
- the cells that compose the prose (``sv.glue``, ``sv.book.say``) are hidden (``remove-cell``), so nothing of the
  machinery shows.

Chapters whose editorial pass (issue 25) is still to come are expected failures, named in ``PENDING``; a pass
removes its chapter from the list.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CODE_COLUMN, SOLUTION_COLUMN = 77, 73
PENDING: set[str] = set()  # every chapter has had its pass
SOURCES_AS_SEEDS = re.compile(r"\bseed articles?\b|\bseed 00\d|\bthe seeds'|\bthe seeds (?:say|says|claim|state|"
                              r"recommend|point|list|credit|expect|mention|insist|put|note|argue|give|make|"
                              r"suggest)", re.IGNORECASE)


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _visible_code(cells, tag=None):
    first_code = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")  # the Colab cell
    return [("".join(c["source"]), i) for i, c in enumerate(cells) if c["cell_type"] == "code" and i != first_code
            and "remove-cell" not in c.get("metadata", {}).get("tags", [])
            and (tag is None or tag in c.get("metadata", {}).get("tags", []))]


def _chapters():
    return [pytest.param(p, id=p.stem, marks=[pytest.mark.xfail(
        reason="this chapter's editorial pass (issue 25) is still to come", strict=False)]
        if p.stem in PENDING else []) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]


@pytest.mark.parametrize("path", _chapters())
def test_the_sources_are_named_by_title_not_as_seeds(path):
    text = "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown")
    found = sorted({m.group(0) for m in SOURCES_AS_SEEDS.finditer(text)})
    assert not found, f"{path.name}: the source articles are called seeds: {found}"


@pytest.mark.parametrize("path", _chapters())
def test_visible_code_fits_the_code_column(path):
    cells = _cells(path)
    long = [(i, len(line)) for text, i in _visible_code(cells) for line in text.split("\n")
            if len(line) > CODE_COLUMN]
    long += [(i, len(line)) for text, i in _visible_code(cells, "solution") for line in text.split("\n")
             if len(line) > SOLUTION_COLUMN]
    assert not long, (f"{path.name}: code lines longer than {CODE_COLUMN} characters ({SOLUTION_COLUMN} in a "
                      f"solution), as (cell, length): {long}")


@pytest.mark.parametrize("path", _chapters())
def test_the_cells_that_compose_prose_are_hidden(path):
    shown = [i for text, i in _visible_code(_cells(path)) if re.search(r"\bsv\.(?:glue|book\.say)\(", text)]
    assert not shown, f"{path.name}: visible cells that glue prose (tag them remove-cell): {shown}"


def test_the_checks_catch_what_they_look_for():
    assert SOURCES_AS_SEEDS.search("The seeds say different heads specialise")
    assert SOURCES_AS_SEEDS.search("as the seed articles put it")
    assert not SOURCES_AS_SEEDS.search("three seeds; a seed sets the order of the minibatches")
    assert not SOURCES_AS_SEEDS.search("means of 3 seeds")
    assert not SOURCES_AS_SEEDS.search("on average over the seeds (from 40% to 60%)")
    assert SOURCES_AS_SEEDS.search("The seeds' small-data claim holds") and SOURCES_AS_SEEDS.search("Seed article 002")
