"""The exercise registry and ``check``.

A chapter module registers each exercise's checker with :func:`exercise`. A checker returns ``(ok, message)``
and compares the answer with the values it is given by :class:`seqviz.exercises.expected.Expected`: shipped data
(values on fixed inputs), never code that computes the answer. The reference answers, the wrong answers each
hint is written for and the hidden tests live in the instructor's material (``instructor/exercises/``), outside
the installed package; the test suite runs every checker on all of them.

A follow-up question of an exercise has its own id with a letter: ``ch02.ex2b``. A conceptual question (predict,
then run) is registered the same way; its answer is a number or a choice (:func:`as_choice`).

:func:`run_checker` never lets an exception out: an answer's own exception is "your function raised ...", and a
checker that cannot read an absurd answer says what it expected. Checkers run inside :func:`keep_random_state`,
so checking an answer never moves the caller's random numbers (torch, numpy, ``random``).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from ..book import translate, wrap
from ..i18n import has_cjk


@dataclass
class Exercise:
    id: str
    title: str
    checker: Callable  # checker(answer) -> (ok, message)


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


def exercise(exercise_id: str, title: str):
    """Decorator that registers ``checker(answer) -> (ok, message)`` under ``exercise_id``."""

    def register(checker):
        key = normalise_id(exercise_id)
        if key in EXERCISES:
            raise ValueError(f"exercise {key} is registered twice")
        EXERCISES[key] = Exercise(key, title, checker)
        return checker

    return register


class Verdict:
    """What :func:`check` returns: true for a right answer, false otherwise (``assert check(...)``, ``if``).

    It draws nothing when it is a cell's last value (the feedback is already printed): a student sees
    "✅ Correct! ..." alone, not followed by ``True``."""

    __slots__ = ("ok",)

    def __init__(self, ok: bool):
        self.ok = bool(ok)

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other) -> bool:
        return self.ok == (other.ok if isinstance(other, Verdict) else other)

    def __hash__(self) -> int:
        return hash(self.ok)

    def __repr__(self) -> str:
        return f"Verdict(ok={self.ok})"

    def _ipython_display_(self) -> None:
        """Nothing to show in a notebook: check() printed the feedback."""


_PLAIN_WORD = re.compile(r"[a-z]+(?=[\s,:;!?]|$)")  # "your", "none:" -- not "rnn_step", "log(rho)", "h_4"


def _sentence_case(message: str) -> str:
    """Feedback begins with a capital when its first word is a plain English word; a first word that is code
    (``rnn_step``, ``log(rho)``) keeps its spelling."""
    return message[0].upper() + message[1:] if _PLAIN_WORD.match(message) else message


def check(exercise_id: str, answer) -> Verdict:
    """Check ``answer`` to an exercise: print feedback and return a :class:`Verdict` (true when right).

    The feedback is printed in the book's language (``sv.book.set_language``; the Chinese catalogue's
    ``exercises.json``), so a chapter of the Chinese edition checks with the same call.

    An unknown id is a ``ValueError`` listing the known ones; a wrong answer is never
    an exception, only feedback.
    """
    key = normalise_id(exercise_id)
    if key not in EXERCISES:
        chapter = [k for k in EXERCISES if k.startswith(key.split(".")[0])]
        known = ", ".join(chapter or sorted(EXERCISES))
        raise ValueError(f"unknown exercise {exercise_id!r}; known: {known}")
    ok, message = run_checker(key, answer)
    head = translate("Correct!") if ok else translate("Not yet.")
    message = translate(message)  # the feedback in the book's language (seqviz.book.set_language)
    if not has_cjk(message):
        message = _sentence_case(message)
    print(wrap_feedback(("✅ " if ok else "❌ ") + head + ("" if has_cjk(head) else " ") + message))
    return Verdict(ok)


FEEDBACK_COLUMNS = 88   # what an output area shows at 1280 px without cutting a line (a full-width character: 2)


def wrap_feedback(text: str, columns: int = FEEDBACK_COLUMNS) -> str:
    """``text`` broken into lines of at most ``columns`` columns (:func:`seqviz.book.wrap`), so that the printed
    feedback reads whole instead of running off the right edge of the output."""
    return wrap(text, columns)


NO_ANSWER = "No answer yet: replace the placeholder with your answer and run the cell again."


class AnswerRaised(Exception):
    """The student's function raised ``original`` while being checked."""

    def __init__(self, original: BaseException):
        super().__init__(getattr(original, "as_raised", None) or f"{type(original).__name__}: {original}")
        self.original = original


