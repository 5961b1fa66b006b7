"""Where a piece of the guide's evidence comes from (:data:`REGIMES`) and the :class:`Evidence` that carries it:
*measured here* (this chapter's run, on this machine, at its budget and sizes), *the book's long runs* (the models
the book trains for up to half an hour of CPU each, re-evaluated in this run), *from the literature* (a published
result, cited). Used by :mod:`.evidence` and :mod:`.literature`.
"""

from __future__ import annotations

from dataclasses import dataclass

MEASURED, LONG_RUNS, LITERATURE = "measured here", "the book's long runs", "from the literature"
REGIMES = (MEASURED, LONG_RUNS, LITERATURE)


@dataclass
class Evidence:
    """One result the guide reads: ``value`` (a number; None for a published finding), ``summary`` (what was
    measured or found, with the numbers), ``source`` (the section of the book, or the citation), ``regime`` (one of
    :data:`REGIMES`), ``cite`` (the works it cites), ``samples`` (repeated timings behind ``value``, when it is a
    time) and ``judged`` (the outcome of a comparison made when the evidence was collected, e.g.
    :func:`seqviz.book.compare_times`'s)."""

    value: float | None
    summary: str
    source: str
    regime: str = MEASURED
    cite: tuple = ()
    samples: tuple = ()
    judged: str = ""

    def __post_init__(self):
        if self.regime not in REGIMES:
            raise ValueError(f"regime must be one of {REGIMES}, got {self.regime!r}")
