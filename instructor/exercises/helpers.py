"""Helpers the hidden tests share (the grader runs them in its own process; see ``instructor/exercises``).

A hidden test ``test(answer, generator) -> (ok, message)`` draws its cases from ``generator`` (seeded per
class, student and exercise by the grader), calls the answer on them (in grading, ``answer`` calls the student's
function in a separate sandboxed process and brings back plain values) and compares with the reference here.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from seqviz.exercises.registry import as_choice, as_number, as_sequence, cell_inputs, compare_tensors


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


def builtin_cell(cell_type, weights):
    """``cell_type`` (``nn.RNNCell``, ``nn.GRUCell``) holding ``weights = (weight_ih, weight_hh, bias_ih, bias_hh)``."""
    weight_ih, weight_hh = weights[0], weights[1]
    cell = cell_type(weight_ih.shape[1], weight_hh.shape[1]).to(weight_ih.dtype)
    with torch.no_grad():
        for p, w in zip((cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh), weights):
            p.copy_(w)
    return cell


def agrees_with_cell(answer, cell_type, name: str, sizes, generator: torch.Generator, where: str,
                     squash_state: bool = False):
    """(ok, message): ``answer(x, h, weight_ih, weight_hh, bias_ih, bias_hh)`` against ``cell_type`` on the
    :func:`~seqviz.exercises.registry.cell_inputs` of ``sizes`` (``where`` says which, in the message of a pass)."""
    gates = 3 if cell_type is torch.nn.GRUCell else 1
    for (B, D, H, dtype), x, h, weights in cell_inputs(sizes, generator, gates=gates, squash_state=squash_state):
        with torch.no_grad():
            expected = builtin_cell(cell_type, weights)(x, h)
            ok, message = same(answer(x, h, *weights), expected, f"{name} with B={B}, D={D}, H={H}, {dtype}")
        if not ok:
            return ok, message
    return True, f"{name} agrees with nn.{cell_type.__name__} {where}"


def same_choice(answer, choices, expected: str):
    """(ok, message) for a conceptual question answered with a choice: the answer read as its checker reads it
    ("b", "B)" or the whole text), compared with the reference choice ``expected`` computed here, in the grader's
    process, not read from the shipped table."""
    got = as_choice(answer, choices, "the choice")
    return got == expected, (f"the choice {got!r} is the right one" if got == expected
                             else f"the choice {got!r} is not the right one")