class StudentFunction:
    """The answer, when it is a function: called as it is, but its exceptions become :class:`AnswerRaised`."""

    def __init__(self, function):
        self.function = function
        self.__name__ = getattr(function, "__name__", "your function")

    def __call__(self, *args, **kwargs):
        try:
            return self.function(*args, **kwargs)
        except (Feedback, AnswerRaised):
            raise
        except Exception as error:  # noqa: BLE001 - the answer's own failure, reported as such
            raise AnswerRaised(error) from None


def describe(value, depth: int = 0) -> str:
    """A short description of a value for feedback: "tensor (3, 4) float32", "list of 3", "int with 401 digits"."""
    if isinstance(value, torch.Tensor):
        return f"tensor {tuple(value.shape)} {str(value.dtype).removeprefix('torch.')}"
    if isinstance(value, np.ndarray):
        return f"numpy array {value.shape} {value.dtype}"
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int) and abs(value) > 10**15:
        return f"int with {len(str(abs(value)))} digits"
    if isinstance(value, (int, float, np.generic)):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v, depth + 1) for v in value[:3]) if depth < 2 else "..."
        return f"{type(value).__name__} of {len(value)}" + (f" ({inner}{', ...' if len(value) > 3 else ''})"
                                                             if value and inner else "")
    if callable(value):
        return f"function {getattr(value, '__name__', '')}".strip()
    return type(value).__name__


def run_checker(key: str, answer) -> tuple[bool, str]:
    """Run one checker and turn any exception into feedback; the caller's random state is kept."""
    if answer is None or answer is Ellipsis:
        return False, NO_ANSWER
    checked = StudentFunction(answer) if callable(answer) and not isinstance(answer, (type, torch.Tensor)) \
        else answer
    try:
        with keep_random_state():
            ok, message = EXERCISES[key].checker(checked)
    except Feedback as error:
        return False, str(error)
    except AnswerRaised as error:
        if getattr(error.original, "feedback", None):  # the grader could not run the answer (a time limit)
            return False, error.original.feedback
        if isinstance(error.original, NotImplementedError) or str(error).startswith("NotImplementedError"):
            return False, "Your function still raises NotImplementedError: fill in its body first."
        return False, f"Your function raised {error} when the check called it."
    except RecursionError:
        return False, "Your answer nests or recurses too deeply to be checked."
    except Exception as error:  # noqa: BLE001 - the checker could not read an absurd answer: feedback about it
        return False, (f"This check could not make sense of your answer ({describe(answer)}; reading it failed "
                       f"with {type(error).__name__}). Look at what it is or returns: the types, shapes and "
                       "ranges the exercise asks for.")
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

    Anything else, booleans, NaN, infinities and numbers too large for a float raise :class:`Feedback` naming what
    was expected.
    """
    value = answer
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    elif isinstance(value, np.ndarray) and value.size == 1:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise Feedback(f"expected {what}, got {describe(answer)}.")
    try:
        value = float(value)
    except OverflowError:
        raise Feedback(f"expected {what}, got {describe(value)}: that number is too large to be {what}.") from None
    if not math.isfinite(value):
        raise Feedback(f"expected {what}, got {value}: NaN and infinities are never a right answer.")
    return value


def as_bool(answer, what: str = "True or False") -> bool:
    """``answer`` as a bool: Python or numpy booleans, or a one-element bool tensor or array."""
    if isinstance(answer, (bool, np.bool_)):
        return bool(answer)
    if isinstance(answer, torch.Tensor) and answer.dtype == torch.bool and answer.numel() == 1:
        return bool(answer.item())
    if isinstance(answer, np.ndarray) and answer.dtype == np.bool_ and answer.size == 1:
        return bool(answer.item())
    raise Feedback(f"expected {what}, got {describe(answer)}.")


def as_choice(answer, choices, what: str = "one of the choices") -> str:
    """``answer`` as one of ``choices`` (strings, compared without case or surrounding spaces; a letter "b" names
    the second choice when the choices are written "a) ...", "b) ..."); :class:`Feedback` otherwise."""
    if not isinstance(answer, str):
        raise Feedback(f"expected {what} as a string ({', '.join(map(repr, choices))}), got {describe(answer)}.")
    got = answer.strip().lower().rstrip(").")
    for choice in choices:
        if got == choice.lower() or (len(got) == 1 and choice.lower().startswith(got + ")")):
            return choice
    raise Feedback(f"{answer!r} is not one of {', '.join(map(repr, choices))}.")


def as_sequence(answer, length: int, what: str) -> list:
    """A tuple or list (or 1-D tensor or array) of ``length`` items, as a list; anything else is :class:`Feedback`."""
    if isinstance(answer, (torch.Tensor, np.ndarray)) and answer.ndim >= 1:
        answer = list(answer)
    if not isinstance(answer, (list, tuple)) or len(answer) != length:
        got = f"{type(answer).__name__} of length {len(answer)}" if isinstance(answer, (list, tuple)) else \
            describe(answer)
        raise Feedback(f"{what} should be a tuple or list of {length}, got {got}.")
    return list(answer)


def as_tensor(got, like: torch.Tensor, what: str) -> torch.Tensor:
    """A tensor, numpy array, nested list or number as a tensor of ``like``'s dtype (:class:`Feedback` if it cannot
    be one: ragged lists, strings, objects)."""
    if isinstance(got, torch.Tensor):
        return got.detach()
    if isinstance(got, np.ndarray) and got.dtype.kind in "biuf":
        tensor = torch.from_numpy(np.ascontiguousarray(got))
        return tensor.to(like.dtype) if like.is_floating_point() and tensor.is_floating_point() else tensor
    if isinstance(got, (list, tuple, numbers.Number, np.generic)) and not isinstance(got, str):
        try:
            array = np.array(got, dtype=np.float64 if like.is_floating_point() else None)
        except (ValueError, TypeError, OverflowError):
            raise Feedback(f"{what} should be a tensor {tuple(like.shape)}; the {describe(got)} you returned is "
                           "not a rectangular array of numbers.") from None
        if array.dtype.kind not in "biuf":
            raise Feedback(f"{what} should be a tensor {tuple(like.shape)} of numbers, got {describe(got)}.")
        tensor = torch.from_numpy(array)
        return tensor.to(like.dtype) if like.is_floating_point() else tensor
    raise Feedback(f"{what} should be a torch.Tensor, got {describe(got)}.")


def compare_tensors(got, expected: torch.Tensor, what: str, atol: float = 1e-5, rtol: float = 1e-4):
    """(ok, message) comparing a student's tensor (or numpy array, or nested list) with the expected one."""
    try:
        got = as_tensor(got, expected, what)
    except Feedback as error:
        return False, str(error)
    if got.shape != expected.shape:
        return False, f"{what} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}."
    if got.is_complex() or not (got.is_floating_point() or got.dtype in (torch.int64, torch.int32, torch.int16,
                                                                           torch.int8, torch.uint8, torch.bool)):
        return False, f"{what} should hold real numbers, got dtype {got.dtype}."
    if got.is_floating_point() and not bool(torch.isfinite(got).all()):
        return False, f"{what} contains NaN or infinite values."
    difference = got.double() - expected.detach().double()
    error = difference.abs().max().item() if difference.numel() else 0.0
    if not math.isfinite(error) or not torch.allclose(got.double(), expected.detach().double(), atol=atol, rtol=rtol):
        return False, f"{what} has the right shape but differs from the reference by up to {error:.3g}."
    return True, f"{what} matches the reference (max difference {error:.1e})."


