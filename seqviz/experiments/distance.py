"""Memory against distance: the long-range agreement task ("the keys ... are", Linzen et al., 2016).

- :func:`accuracy_vs_distance`: train sequence classifiers on a mix of subject-verb distances, then test each on
  fresh sentences at every distance, for several models and seeds, into a :class:`DistanceTable` (accuracy per
  model, seed and distance; training time; parameters) that prints itself as a markdown table;
- :func:`retest`: the trained models of a table at distances they never saw;
- :func:`accuracy_vs_train_size`: training and test accuracy with few or many training sentences, into a
  :class:`TrainSizeTable` (does one cell overfit less?).

Used by chapter 4 (vanilla RNN vs LSTM vs GRU) and chapter 10 (the benchmark table).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from ..config import progress as progress_bar, seed_everything
from ..data import agreement_task, agreement_vocab, to_tensors
from ..measure import check_ints, count_parameters, markdown_table, spread_cell
from ..models import SequenceClassifier
from ..train import accuracy, evaluate, fit
from .seeds import _OverSeeds

__all__ = ["DistanceTable", "TrainSizeTable", "accuracy_vs_distance", "accuracy_vs_train_size", "retest"]


@dataclass
class DistanceTable(_OverSeeds):
    """Accuracies of :func:`accuracy_vs_distance`: ``accuracy[name]`` is (seeds, distances)."""

    distances: list[int]
    seeds: list[int]
    accuracy: dict[str, torch.Tensor]
    seconds: dict[str, list[float]]  # training time of each seed's run
    parameters: dict[str, int]  # of the whole classifier (embedding, encoder, head)
    models: dict[str, list[nn.Module]] = field(default_factory=dict)  # trained, one per seed, if kept

    _unknown_setting = "distance {setting} was not tested; tested: {settings}"

    def _values(self):
        return self.accuracy

    def _settings(self):
        return self.distances

    def to_markdown(self, spread: bool = True) -> str:
        """Rows = models, columns = distances; each cell "mean" or "mean (min–max)" over seeds, in %."""
        cell = lambda runs: spread_cell(runs, 100, show_range=spread)  # noqa: E731
        columns = {"model": ("model", ""), **{d: (f"d = {d}", cell) for d in self.distances}}
        rows = [{"model": name, **{d: acc[:, j] for j, d in enumerate(self.distances)}}
                for name, acc in self.accuracy.items()]
        return markdown_table(rows, columns)


def _agreement_data(distances, per_distance, attractors, seed):

    return to_tensors([e for d in distances for e in agreement_task(per_distance, d, attractors=attractors,
                                                                     seed=seed)], agreement_vocab())


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
    ``distances``. ``keep_models`` keeps the trained classifiers (in eval mode). Training runs on
    ``device`` (default :func:`~seqviz.config.pick_device`, as :func:`seqviz.train.fit`).
    """
    if callable(models) and not isinstance(models, Mapping):
        models = {"model": models}
    if not isinstance(models, Mapping) or not models:
        raise ValueError("models must be a function embed_size -> encoder, or a non-empty dict {label: function}")
    for name, make in models.items():
        if not callable(make):
            raise ValueError(f"models[{name!r}] must be a function embed_size -> encoder, got {type(make).__name__}")
    distances = check_ints(distances, "distances", 0)
    seeds = check_ints(seeds, "seeds", 0)
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    train_distances = check_ints(range(max(distances) + 1) if train_distances is None else train_distances,
                                 "train_distances", 0)
    check_ints([n_test, embed_size, batch_size], "n_test, embed_size and batch_size", 1)
    if n_train < len(train_distances):
        raise ValueError(f"n_train ({n_train}) must give at least one sentence per training distance "
                         f"({len(train_distances)} distances)")

    vocab = agreement_vocab()
    train = _agreement_data(train_distances, n_train // len(train_distances), attractors, data_seed)
    tests = {d: _agreement_data([d], n_test, attractors, data_seed + 1) for d in distances}

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
        table.parameters[name] = count_parameters(model)
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


def retest(table: DistanceTable, distances: Sequence[int], *, n_test: int = 500, attractors: str = "random",
           data_seed: int = 0) -> DistanceTable:
    """The models kept in ``table`` (``accuracy_vs_distance(..., keep_models=True)``) tested at new ``distances``.

    Test sentences are drawn as :func:`accuracy_vs_distance` draws them (seed ``data_seed + 1``), so retesting at
    the table's own distances with its ``n_test`` gives its numbers back. Used by chapter 4 to test memory beyond
    the longest distance seen in training. Returns a new table (same seeds, models, times and parameters). Each
    model is tested where it is.
    """
    if not isinstance(table, DistanceTable):
        raise ValueError(f"table must be a DistanceTable from accuracy_vs_distance(..., keep_models=True), got "
                         f"{type(table).__name__}")
    distances = check_ints(distances, "distances", 0)
    check_ints([n_test], "n_test", 1)
    if not table.models or any(len(table.models.get(name, [])) != len(table.seeds) for name in table.accuracy):
        raise ValueError("retest needs the trained models: run accuracy_vs_distance(..., keep_models=True)")
    tests = {d: _agreement_data([d], n_test, attractors, data_seed + 1) for d in distances}
    accuracy_table = {name: torch.tensor([[evaluate(model, tests[d], {"acc": accuracy})["acc"] for d in distances]
                                          for model in table.models[name]])
                      for name in table.accuracy}
    return DistanceTable(distances, list(table.seeds), accuracy_table, dict(table.seconds), dict(table.parameters),
                         dict(table.models))


@dataclass
class TrainSizeTable:
    """Accuracies of :func:`accuracy_vs_train_size`: ``train[name]`` and ``test[name]`` are (seeds, sizes)."""

    sizes: list[int]
    seeds: list[int]
    train: dict[str, torch.Tensor]
    test: dict[str, torch.Tensor]

    def gap(self, name: str) -> torch.Tensor:
        """Training minus test accuracy, (seeds, sizes): how much a model overfits."""
        if name not in self.test:
            raise ValueError(f"no model named {name!r}; models: {list(self.test)}")
        return self.train[name] - self.test[name]

    def to_markdown(self) -> str:
        """One row per model and size: training, test accuracy and their gap, each "mean (min–max)" in %."""
        columns = {"model": ("model", ""), "size": ("training sentences", ","),
                   "train": ("training accuracy", spread_cell), "test": ("test accuracy", spread_cell),
                   "gap": ("gap (train − test)", spread_cell)}
        rows = [{"model": name, "size": size, "train": self.train[name][:, j], "test": self.test[name][:, j],
                 "gap": self.gap(name)[:, j]} for name in self.test for j, size in enumerate(self.sizes)]
        return markdown_table(rows, columns)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


def accuracy_vs_train_size(models: Mapping[str, Callable[[int], nn.Module]], sizes: Sequence[int],
                           seeds: Sequence[int], steps: int, *, distances: Sequence[int], n_test: int = 200,
                           embed_size: int = 32, attractors: str = "random", batch_size: int = 32, lr: float = 3e-3,
                           device=None, data_seed: int = 0, progress: bool = True) -> TrainSizeTable:
    """Training and test accuracy on the agreement task for each model, training-set size and seed.

    For each size, :func:`accuracy_vs_distance` trains every model on ``size`` sentences spread evenly over
    ``distances`` (the same sentences for every model and seed); the test accuracy is the mean over ``n_test``
    fresh sentences per distance, the training accuracy is measured on the very sentences it was trained on.
    Chapter 4 uses it for the seeds' "the GRU overfits less on small data". Trains on ``device`` (default
    :func:`~seqviz.config.pick_device`).
    """
    sizes = check_ints(sizes, "sizes", 1)
    if not isinstance(models, Mapping) or not models:
        raise ValueError("models must be a non-empty dict {label: function embed_size -> encoder}")
    distances = check_ints(distances, "distances", 0)
    seeds = check_ints(seeds, "seeds", 0)
    train_acc: dict[str, list[list[float]]] = {}
    test_acc: dict[str, list[list[float]]] = {}
    for size in progress_bar(sizes, desc="accuracy vs training size", disable=not progress, leave=False):
        table = accuracy_vs_distance(models, distances, seeds, steps, train_distances=distances, n_train=size,
                                     n_test=n_test, embed_size=embed_size, attractors=attractors,
                                     batch_size=batch_size, lr=lr, device=device, data_seed=data_seed,
                                     keep_models=True, progress=False)
        # the very sentences accuracy_vs_distance trained on
        train = _agreement_data(distances, size // len(distances), attractors, data_seed)
        for name in table.accuracy:
            test_acc.setdefault(name, []).append(table.accuracy[name].mean(1).tolist())  # (seeds,)
            train_acc.setdefault(name, []).append([evaluate(m, train, {"acc": accuracy})["acc"]
                                                   for m in table.models[name]])
    as_table = lambda acc: {name: torch.tensor(per_size).T for name, per_size in acc.items()}  # noqa: E731
    return TrainSizeTable(sizes, seeds, as_table(train_acc), as_table(test_acc))
