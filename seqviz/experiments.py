"""Experiments that more than one chapter runs.

:func:`accuracy_vs_distance`: train sequence classifiers on the long-range agreement task
("the keys ... are", Linzen et al., 2016) on a mix of subject-verb distances, then test each
on fresh sentences at every distance, for several models and seeds. Returns a
:class:`DistanceTable` (accuracy per model, seed and distance; training time; parameters)
that prints itself as a markdown table.

Used by chapter 4 (vanilla RNN vs LSTM vs GRU) and chapter 10 (the benchmark table).

:func:`repeat_over_seeds` runs any experiment over several seeds into a :class:`SeedTable`
(mean and range per setting; chapter 9's fine-tuning). :func:`match_parameters` picks the size
that gives a model a target parameter count (chapter 7's parameter-matched comparison).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["DistanceTable", "SeedTable", "accuracy_vs_distance", "count_parameters", "match_parameters",
           "repeat_over_seeds"]


class _OverSeeds:
    """Statistics over seeds for a table whose ``_values()[name]`` is (seeds, settings): mean, range, one setting.

    ``DistanceTable`` (settings = distances) and ``SeedTable`` (any settings) share them.
    """

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

# --- Seed claims tested over several seeds (chapters 4 and 5) ------------------------------------------------------
# retest: trained agreement models at distances they never saw; accuracy_vs_train_size: training and test accuracy
# with few or many training sentences (does one cell overfit less?); train_translators: encoder-decoders trained
# from several seeds, with greedy exact-match accuracy during training and per source length at the end.

def _spread(values: torch.Tensor) -> str:
    """'mean (min–max)' in % over the first dimension of a 1-D tensor (or just 'mean' for one seed)."""
    mean = f"{100 * values.mean():.1f}"
    return mean if values.numel() == 1 else f"{mean} ({100 * values.min():.1f}–{100 * values.max():.1f})"


def retest(table: DistanceTable, distances: Sequence[int], *, n_test: int = 500, attractors: str = "random",
           data_seed: int = 0) -> DistanceTable:
    """The models kept in ``table`` (``accuracy_vs_distance(..., keep_models=True)``) tested at new ``distances``.

    Test sentences are drawn as :func:`accuracy_vs_distance` draws them (seed ``data_seed + 1``), so retesting at
    the table's own distances with its ``n_test`` gives its numbers back. Used by chapter 4 to test memory beyond
    the longest distance seen in training. Returns a new table (same seeds, models, times and parameters).
    """
    from .data import agreement_task, agreement_vocab, to_tensors
    from .train import accuracy, evaluate

    distances = _check_ints(distances, "distances", 0)
    if not table.models or any(len(table.models.get(name, [])) != len(table.seeds) for name in table.accuracy):
        raise ValueError("retest needs the trained models: run accuracy_vs_distance(..., keep_models=True)")
    vocab = agreement_vocab()
    tests = {d: to_tensors(agreement_task(n_test, d, attractors=attractors, seed=data_seed + 1), vocab)
             for d in distances}
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
        rows = ["| model | training sentences | training accuracy | test accuracy | gap (train − test) |",
                "|---|---:|---:|---:|---:|"]
        for name in self.test:
            for j, size in enumerate(self.sizes):
                rows.append(f"| {name} | {size:,} | {_spread(self.train[name][:, j])} | "
                            f"{_spread(self.test[name][:, j])} | {_spread(self.gap(name)[:, j])} |")
        return "\n".join(rows)

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
    Chapter 4 uses it for the seeds' "the GRU overfits less on small data".
    """
    from .config import progress as progress_bar
    from .data import agreement_task, agreement_vocab, to_tensors
    from .train import accuracy, evaluate

    sizes = _check_ints(sizes, "sizes", 1)
    distances = _check_ints(distances, "distances", 0)
    seeds = _check_ints(seeds, "seeds", 0)
    vocab = agreement_vocab()
    train_acc: dict[str, list[list[float]]] = {}
    test_acc: dict[str, list[list[float]]] = {}
    for size in progress_bar(sizes, desc="accuracy vs training size", disable=not progress, leave=False):
        table = accuracy_vs_distance(models, distances, seeds, steps, train_distances=distances, n_train=size,
                                     n_test=n_test, embed_size=embed_size, attractors=attractors,
                                     batch_size=batch_size, lr=lr, device=device, data_seed=data_seed,
                                     keep_models=True, progress=False)
        per_distance = size // len(distances)  # as accuracy_vs_distance builds its training set
        train = to_tensors([e for d in distances
                            for e in agreement_task(per_distance, d, attractors=attractors, seed=data_seed)], vocab)
        for name in table.accuracy:
            test_acc.setdefault(name, []).append(table.accuracy[name].mean(1).tolist())  # (seeds,)
            train_acc.setdefault(name, []).append([evaluate(m, train, {"acc": accuracy})["acc"]
                                                   for m in table.models[name]])
    as_table = lambda acc: {name: torch.tensor(per_size).T for name, per_size in acc.items()}  # noqa: E731
    return TrainSizeTable(sizes, seeds, as_table(train_acc), as_table(test_acc))


