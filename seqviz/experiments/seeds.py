"""Results over several seeds: the mean, the range, and whether two models' ranges are apart.

- ``_OverSeeds``: statistics over seeds for any table whose values are (seeds, settings) per name, shared by
  :class:`~seqviz.experiments.DistanceTable` (settings = distances) and :class:`SeedTable` (any settings);
- :func:`repeat_over_seeds`: run any experiment for every name, setting and seed into a :class:`SeedTable`.

Used by chapters 4 and 10 (through the distance table) and chapter 9 (fine-tuning over seeds).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from ..book import compare_spread
from ..config import progress as progress_bar
from ..measure import check_ints, markdown_table, spread_cell

__all__ = ["SeedTable", "repeat_over_seeds"]


class _OverSeeds:
    """Statistics over seeds for a table whose ``_values()[name]`` is (seeds, settings): mean, range, one setting."""

    _unknown_name = "no model named {name!r}; models: {names}"       # error messages, set per table
    _unknown_setting = "{setting!r} was not run; run: {settings}"

    def _values(self) -> dict[str, torch.Tensor]:
        raise NotImplementedError

    def _settings(self) -> list:
        raise NotImplementedError

    def _get(self, name):
        values = self._values()
        if name not in values:
            raise ValueError(self._unknown_name.format(name=name, names=list(values)))
        return values[name]

    def mean(self, name: str) -> torch.Tensor:
        """Mean over seeds at each setting, (settings,)."""
        return self._get(name).mean(0)

    def low(self, name: str) -> torch.Tensor:
        return self._get(name).min(0).values

    def high(self, name: str) -> torch.Tensor:
        return self._get(name).max(0).values

    def at(self, name: str, setting) -> torch.Tensor:
        """The value of every seed at one setting (a distance, a label count ...), (seeds,)."""
        settings = self._settings()
        if setting not in settings:
            raise ValueError(self._unknown_setting.format(setting=setting, settings=settings))
        return self._get(name)[:, settings.index(setting)]

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


@dataclass
class SeedTable(_OverSeeds):
    """Results of :func:`repeat_over_seeds`: ``values[name]`` is (seeds, settings), one number per run."""

    settings: list
    seeds: list[int]
    values: dict[str, torch.Tensor]

    _unknown_name = "no runs named {name!r}; names: {names}"
    _unknown_setting = "setting {setting!r} was not run; settings: {settings}"

    def _values(self):
        return self.values

    def _settings(self):
        return self.settings

    def separated(self, a: str, b: str) -> list[bool]:
        """Per setting: True where every seed of ``a`` lies above every seed of ``b`` (the ranges do not overlap),
        as :func:`seqviz.book.compare_spread` says "greater"."""
        a_runs, b_runs = self._get(a), self._get(b)
        return [compare_spread(a_runs[:, j], b_runs[:, j], ("above", "overlap", "below")) == "above"
                for j in range(len(self.settings))]

    def to_markdown(self, setting_label: str = "setting", percent: bool = True) -> str:
        """Rows = settings, columns = names; each cell "mean (min–max)" over the seeds."""
        scale, unit = (100, " %") if percent else (1, "")
        cell = lambda runs: spread_cell(runs, scale)  # noqa: E731
        columns = {"setting": (setting_label, None), **{name: (f"{name}{unit}", cell) for name in self.values}}
        rows = [{"setting": setting, **{name: runs[:, i] for name, runs in self.values.items()}}
                for i, setting in enumerate(self.settings)]
        return markdown_table(rows, columns)


def repeat_over_seeds(run: Callable[[str, object, int], float], names: Sequence[str], settings: Sequence,
                      seeds: Sequence[int], *, progress: bool = True, desc: str = "runs") -> SeedTable:
    """Call ``run(name, setting, seed) -> number`` for every name, setting and seed; collect a :class:`SeedTable`.

    The spread over seeds (initial weights, minibatch order: whatever ``run`` lets the seed decide) shows how
    much of a difference between two names is the luck of one run. Chapter 9 uses it for fine-tuning against
    training from scratch. ``run`` decides where it trains (``seqviz.train.fit``'s ``device``).
    """
    if not callable(run):
        raise ValueError(f"run must be a function (name, setting, seed) -> number, got {type(run).__name__}")
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise ValueError(f"names must be a list of distinct strings, got {names!r}")
    names = list(names)
    if not names or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        raise ValueError(f"names must be a non-empty list of distinct strings, got {names!r}")
    if isinstance(settings, (str, bytes)) or not hasattr(settings, "__iter__"):
        raise ValueError(f"settings must be a list (one run per setting, name and seed), got {settings!r}")
    settings = list(settings)
    if not settings:
        raise ValueError("settings must not be empty")
    seeds = check_ints(seeds, "seeds", 0)
    runs = [(seed, setting, name) for seed in seeds for setting in settings for name in names]
    results: dict[tuple, float] = {}
    for seed, setting, name in progress_bar(runs, desc=desc, disable=not progress, leave=False):
        value = run(name, setting, seed)
        if hasattr(value, "item"):
            value = value.item()
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise ValueError(f"run({name!r}, {setting!r}, {seed}) must return a finite number, got {value!r}")
        results[name, setting, seed] = float(value)
    values = {name: torch.tensor([[results[name, s, seed] for s in settings] for seed in seeds], dtype=torch.float64)
              for name in names}
    return SeedTable(settings, seeds, values)
