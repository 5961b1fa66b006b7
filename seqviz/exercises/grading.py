"""Grading a submitted answer: the public check, then the hidden test (the exercises of chapters 1-10).

``make grade`` (``scripts/grade.py``, on nbgrader) restores after every check cell of a
submission a locked grading cell that calls :func:`grade_cell`. It runs the public checker
again and then the exercise's hidden test, which lives beside its checker in the chapter's
module (``ch01`` ... ``ch10``, registered in :data:`HIDDEN` by :func:`seqviz.exercises.hidden.hidden_test`):
other sizes and shapes (d_v != d_k, one-row batches, float64), edge cases (an empty target, a
window wider than the sequence), numpy scalars and the ``generator`` argument. The cases are
drawn from a fresh random seed at every grading run, so reading the tests does not let anyone
hard-code an answer. NaN and infinities are wrong everywhere
(:func:`seqviz.exercises.registry.as_number`). Used by ``scripts/make_student.py`` and
``scripts/grade.py`` for the exercises of every chapter.

Points: 2 per exercise, 1 per follow-up question (an id with a letter, ``ch02.ex2b``); an
exercise earns its points when every test passes, and nothing otherwise.
"""

from __future__ import annotations

import contextlib
import io
import secrets
import textwrap
import warnings

import torch

from .hidden import HIDDEN
from .registry import EXERCISES, Feedback, keep_random_state, run_checker


def points(key: str) -> int:
    """The most an exercise earns: 2, or 1 for a follow-up question (``ch02.ex2b``)."""
    return 1 if key[-1].isalpha() else 2


def grade(key: str, answer, seed: int | None = None) -> tuple[float, list[str]]:
    """(points earned, feedback lines) for one answer: the public checker, then the hidden test."""
    if key not in EXERCISES:
        raise ValueError(f"unknown exercise {key!r}; known: {', '.join(sorted(EXERCISES))}")
    seed = secrets.randbits(32) if seed is None else seed
    ok, message = run_checker(key, answer)
    lines = [f"check: {message}"]
    if ok and key in HIDDEN:
        ok, message = _run_hidden(key, answer, seed)
        lines.append(f"hidden tests (seed {seed}): {message}")
    return (float(points(key)) if ok else 0.0), lines


def grade_cell(key: str, answer) -> float:
    """What a grading cell runs: print the feedback (stdout only) and return the points, shown as the result.

    nbgrader reads the cell's result as the points earned; warnings and anything the answer writes to
    stderr are kept out of the cell, because nbgrader gives zero to a cell with output on stderr.
    """
    captured = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stderr(captured), contextlib.redirect_stdout(captured):
        warnings.simplefilter("ignore")
        earned, lines = grade(key, answer)
    print(f"{key}: {earned:g} / {points(key)} point{'s' if points(key) > 1 else ''}")
    for line in lines:  # wrapped: a feedback page does not wrap long output lines
        print(textwrap.fill(line, width=100, initial_indent="  ", subsequent_indent="    "))
    return earned


def _run_hidden(key, answer, seed):
    generator = torch.Generator().manual_seed(seed)
    try:
        with keep_random_state():
            ok, message = HIDDEN[key](answer, generator)
    except Feedback as error:
        return False, str(error)
    except Exception as error:  # noqa: BLE001 - feedback, not a traceback
        return False, f"your answer raised {type(error).__name__}: {error}"
    return bool(ok), message
