"""Loss against training compute, from training logs: the points, the compute-efficient frontier of a family of
models, a power law fitted to it, and where two families' laws cross (Kaplan et al., 2020, Figs. 1 and 13).

- :func:`log_points`: the ``(compute, loss)`` pairs of one training log (rows as ``seqviz.checkpoints`` reads
  ``log.csv``: ``step, seconds, tokens, flops, train_loss, valid_loss ...``; rows where the loss was not
  evaluated are skipped);
- :func:`compute_frontier`: over several runs of one family (sizes), the lowest loss reached at or below each
  amount of compute: the curve a practitioner who picks the best size for each budget would follow;
- :func:`family_fit`: that frontier and a :func:`seqviz.measure.power_law_fit` to it, ``loss ~ c * compute^p``
  (``p < 0``), restricted to compute ``>= min_compute`` (the first steps of training fall fast and follow no law);
- :func:`compare_families`: two families' fits and :func:`seqviz.measure.crossover_interval` of them.

``x`` is ``"flops"`` (the trainer's estimate, 6 N per token), ``"seconds"`` (wall clock on the trainer's
machine) or ``"cpu_seconds"`` (the CPU time the run used: steadier than the wall clock on a shared machine). Nothing here trains or draws. Used by chapter 9b with the long-run checkpoints of ``make checkpoints``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..measure import CrossoverEstimate, PowerLawFit, crossover_interval, power_law_fit

__all__ = ["FamilyFit", "compare_families", "compute_frontier", "family_fit", "log_points"]
AXES = ("flops", "seconds", "cpu_seconds", "tokens", "step")


def _number(value) -> float | None:
    """A log cell as a float, or None where it is blank (``None``, ``""``, nan)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"a log cell must be a number or blank, got {value!r}") from None
    return number if math.isfinite(number) else None


def log_points(rows: Sequence[Mapping], x: str = "flops", y: str = "valid_loss") -> list[tuple[float, float]]:
    """``[(x, y), ...]`` of one run's log rows where both are numbers and ``x > 0``, in log order."""
    if x not in AXES:
        raise ValueError(f"x must be one of {AXES}, got {x!r}")
    rows = list(rows)
    if not rows or not all(isinstance(r, Mapping) for r in rows):
        raise ValueError(f"a log is a non-empty list of dict rows (checkpoint.log), got {type(rows).__name__}")
    for key in (x, y):
        if key not in rows[0]:
            raise ValueError(f"the log has no column {key!r}; its columns are {sorted(rows[0])}")
    points = []
    for row in rows:
        a, b = _number(row.get(x)), _number(row.get(y))
        if a is not None and b is not None and a > 0:
            points.append((a, b))
    return points


def compute_frontier(runs: Mapping[str, Sequence[Mapping]], x: str = "flops", y: str = "valid_loss") -> list[dict]:
    """The lower envelope of every run's ``(x, y)`` points: rows ``{"x", "y", "run"}`` in increasing ``x``, each a
    point whose ``y`` is lower than that of every point (of any run) at a smaller or equal ``x``."""
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError(f"runs must be a non-empty dict name -> log rows, got {type(runs).__name__}")
    points = sorted((a, b, name) for name, rows in runs.items() for a, b in log_points(rows, x, y))
    if not points:
        raise ValueError(f"no run has a row with both {x!r} and {y!r}")
    frontier, best = [], math.inf
    for a, b, name in points:
        if b < best:
            frontier.append({"x": a, "y": b, "run": name})
            best = b
    return frontier


@dataclass(frozen=True)
class FamilyFit:
    """One family's ``frontier`` (rows of :func:`compute_frontier`), the ``points`` the law was fitted to and the
    ``fit`` (:class:`seqviz.measure.PowerLawFit`)."""

    name: str
    frontier: list
    points: list
    fit: PowerLawFit


def family_fit(name: str, runs: Mapping[str, Sequence[Mapping]], x: str = "flops", y: str = "valid_loss", *,
               min_compute: float = 0.0, level: float = 0.9, draws: int = 1000, seed: int = 0) -> FamilyFit:
    """The frontier of ``runs`` and a power law fitted to its points at ``x >= min_compute``."""
    frontier = compute_frontier(runs, x, y)
    points = [(r["x"], r["y"]) for r in frontier if r["x"] >= min_compute]
    if len({a for a, _ in points}) < 2:
        raise ValueError(f"{name}: {len(points)} frontier point(s) at {x} >= {min_compute:g}; a fit needs two at "
                         "different compute (lower min_compute, or evaluate more often)")
    fit = power_law_fit([a for a, _ in points], [b for _, b in points], level=level, draws=draws, seed=seed)
    return FamilyFit(name, frontier, points, fit)


def compare_families(a: FamilyFit, b: FamilyFit) -> CrossoverEstimate:
    """Where family ``a``'s fitted law crosses family ``b``'s, with its bootstrap interval."""
    if not isinstance(a, FamilyFit) or not isinstance(b, FamilyFit):
        raise ValueError(f"compare_families needs two FamilyFit (family_fit), got {type(a).__name__} and "
                         f"{type(b).__name__}")
    return crossover_interval(a.fit, b.fit)
