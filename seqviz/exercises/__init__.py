"""Exercises of every chapter, checked by ``check("ch02.ex1", answer)``.

Each chapter's checkers live in their own module (``ch01``, ``ch02`` ..., ``ch04b``; every ``chNN*.py`` here is
imported, so a new chapter's module registers itself); they compare with shipped expected values
(``expected/<chapter>.json``). The reference answers, hidden tests and grading are the instructor's
(``instructor/`` in the book's repository, copied into the private course folder by ``make student``), not part
of this package.
"""

import importlib
import pkgutil

from .registry import EXERCISES, check, normalise_id, run_checker

CHAPTERS = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("ch")))
for _chapter in CHAPTERS:
    importlib.import_module(f"{__name__}.{_chapter}")  # registration

__all__ = ["CHAPTERS", "EXERCISES", "check", "normalise_id", "run_checker"]
