"""The exercise registry and ``check``.

A chapter module registers each exercise with :func:`exercise`, giving the checker,
the reference answer and at least two wrong answers; the test suite runs every
checker on all of them. A checker returns ``(ok, message)``; it may raise anything,
which :func:`check` turns into feedback: a student never sees a traceback.

A follow-up question of an exercise has its own id with a letter: ``ch02.ex2b``.
Checkers run inside :func:`keep_random_state`, so checking an answer never moves the
caller's random numbers (torch, numpy, ``random``).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch


@dataclass
class Exercise:
    id: str
    title: str
    checker: Callable
    reference: Callable  # () -> a correct answer (a factory, so it can build tensors or functions)
    wrong: list[Callable] = field(default_factory=list)  # () -> wrong answers


EXERCISES: dict[str, Exercise] = {}


def normalise_id(exercise_id) -> str:
    """"ch03.ex2", "ch03-ex2", "ch3.ex2" and "CH03-EX2" all name the same exercise ("ch03.ex2b": its follow-up;
    "ch04b.ex1": an exercise of chapter 4b, the chapter inserted after chapter 4)."""
    if not isinstance(exercise_id, str):
        raise ValueError(f"exercise id must be a string like 'ch03.ex2', got {exercise_id!r}")
    match = re.fullmatch(r"\s*ch(\d+)([a-z]?)[.\-_ ]?ex(\d+)([a-z]?)\s*", exercise_id.lower())
    if not match:
        raise ValueError(f"exercise id must look like 'ch03.ex2', got {exercise_id!r}")
    return f"ch{int(match[1]):02d}{match[2]}.ex{int(match[3])}{match[4]}"


def exercise(exercise_id: str, title: str, reference: Callable, wrong: list[Callable]):
    """Decorator that registers ``checker(answer) -> (ok, message)`` under ``exercise_id``."""

    def register(checker):
        key = normalise_id(exercise_id)
        if key in EXERCISES:
            raise ValueError(f"exercise {key} is registered twice")
        EXERCISES[key] = Exercise(key, title, checker, reference, list(wrong))
        return checker

    return register


def check(exercise_id: str, answer) -> bool:
    """Check ``answer`` to an exercise: print feedback and return True or False.

    An unknown id is a ``ValueError`` listing the known ones; a wrong answer is never
    an exception, only feedback.
    """
    key = normalise_id(exercise_id)
    if key not in EXERCISES:
        chapter = [k for k in EXERCISES if k.startswith(key.split(".")[0])]
        known = ", ".join(chapter or sorted(EXERCISES))
        raise ValueError(f"unknown exercise {exercise_id!r}; known: {known}")
    ok, message = run_checker(key, answer)
    print(("✅ Correct! " if ok else "❌ Not yet. ") + message)
    return ok


NO_ANSWER = "No answer yet: replace the placeholder with your answer and run the cell again."


def run_checker(key: str, answer) -> tuple[bool, str]:
    """Run one checker and turn any exception into feedback; the caller's random state is kept."""
    if answer is None or answer is Ellipsis:
        return False, NO_ANSWER
    try:
        with keep_random_state():
            ok, message = EXERCISES[key].checker(answer)
    except NotImplementedError:
        return False, "Your function still raises NotImplementedError: fill in its body first."
    except Feedback as error:
        return False, str(error)
    except Exception as error:  # noqa: BLE001 - feedback, not a traceback
        return False, f"Checking your answer raised {type(error).__name__}: {error}"
    return bool(ok), message


@contextlib.contextmanager
def keep_random_state():
    """Run a block without moving the global random generators of torch (CPU), numpy and ``random``."""
    python_state, numpy_state = random.getstate(), np.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]):
            yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)


# -- helpers for checkers -----------------------------------------------------------


class Feedback(ValueError):
    """A wrong answer found while converting it: ``run_checker`` shows the message as it is."""


