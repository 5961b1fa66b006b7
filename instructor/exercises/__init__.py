"""The instructor's side of the exercises: reference answers, the wrong answers each hint is written for, the
hidden tests and the library functions an answer must not call. Not part of the installed ``seqviz``: a student's
code cannot call any of it. ``make student`` copies this folder into the private course folder (``course/``), and
grading imports it from there.

One module per chapter (``ch01`` ... ``ch10``, ``ch04b``), beside the package's checkers
(``seqviz/exercises/chNN.py``). Each registers, for every exercise:

- ``solution(key, reference, wrong={name: (factory, words)}, forbidden=(...))``: a factory for a correct answer;
  the wrong answers, each with words its feedback must contain (the hint that names that mistake); the dotted
  names of library functions the exercise re-implements (grading fails an answer that names or calls one;
  ``not_called=(...)``: that calls one, for a function its cell may use to compare);
- ``values(chapter, name=function, ...)``: the functions behind the names a checker asks
  :class:`seqviz.exercises.expected.Expected` for (``instructor/record_expected.py`` writes their values on the
  checkers' fixed cases into ``seqviz/exercises/expected/<chapter>.json``), and ``mistakes(chapter, name, ...)``:
  the typical mistakes computed from the same arguments, which the hints compare with;
- ``@hidden(key)``: ``test(answer, generator) -> (ok, message)``, run by the grader in its own process on fresh
  cases drawn from ``generator``.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Solution:
    key: str
    reference: Callable  # () -> a correct answer (a factory: it may build tensors or functions)
    wrong: dict[str, tuple[Callable, str]] = field(default_factory=dict)  # name -> (factory, words in the hint)
    forbidden: tuple[str, ...] = ()  # "torch.nn.utils.clip_grad_norm_": library functions the answer must not call
    hidden: Callable | None = None  # (answer, generator) -> (ok, message)
    # tripwires only: library functions the answer must not call, which its cell may still use (to compare)
    not_called: tuple[str, ...] = ()

    @property
    def tripwires(self) -> tuple[str, ...]:
        return self.forbidden + self.not_called


SOLUTIONS: dict[str, Solution] = {}
VALUES: dict[tuple[str, str], Callable] = {}
SIBLINGS: dict[tuple[str, str], list[str]] = {}


def solution(key: str, reference: Callable, wrong: dict | None = None, forbidden=(), not_called=()):
    if key in SOLUTIONS:
        raise ValueError(f"solution of {key} registered twice")
    SOLUTIONS[key] = Solution(key, reference, dict(wrong or {}), tuple(forbidden), not_called=tuple(not_called))


def hidden(key: str):
    def register(test):
        SOLUTIONS[key].hidden = test
        return test
    return register


def values(chapter: str, **functions):
    for name, function in functions.items():
        VALUES[(chapter, name)] = function


def mistakes(chapter: str, of: str, **functions):
    """Mistakes computed from the same arguments as the value ``of`` (recorded beside it on every case)."""
    values(chapter, **functions)
    SIBLINGS.setdefault((chapter, of), []).extend(functions)


class Source:
    """What :func:`seqviz.exercises.expected.use_source` needs: every expected value, computed live."""

    def value(self, chapter, name, args, kwargs):
        return VALUES[(chapter, name)](*copy.deepcopy(args), **copy.deepcopy(kwargs))

    def siblings(self, chapter, name):
        return SIBLINGS.get((chapter, name), [])


# every chapter module of this folder (ch01.py ... ch10.py, ch04b.py, and any chapter added later)
CHAPTERS = tuple(sorted(p.stem for p in Path(__file__).parent.glob("ch*.py")))
for _chapter in CHAPTERS:
    importlib.import_module(f"{__name__}.{_chapter}")