def cell_inputs(sizes, generator: torch.Generator, *, gates: int = 1, squash_state: bool = False,
                large_weights: bool = False):
    """The inputs of a "one step of a cell" exercise (chapter 2's RNN step, chapter 4's GRU step), all drawn from
    ``generator`` (so the same generator always gives the same cases).

    For each ``(batch, input_size, hidden_size)`` or ``(batch, input_size, hidden_size, dtype)`` in ``sizes``:
    weights shaped as PyTorch's cell with ``gates`` blocks of rows (1 for ``nn.RNNCell``, 3 for ``nn.GRUCell``),
    uniform in +-1/sqrt(hidden_size) as PyTorch initialises them (standard normal with ``large_weights``: gates
    far from 0.5), then ``x`` (B, I) and ``h`` (B, H) (``h`` through a tanh with ``squash_state``). Yields
    ``(size, x, h, (weight_ih, weight_hh, bias_ih, bias_hh))``, the arguments a student's step takes.
    """
    for size in sizes:
        batch, input_size, hidden_size, dtype = (*size, torch.float32)[:4]
        shapes = ((gates * hidden_size, input_size), (gates * hidden_size, hidden_size), (gates * hidden_size,),
                  (gates * hidden_size,))
        if large_weights:
            weights = tuple(torch.randn(s, generator=generator, dtype=dtype) for s in shapes)
        else:
            bound = hidden_size ** -0.5
            weights = tuple((torch.rand(s, generator=generator, dtype=dtype) * 2 - 1) * bound for s in shapes)
        x = torch.randn(batch, input_size, generator=generator, dtype=dtype)  # (B, I)
        h = torch.randn(batch, hidden_size, generator=generator, dtype=dtype)  # (B, H)
        yield size, x, h.tanh() if squash_state else h, weights