def as_number(answer, what: str = "a number") -> float:
    """``answer`` as a finite float: Python and numpy numbers, one-element tensors and arrays.

    Anything else, booleans, NaN and infinities raise :class:`Feedback` naming what was expected.
    """
    value = answer
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    elif isinstance(value, np.ndarray) and value.size == 1:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise Feedback(f"expected {what}, got {type(answer).__name__} {answer!r}.")
    value = float(value)
    if not math.isfinite(value):
        raise Feedback(f"expected {what}, got {value}: NaN and infinities are never a right answer.")
    return value


def as_bool(answer, what: str = "True or False") -> bool:
    """``answer`` as a bool: Python or numpy booleans, or a one-element bool tensor."""
    if isinstance(answer, (bool, np.bool_)):
        return bool(answer)
    if isinstance(answer, torch.Tensor) and answer.dtype == torch.bool and answer.numel() == 1:
        return bool(answer.item())
    raise Feedback(f"expected {what}, got {type(answer).__name__} {answer!r}.")


def as_sequence(answer, length: int, what: str) -> list:
    """A tuple or list (or 1-D tensor) of ``length`` items, as a list; anything else is :class:`Feedback`."""
    if isinstance(answer, torch.Tensor) and answer.dim() == 1:
        answer = list(answer)
    if not isinstance(answer, (list, tuple)) or len(answer) != length:
        got = f"{type(answer).__name__} of length {len(answer)}" if isinstance(answer, (list, tuple)) else \
            type(answer).__name__
        raise Feedback(f"{what} should be a tuple or list of {length}, got {got}.")
    return list(answer)


def compare_tensors(got, expected: torch.Tensor, what: str, atol: float = 1e-5, rtol: float = 1e-4):
    """(ok, message) comparing a student's tensor with the expected one."""
    if not isinstance(got, torch.Tensor):
        return False, f"{what} should be a torch.Tensor, got {type(got).__name__}."
    if got.shape != expected.shape:
        return False, f"{what} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}."
    if got.is_floating_point() and not bool(torch.isfinite(got.detach()).all()):
        return False, f"{what} contains NaN or infinite values."
    error = (got.detach().double() - expected.detach().double()).abs().max().item()
    if not torch.allclose(got.detach().double(), expected.detach().double(), atol=atol, rtol=rtol):
        return False, f"{what} has the right shape but differs from the reference by up to {error:.3g}."
    return True, f"{what} matches the reference (max difference {error:.1e})."


def cell_cases(cell_type, sizes, generator: torch.Generator, *, squash_state: bool = False,
               large_weights: bool = False):
    """The cases of a "one step of a cell" exercise (chapter 2's RNN step, chapter 4's GRU step, their hidden tests).

    For each ``(batch, input_size, hidden_size)`` or ``(batch, input_size, hidden_size, dtype)`` in ``sizes``:
    a fresh ``cell_type(input_size, hidden_size)`` (``torch.nn.RNNCell``, ``torch.nn.GRUCell``), with weights drawn
    from ``generator`` if ``large_weights`` (gates far from 0.5), then ``x`` (B, I) and ``h`` (B, H) from
    ``generator`` (``h`` through a tanh with ``squash_state``, as a tanh cell's state is). Yields
    ``(size, x, h, weights, expected)``: ``weights = (weight_ih, weight_hh, bias_ih, bias_hh)`` in PyTorch's
    order, the arguments a student's step takes after ``x, h``, and ``expected = cell(x, h)``.
    """
    for size in sizes:
        batch, input_size, hidden_size, dtype = (*size, torch.float32)[:4]
        cell = cell_type(input_size, hidden_size).to(dtype)
        with torch.no_grad():
            if large_weights:
                for p in cell.parameters():
                    p.copy_(torch.randn(p.shape, generator=generator, dtype=dtype))
            x = torch.randn(batch, input_size, generator=generator, dtype=dtype)  # (B, I)
            h = torch.randn(batch, hidden_size, generator=generator, dtype=dtype)  # (B, H)
            h = h.tanh() if squash_state else h
            yield size, x, h, (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh), cell(x, h)
