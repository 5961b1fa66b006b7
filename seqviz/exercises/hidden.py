"""Hidden tests: their table and the helpers every chapter's hidden tests share (chapters 1-10).

A chapter module (``ch01`` ... ``ch10``) registers, beside each exercise's checker, the hidden test
that grading runs after the public check: ``@hidden_test("ch02.ex1")`` on
``test(answer, generator) -> (ok, message)``. The test draws its cases from ``generator``, seeded afresh
at every grading run (:func:`seqviz.exercises.grading.grade`), so reading a test does not let anyone
hard-code an answer. The tests register on ``import seqviz.exercises``, like the checkers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from .registry import as_number, as_sequence, cell_cases, compare_tensors

HIDDEN: dict[str, Callable] = {}


def hidden_test(key: str):
    """Register ``test(answer, generator) -> (ok, message)`` as the hidden test of exercise ``key``."""

    def register(test):
        if key in HIDDEN:
            raise ValueError(f"hidden test of {key} is registered twice")
        HIDDEN[key] = test
        return test

    return register


def randint(generator: torch.Generator, low: int, high: int) -> int:
    """An int in [low, high], drawn from ``generator``."""
    return int(torch.randint(low, high + 1, (), generator=generator))


def same(got, expected, what: str, atol: float = 1e-5, rtol: float = 1e-4):
    """(ok, message) comparing numbers, booleans, tensors, lists or tuples of them with the reference."""
    if isinstance(expected, torch.Tensor):
        return compare_tensors(got, expected, what, atol=atol, rtol=rtol)
    if isinstance(expected, (list, tuple)):
        got = as_sequence(got, len(expected), what)
        for i, (g, e) in enumerate(zip(got, expected)):
            ok, message = same(g, e, f"{what}[{i}]", atol, rtol)
            if not ok:
                return ok, message
        return True, f"{what} matches"
    if isinstance(expected, bool):
        ok = isinstance(got, (bool, np.bool_)) and bool(got) == expected
        return ok, f"{what} is {got!r}, expected {expected}"
    value = as_number(got, what)
    return abs(value - expected) <= atol + rtol * abs(expected), f"{what} is {value:.6g}, expected {expected:.6g}"


def agree(answer: Callable, reference: Callable, cases, name: str, **tolerance):
    """Call answer and reference on each argument tuple of ``cases``; the first disagreement is the message."""
    for args in cases:
        expected = reference(*args)
        ok, message = same(answer(*args), expected, f"{name}{_show(args)}", **tolerance)
        if not ok:
            return False, message
    return True, f"{len(cases)} further cases agree with the reference"


def _show(args) -> str:
    parts = [f"tensor{tuple(a.shape)}" if isinstance(a, torch.Tensor) else repr(a) for a in args]
    text = ", ".join(parts)
    return f"({text[:120]}{'...' if len(text) > 120 else ''})"


def agrees_with_cell(answer, cell_type, name: str, sizes, generator: torch.Generator, where: str,
                     squash_state: bool = False):
    """(ok, message): ``answer(x, h, weight_ih, weight_hh, bias_ih, bias_hh)`` against ``cell_type`` on the
    :func:`~seqviz.exercises.registry.cell_cases` of ``sizes`` (``where`` says which, in the message of a pass).

    The hidden test of chapter 2's RNN step and of chapter 4's GRU step.
    """
    for (B, D, H, dtype), x, h, weights, expected in cell_cases(cell_type, sizes, generator,
                                                                 squash_state=squash_state):
        with torch.no_grad():
            ok, message = same(answer(x, h, *weights), expected, f"{name} with B={B}, D={D}, H={H}, {dtype}")
        if not ok:
            return ok, message
    return True, f"{name} agrees with nn.{cell_type.__name__} {where}"
