"""Exercises are called by their chapter's number: label ``chNN-exK`` is "Exercise N.K" (``ch04b-ex2``: "Exercise
4b.2"), in the text, the built book and the student edition.

The rule is ``seqviz.book.exercise_number``; the book's Sphinx extension (``book/_ext/seqviz_book.py``) applies it
to sphinx-exercise's numbers. The test builds a small book of two chapters with sphinx-exercise and the
extension, and reads the numbers off the rendered pages: the exercise's title, its solution's title, a
cross-reference to it, and the chapter text's own "Exercise N.K" references, which must name an exercise that exists.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from seqviz.book import exercise_number, exercise_title

ROOT = Path(__file__).resolve().parents[1]

CONF = f"""
import sys
sys.path.insert(0, {str(ROOT / "book" / "_ext")!r})
extensions = ["sphinx_exercise", "seqviz_book"]
exclude_patterns = ["_build"]
"""
INDEX = """
Book
====

.. toctree::
   :numbered:

   ch04b
   ch08
"""
CH04B = """
Chapter 4b
==========

.. exercise:: A first one
   :label: ch04b-ex1

   Do this.

.. exercise:: Counting
   :label: ch04b-ex2

   Count.

.. solution-start:: ch04b-ex2
   :class: dropdown

Count to three.

.. solution-end::
"""
CH08 = """
Chapter 8
=========

See :numref:`ch08-ex2` and :ref:`ch04b-ex2`.

.. exercise:: Attention by hand
   :label: ch08-ex1

   Write it.

.. exercise:: A sliding window
   :label: ch08-ex2

   Write the mask.

.. solution:: ch08-ex2
   :label: ch08-ex2-solution

   The mask.
"""


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    src = tmp_path_factory.mktemp("book")
    for name, text in (("conf.py", CONF), ("index.rst", INDEX), ("ch04b.rst", CH04B), ("ch08.rst", CH08)):
        (src / name).write_text(text, encoding="utf-8")
    out = src / "_build"
    run = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", str(src), str(out)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return {name: _text((out / f"{name}.html").read_text(encoding="utf-8")) for name in ("ch04b", "ch08")}


def test_the_rule():
    assert exercise_number("ch08-ex2") == "8.2" and exercise_number("ch04b-ex2") == "4b.2"
    assert exercise_number("ch09b-ex1") == "9b.1" and exercise_title("ch10.ex3") == "Exercise 10.3"
    assert exercise_number("ch03.ex2b") == "3.2b"
    with pytest.raises(ValueError, match="looks like 'ch08-ex2'"):
        exercise_number("exercise 2")


def test_a_built_page_numbers_exercises_and_solutions_by_chapter(built):
    ch04b, ch08 = built["ch04b"], built["ch08"]
    assert "Exercise 4b.1 (A first one)" in ch04b and "Exercise 4b.2 (Counting)" in ch04b
    assert "Solution to Exercise 4b.2 (Counting)" in ch04b
    assert "Exercise 8.1 (Attention by hand)" in ch08 and "Exercise 8.2 (A sliding window)" in ch08
    assert "Solution to Exercise 8.2 (A sliding window)" in ch08
    assert "See Exercise 8.2 and Exercise 4b.2" in ch08  # references read as the titles do
    # sphinx-exercise alone counts through the book (the fourth exercise would be "Exercise 4")
    assert not re.search(r"Exercise [1-4] \(", ch04b + ch08)


def test_every_exercise_the_chapters_mention_exists():
    """A chapter's "Exercise 8.2" names an exercise labelled ch08-ex2 somewhere in the book."""
    labels, mentions = set(), []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        labels |= {exercise_number(m) for m in re.findall(r":label: (ch\d+[a-z]?-ex\d+)", text)}
        mentions += [(path.name, m) for m in re.findall(r"[Ee]xercises? (\d+[a-z]?\.\d+)", text)]
    unknown = [(page, number) for page, number in mentions if number not in labels]
    assert not unknown, f"the text names exercises that do not exist: {unknown}"


# chapters that still say "Exercise 1" where they mean their own exercise 1 (issue 25): their editorial pass
# (chapters 7 and 10, still to come) writes "Exercise 7.1" and removes the entry
BARE_REFERENCES_PENDING: set[str] = set()


def _chapters():
    return sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=[pytest.mark.xfail(
    reason="this chapter's editorial pass is still to come (issue 25)", strict=False)]
    if p.stem in BARE_REFERENCES_PENDING else []) for p in _chapters()])
def test_the_text_names_exercises_by_their_number(path):
    """"Exercise 2" in chapter 8's prose is ambiguous next to the rendered "Exercise 8.2": the text says 8.2."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    text = re.sub(r"```\{exercise\}[^\n]*", "", text)
    bare = re.findall(r"\b[Ee]xercises? \d+\b(?![.\d])", text)
    assert not bare, f"{path.name} names exercises without their chapter: {bare}"
