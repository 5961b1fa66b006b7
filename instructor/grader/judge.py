"""Points for one answer, computed in the grader's own process (``scripts/grade.py``).

``judge(key, answer, seed)`` runs the exercise's public check and then its hidden test, with every expected value
computed live from the course material's references (:class:`instructor.exercises.Source`), on ``answer`` as the
evaluator returns it (a plain value, or a :class:`~instructor.grader.remote.RemoteFunction`). The exercise earns
its points when both pass, no forbidden library function was called (the evaluator's tripwires) or named in the
student's answer cells (:func:`forbidden_names_in`), and nothing otherwise: never more than its points.
"""

from __future__ import annotations

import ast
import hashlib
import re

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
    forbidden = [name for name in SOLUTIONS[key].tripwires if name in tripped]
    if forbidden or named:
        ok = False
        which = ", ".join(sorted(set(forbidden) | set(named)))
        lines.append(f"library function: your answer {'calls' if forbidden else 'names'} {which}, which this "
                     "exercise asks you to write yourself: 0 points.")
    return (points(key) if ok else 0.0), lines


CLASS_MEMBERS = ("forward", "__call__", "__init__")


def _target(name: str) -> list[str]:
    """What an answer would write to use a forbidden name: "torch.nn.RNN.__init__" -> ["torch", "nn", "RNN"]."""
    parts = name.split(".")
    return parts[:-1] if parts[-1] in CLASS_MEMBERS else parts


def _distinctive(word: str) -> bool:
    """A name no answer would use for anything else (``clip_grad_norm_``, ``BertMini``; not ``grad``)."""
    return len(word) >= 8 or ("_" in word.strip("_") and len(word) >= 6)


def _dotted(node) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def forbidden_names_in(code: str, forbidden) -> list[str]:
    """The forbidden library functions that ``code`` (the student's answer cells) names: imported by name
    (``from torch.nn.utils import clip_grad_norm_ as shrink``), reached by a dotted path that ends like the
    function's own (``nn.utils.clip_grad_norm_``, ``torch.autograd.grad``), or, for a distinctive name, written
    alone. Comments and strings do not count; a name built at run time is left to the evaluator's tripwires."""
    targets = {name: _target(name) for name in forbidden}
    text = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines())
    found = set()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        stripped = re.sub(r"#.*", "", text)
        return sorted(name for name, parts in targets.items()
                      if _distinctive(parts[-1]) and re.search(rf"\b{re.escape(parts[-1])}\b", stripped))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                path = [*(node.module or "").split("."), alias.name]
                for name, parts in targets.items():
                    if alias.name == parts[-1] and (path[-len(parts):] == parts or path[-2:] == parts[-2:]
                                                    or _distinctive(parts[-1])):
                        found.add(name)
        elif isinstance(node, ast.Attribute):
            path = _dotted(node)
            for name, parts in targets.items():
                if path and len(path) >= 2 and path[-1] == parts[-1] and path[-2] == parts[-2]:
                    found.add(name)
                elif path and path[-1] == parts[-1] and _distinctive(parts[-1]):
                    found.add(name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for name, parts in targets.items():
                if node.id == parts[-1] and _distinctive(parts[-1]):
                    found.add(name)
    return sorted(found)


__all__ = ["case_seed", "forbidden_names_in", "judge", "points", "public_check", "run_hidden"]
