"""Exercises of every chapter, checked by ``check("ch02.ex1", answer)``.

Each chapter's checkers and hidden tests live in their own module (``ch01``, ``ch02`` ..., ``ch04b``),
imported here so that they register themselves (``registry.EXERCISES``, ``hidden.HIDDEN``);
``grading`` grades a submitted answer with both.
"""

from . import ch01, ch02, ch03, ch04, ch04b, ch05, ch06, ch07, ch08, ch09, ch10  # noqa: F401  (registration)
from .registry import EXERCISES, check, normalise_id, run_checker

__all__ = ["EXERCISES", "check", "normalise_id", "run_checker"]
