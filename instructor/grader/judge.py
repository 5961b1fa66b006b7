"""Points for one answer, computed in the grader's own process (``scripts/grade.py``).

``judge(key, answer, seed)`` runs the exercise's public check and then its hidden test, with every expected value
computed live from the course material's references (:class:`instructor.exercises.Source`), on ``answer`` as the
evaluator returns it (a plain value, or a :class:`~instructor.grader.remote.RemoteFunction`). The exercise earns
its points when both pass, no forbidden library function was called (the evaluator's tripwires) or named in the
student's answer cells (:func:`forbidden_names_in`), and nothing otherwise: never more than its points.
"""

from __future__ import annotations

import hashlib
import io
import keyword
import re
import tokenize

import torch

from seqviz.exercises import EXERCISES, run_checker
from seqviz.exercises.expected import use_source
from seqviz.exercises.registry import AnswerRaised, Feedback, StudentFunction, keep_random_state

from instructor.exercises import SOLUTIONS, Source


def points(key: str) -> float:
    """The most an exercise earns: 2, or 1 for a follow-up question (an id with a letter, ``ch02.ex2b``), unless
    its solution says otherwise (``Solution.points``)."""
    solution = SOLUTIONS.get(key)
    if solution is not None and getattr(solution, "points", None):
        return float(solution.points)
    return 1.0 if key[-1].isalpha() else 2.0


def case_seed(class_seed: str, student: str, key: str) -> int:
    """The hidden cases' seed for one student and exercise: fixed for a class (a regrade gives the same cases),
    different for every student, exercise and class variant."""
    return int(hashlib.sha256(f"{class_seed}|{student}|{key}".encode()).hexdigest()[:8], 16)


def run_hidden(key: str, answer, seed: int) -> tuple[bool, str]:
    """The hidden test of ``key`` on ``answer`` (True and a note where the exercise has none); never raises."""
    test = SOLUTIONS[key].hidden
    if test is None:
        return True, "no hidden test for this exercise"
    generator = torch.Generator().manual_seed(seed)
    checked = StudentFunction(answer) if callable(answer) else answer
    try:
        with keep_random_state(), use_source(Source()):
            ok, message = test(checked, generator)
    except Feedback as error:
        return False, str(error)
    except AnswerRaised as error:
        if getattr(error.original, "feedback", None):
            return False, error.original.feedback
        return False, f"your function raised {error}"
    except Exception as error:  # noqa: BLE001 - feedback about the answer, not a traceback
        return False, f"the hidden test could not read your answer ({type(error).__name__}: {str(error)[:150]})"
    return bool(ok), str(message)


def public_check(key: str, answer) -> tuple[bool, str]:
    """The student's own check, with the expected values computed from the references (not the shipped table)."""
    with use_source(Source()):
        return run_checker(key, answer)


def judge(key: str, answer, seed: int, tripped=frozenset(), named=()) -> tuple[float, list[str]]:
    """(points, feedback lines) for one exercise."""
    if key not in EXERCISES or key not in SOLUTIONS:
        raise ValueError(f"unknown exercise {key!r}")
    ok, message = public_check(key, answer)
    lines = [f"check: {message}"]
    if ok:
        ok, message = run_hidden(key, answer, seed)
        lines.append(f"hidden tests (seed {seed}): {message}")
    forbidden = [name for name in SOLUTIONS[key].forbidden if name in tripped]
    if forbidden or named:
        ok = False
        which = ", ".join(sorted(set(forbidden) | set(named)))
        lines.append(f"library function: your answer {'calls' if forbidden else 'names'} {which}, which this "
                     "exercise asks you to write yourself: 0 points.")
    return (points(key) if ok else 0.0), lines


def forbidden_names_in(code: str, forbidden) -> list[str]:
    """The forbidden dotted names whose last part appears as a name in ``code`` (comments and strings ignored)."""
    wanted = {}
    for name in forbidden:  # "torch.nn.RNNCell.forward": the class name is what an answer would write
        parts = name.split(".")
        wanted[parts[-2] if parts[-1] in ("forward", "__call__") else parts[-1]] = name
    found = set()
    text = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME and token.string in wanted and not keyword.iskeyword(token.string):
                found.add(wanted[token.string])
    except (tokenize.TokenError, IndentationError, SyntaxError):
        stripped = re.sub(r"#.*", "", text)
        found |= {full for short, full in wanted.items() if re.search(rf"\b{re.escape(short)}\b", stripped)}
    return sorted(found)


__all__ = ["case_seed", "forbidden_names_in", "judge", "points", "public_check", "run_hidden"]