@torch.no_grad()
def exact_match(model: nn.Module, data, *, max_extra: int = 2) -> float:
    """Share of sentences that ``model.greedy`` translates exactly right; ``data`` = (src, lengths, tgt_in, tgt_out).

    Runs where the model's parameters are and restores its training mode.
    """
    from .models import sequence_accuracy

    src, src_lengths, _, tgt_out = data
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    predicted, _ = model.greedy(src.to(device), src_lengths.to(device), max_len=tgt_out.shape[1] + max_extra)
    model.train(was_training)
    return sequence_accuracy(predicted.cpu(), tgt_out.cpu()).float().mean().item()


@dataclass
class TranslationRuns:
    """Results of :func:`train_translators`: for each label, one row per seed."""

    seeds: list[int]
    checkpoints: list[int]  # training steps after which the exact-match accuracy was measured
    curves: dict[str, torch.Tensor]  # (seeds, checkpoints): greedy exact match on the validation set
    lengths: list[int]
    by_length: dict[str, torch.Tensor]  # (seeds, lengths): at the end of training; (seeds, 0) if no by_length
    seconds: dict[str, list[float]]
    parameters: dict[str, int]
    models: dict[str, list[nn.Module]] = field(default_factory=dict)

    def final(self, name: str) -> torch.Tensor:
        """Exact-match accuracy of each seed at the end of training, (seeds,)."""
        if name not in self.curves:
            raise ValueError(f"no model named {name!r}; models: {list(self.curves)}")
        return self.curves[name][:, -1]

    def to_markdown(self) -> str:
        """Rows = labels; columns = checkpoints; "mean (min–max)" over seeds, in %."""
        rows = ["| model | " + " | ".join(f"step {s}" for s in self.checkpoints) + " |",
                "|---" + "|---:" * len(self.checkpoints) + "|"]
        for name, curve in self.curves.items():
            rows.append(f"| {name} | " + " | ".join(_spread(curve[:, j]) for j in range(len(self.checkpoints))) + " |")
        return "\n".join(rows)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


def train_translators(models: Mapping[str, Callable[[], nn.Module]], train, valid, seeds: Sequence[int], steps: int,
                      *, eval_every: int | None = None, by_length: Mapping[int, Sequence[torch.Tensor]] | None = None,
                      batch_size: int = 64, lr: float = 3e-3, device=None, keep_models: bool = False,
                      progress: bool = True) -> TranslationRuns:
    """Train one encoder-decoder per label and seed; measure greedy exact match as training goes.

    ``models`` maps a label to ``make() -> model`` (a :class:`~seqviz.models.Seq2Seq` or anything with
    ``greedy(src, lengths, max_len)``), called right after ``seed_everything(seed)``. ``train`` and ``valid`` are
    ``(src, src_lengths, tgt_in, tgt_out)``. Every ``eval_every`` steps (default: only at the end) the validation
    exact match is recorded; ``by_length`` maps a source length to its own test set, measured at the end.
    Chapter 5 uses it for teacher forcing on/off and for the bottleneck at several state sizes.
    """
    from .config import progress as progress_bar, seed_everything
    from .models import sequence_loss
    from .train import fit

    if not isinstance(models, Mapping) or not models or not all(callable(m) for m in models.values()):
        raise ValueError("models must be a non-empty dict {label: function () -> model}")
    seeds = _check_ints(seeds, "seeds", 0)
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    eval_every = eval_every or steps
    if not isinstance(eval_every, int) or not 1 <= eval_every <= steps:
        raise ValueError(f"eval_every must be an int in 1..steps ({steps}), got {eval_every!r}")
    checkpoints = [s for s in range(eval_every, steps + 1, eval_every)]
    if checkpoints[-1] != steps:
        checkpoints.append(steps)
    lengths = sorted(by_length) if by_length else []

    runs = TranslationRuns(seeds, checkpoints, {}, lengths, {}, {}, {}, {})
    curves: dict[str, list[list[float]]] = {name: [] for name in models}
    per_length: dict[str, list[list[float]]] = {name: [] for name in models}
    jobs = [(name, seed) for seed in seeds for name in models]
    bar = progress_bar(jobs, desc="training translators", disable=not progress, leave=False)
    for name, seed in bar:
        bar.set_postfix(model=name, seed=seed)
        seed_everything(seed)
        model = models[name]()
        runs.parameters[name] = sum(p.numel() for p in model.parameters())
        curve: list[float] = []

        def measure(step, model, record, curve=curve):
            if step in checkpoints:
                curve.append(exact_match(model, valid))

        history = fit(model, train, sequence_loss, steps=steps, batch_size=batch_size, lr=lr, device=device,
                      seed=seed, progress=False, callbacks=[measure])
        model.eval()
        curves[name].append(curve)
        per_length[name].append([exact_match(model, by_length[n]) for n in lengths])
        runs.seconds.setdefault(name, []).append(history.seconds)
        if keep_models:
            runs.models.setdefault(name, []).append(model)
    bar.close()
    runs.curves = {name: torch.tensor(c) for name, c in curves.items()}
    runs.by_length = {name: torch.tensor(p).reshape(len(seeds), len(lengths)) for name, p in per_length.items()}
    return runs


