"""The exercise registry and ``check``.

A chapter module registers each exercise with :func:`exercise`, giving the checker,
the reference answer and at least two wrong answers; the test suite runs every
checker on all of them. A checker returns ``(ok, message)``; it may raise anything,
which :func:`check` turns into feedback: a student never sees a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

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
    """"ch03.ex2", "ch03-ex2", "ch3.ex2" and "CH03-EX2" all name the same exercise."""
    if not isinstance(exercise_id, str):
        raise ValueError(f"exercise id must be a string like 'ch03.ex2', got {exercise_id!r}")
    match = re.fullmatch(r"\s*ch(\d+)[.\-_ ]?ex(\d+)\s*", exercise_id.lower())
    if not match:
        raise ValueError(f"exercise id must look like 'ch03.ex2', got {exercise_id!r}")
    return f"ch{int(match[1]):02d}.ex{int(match[2])}"


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


def run_checker(key: str, answer) -> tuple[bool, str]:
    """Run one checker and turn any exception into feedback."""
    if answer is None or answer is Ellipsis:
        return False, "No answer yet: replace the placeholder with your answer and run the cell again."
    try:
        ok, message = EXERCISES[key].checker(answer)
    except NotImplementedError:
        return False, "Your function still raises NotImplementedError: fill in its body first."
    except Exception as error:  # noqa: BLE001 - feedback, not a traceback
        return False, f"Checking your answer raised {type(error).__name__}: {error}"
    return bool(ok), message


# -- helpers for checkers -----------------------------------------------------------


def as_number(answer, what: str = "a number") -> float:
    """``answer`` as a float, or a ``ValueError`` naming what was expected (caught by ``check``)."""
    if isinstance(answer, torch.Tensor) and answer.numel() == 1:
        return float(answer.item())
    if isinstance(answer, bool) or not isinstance(answer, (int, float)):
        raise ValueError(f"expected {what}, got {type(answer).__name__} {answer!r}")
    return float(answer)


def compare_tensors(got, expected: torch.Tensor, what: str, atol: float = 1e-5, rtol: float = 1e-4):
    """(ok, message) comparing a student's tensor with the expected one."""
    if not isinstance(got, torch.Tensor):
        return False, f"{what} should be a torch.Tensor, got {type(got).__name__}."
    if got.shape != expected.shape:
        return False, f"{what} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}."
    error = (got.detach().double() - expected.detach().double()).abs().max().item()
    if not torch.allclose(got.detach().double(), expected.detach().double(), atol=atol, rtol=rtol):
        return False, f"{what} has the right shape but differs from the reference by up to {error:.3g}."
    return True, f"{what} matches the reference (max difference {error:.1e})."
