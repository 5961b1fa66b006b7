"""Experiments that more than one chapter runs.

:func:`accuracy_vs_distance`: train sequence classifiers on the long-range agreement task
("the keys ... are", Linzen et al., 2016) on a mix of subject-verb distances, then test each
on fresh sentences at every distance, for several models and seeds. Returns a
:class:`DistanceTable` (accuracy per model, seed and distance; training time; parameters)
that prints itself as a markdown table.

Used by chapter 4 (vanilla RNN vs LSTM vs GRU) and chapter 10 (the benchmark table).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["DistanceTable", "accuracy_vs_distance"]


@dataclass
class DistanceTable:
    """Accuracies of :func:`accuracy_vs_distance`: ``accuracy[name]`` is (seeds, distances)."""

    distances: list[int]
    seeds: list[int]
    accuracy: dict[str, torch.Tensor]
    seconds: dict[str, list[float]]  # training time of each seed's run
    parameters: dict[str, int]  # of the whole classifier (embedding, encoder, head)
    models: dict[str, list[nn.Module]] = field(default_factory=dict)  # trained, one per seed, if kept

    def mean(self, name: str) -> torch.Tensor:
        """Mean accuracy over seeds at each distance, (distances,)."""
        return self._get(name).mean(0)

    def low(self, name: str) -> torch.Tensor:
        return self._get(name).min(0).values

    def high(self, name: str) -> torch.Tensor:
        return self._get(name).max(0).values

    def at(self, name: str, distance: int) -> torch.Tensor:
        """Accuracies of every seed at one distance, (seeds,)."""
        if distance not in self.distances:
            raise ValueError(f"distance {distance} was not tested; tested: {self.distances}")
        return self._get(name)[:, self.distances.index(distance)]

    def _get(self, name):
        if name not in self.accuracy:
            raise ValueError(f"no model named {name!r}; models: {list(self.accuracy)}")
        return self.accuracy[name]

    def to_markdown(self, spread: bool = True) -> str:
        """Rows = models, columns = distances; each cell "mean" or "mean (min–max)" over seeds, in %."""
        head = "| model | " + " | ".join(f"d = {d}" for d in self.distances) + " |"
        rule = "|---" + "|---:" * len(self.distances) + "|"
        rows = [head, rule]
        for name in self.accuracy:
            cells = []
            for mean, low, high in zip(self.mean(name), self.low(name), self.high(name)):
                cell = f"{100 * mean:.1f}"
                if spread and len(self.seeds) > 1:
                    cell += f" ({100 * low:.1f}–{100 * high:.1f})"
                cells.append(cell)
            rows.append(f"| {name} | " + " | ".join(cells) + " |")
        return "\n".join(rows)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


def _check_ints(values, name, minimum):
    values = list(values) if isinstance(values, (list, tuple, range)) else values
    if not isinstance(values, list) or not values:
        raise ValueError(f"{name} must be a non-empty list of ints, got {values!r}")
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
            raise ValueError(f"{name} must hold ints >= {minimum}, got {v!r}")
    return values


def accuracy_vs_distance(models: Mapping[str, Callable[[int], nn.Module]] | Callable[[int], nn.Module],
                         distances: Sequence[int], seeds: Sequence[int], steps: int, *,
                         train_distances: Sequence[int] | None = None, n_train: int = 4000, n_test: int = 500,
                         embed_size: int = 32, attractors: str = "random", batch_size: int = 64, lr: float = 3e-3,
                         clip_norm: float | None = None, device=None, data_seed: int = 0, keep_models: bool = False,
                         progress: bool = True) -> DistanceTable:
    """Agreement accuracy against subject-verb distance, for each model and seed.

    ``models`` maps a label to ``make_encoder(embed_size) -> encoder`` (a seqviz or
    ``torch.nn`` recurrent module, batch-first, with a ``hidden_size``); a single function
    is labelled "model". Each encoder goes into a :class:`~seqviz.models.SequenceClassifier`
    (embedding of ``embed_size``, a linear head on the state at the last real token).

    Every run trains for ``steps`` Adam steps on ``n_train`` sentences spread evenly over
    ``train_distances`` (default: every distance from 0 to ``max(distances)``), with the
    same data for every model and seed; the seed sets the initial weights and the order of
    the minibatches. Each run is then tested on ``n_test`` new sentences at each of
    ``distances``. ``keep_models`` keeps the trained classifiers (in eval mode).
    """
    from .config import progress as progress_bar, seed_everything
    from .data import agreement_task, agreement_vocab, to_tensors
    from .models import SequenceClassifier
    from .train import accuracy, evaluate, fit

    if callable(models) and not isinstance(models, Mapping):
        models = {"model": models}
    if not isinstance(models, Mapping) or not models:
        raise ValueError("models must be a function embed_size -> encoder, or a non-empty dict {label: function}")
    for name, make in models.items():
        if not callable(make):
            raise ValueError(f"models[{name!r}] must be a function embed_size -> encoder, got {type(make).__name__}")
    distances = _check_ints(distances, "distances", 0)
    seeds = _check_ints(seeds, "seeds", 0)
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    train_distances = _check_ints(range(max(distances) + 1) if train_distances is None else train_distances,
                                  "train_distances", 0)
    if n_train < len(train_distances):
        raise ValueError(f"n_train ({n_train}) must give at least one sentence per training distance "
                         f"({len(train_distances)} distances)")

    vocab = agreement_vocab()
    per_distance = n_train // len(train_distances)
    train = to_tensors([e for d in train_distances
                        for e in agreement_task(per_distance, d, attractors=attractors, seed=data_seed)], vocab)
    tests = {d: to_tensors(agreement_task(n_test, d, attractors=attractors, seed=data_seed + 1), vocab)
             for d in distances}

    table = DistanceTable(distances, seeds, {}, {}, {}, {})
    runs = [(name, seed) for seed in seeds for name in models]  # seeds outermost: a stopped run is still balanced
    bar = progress_bar(runs, desc="accuracy vs distance", disable=not progress, leave=False)
    results: dict[str, dict[int, list[float]]] = {name: {} for name in models}
    for name, seed in bar:
        bar.set_postfix(model=name, seed=seed)
        seed_everything(seed)
        encoder = models[name](embed_size)
        if not hasattr(encoder, "hidden_size"):
            raise ValueError(f"the encoder of {name!r} must have a hidden_size (like torch.nn.LSTM), "
                             f"got {type(encoder).__name__}")
        model = SequenceClassifier(len(vocab), embed_size, encoder, num_classes=2)
        table.parameters[name] = sum(p.numel() for p in model.parameters())
        history = fit(model, train, F.cross_entropy, steps=steps, batch_size=batch_size, lr=lr, clip_norm=clip_norm,
                      device=device, seed=seed, progress=False)
        model.eval()
        results[name][seed] = [evaluate(model, tests[d], {"acc": accuracy})["acc"] for d in distances]
        table.seconds.setdefault(name, []).append(history.seconds)
        if keep_models:
            table.models.setdefault(name, []).append(model)
    bar.close()
    table.accuracy = {name: torch.tensor([results[name][s] for s in seeds]) for name in models}
    return table