__all__ += ["TrainSizeTable", "TranslationRuns", "accuracy_vs_train_size", "exact_match", "retest",
            "train_translators"]


# --- Repeated runs and matched sizes (chapters 7 and 9) -------------------------------------------------------


def count_parameters(model: nn.Module) -> int:
    """The number of trainable numbers in ``model`` (a tied weight counts once, as ``parameters()`` yields it once)."""
    if not isinstance(model, nn.Module):
        raise ValueError(f"count_parameters expects a torch.nn.Module, got {type(model).__name__}")
    return sum(p.numel() for p in model.parameters())


def match_parameters(make: Callable[[int], nn.Module], target: int, sizes: Sequence[int]) -> tuple[int, int]:
    """``(size, parameters)``: the size among ``sizes`` whose ``make(size)`` has the parameter count nearest ``target``.

    Chapter 7 uses it to give the translator without attention a larger hidden state, so that both
    translators have (nearly) the same number of parameters. Ties go to the smaller size.
    """
    sizes = _check_ints(sizes, "sizes", 1)
    if not isinstance(target, int) or isinstance(target, bool) or target < 1:
        raise ValueError(f"target must be a positive int (a parameter count), got {target!r}")
    counts = {size: count_parameters(make(size)) for size in sizes}
    best = min(sorted(counts), key=lambda size: abs(counts[size] - target))
    return best, counts[best]


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
        """Per setting: True where every seed of ``a`` lies above every seed of ``b`` (the ranges do not overlap)."""
        return (self.low(a) > self.high(b)).tolist()

    def to_markdown(self, setting_label: str = "setting", percent: bool = True) -> str:
        """Rows = settings, columns = names; each cell "mean (min–max)" over the seeds."""
        scale, unit = (100, " %") if percent else (1, "")
        head = f"| {setting_label} | " + " | ".join(f"{name}{unit}" for name in self.values) + " |"
        rows = [head, "|---:" + "|---:" * len(self.values) + "|"]
        for i, setting in enumerate(self.settings):
            cells = []
            for name in self.values:
                mean, low, high = self.mean(name)[i], self.low(name)[i], self.high(name)[i]
                cell = f"{scale * mean:.1f}"
                if len(self.seeds) > 1:
                    cell += f" ({scale * low:.1f}–{scale * high:.1f})"
                cells.append(cell)
            rows.append(f"| {setting} | " + " | ".join(cells) + " |")
        return "\n".join(rows)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


def repeat_over_seeds(run: Callable[[str, object, int], float], names: Sequence[str], settings: Sequence,
                      seeds: Sequence[int], *, progress: bool = True, desc: str = "runs") -> SeedTable:
    """Call ``run(name, setting, seed) -> number`` for every name, setting and seed; collect a :class:`SeedTable`.

    The spread over seeds (initial weights, minibatch order: whatever ``run`` lets the seed decide) shows how
    much of a difference between two names is the luck of one run. Chapter 9 uses it for fine-tuning against
    training from scratch.
    """
    from .config import progress as progress_bar

    if not callable(run):
        raise ValueError(f"run must be a function (name, setting, seed) -> number, got {type(run).__name__}")
    names = list(names)
    if not names or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        raise ValueError(f"names must be a non-empty list of distinct strings, got {names!r}")
    settings = list(settings)
    if not settings:
        raise ValueError("settings must not be empty")
    seeds = _check_ints(seeds, "seeds", 0)
    runs = [(seed, setting, name) for seed in seeds for setting in settings for name in names]
    results: dict[tuple, float] = {}
    for seed, setting, name in progress_bar(runs, desc=desc, disable=not progress, leave=False):
        value = run(name, setting, seed)
        if hasattr(value, "item"):
            value = value.item()
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ValueError(f"run({name!r}, {setting!r}, {seed}) must return a number, got {type(value).__name__}")
        results[name, setting, seed] = float(value)
    values = {name: torch.tensor([[results[name, s, seed] for s in settings] for seed in seeds], dtype=torch.float64)
              for name in names}
    return SeedTable(settings, seeds, values)
