"""Translators trained and measured: exact match during training, per source length, against time.

- :func:`exact_match`: the share of sentences a model's greedy decoding gets exactly right;
- :func:`train_translators`: encoder-decoders trained from several seeds, with greedy exact match as training
  goes and per source length at the end, into :class:`TranslationRuns`;
- :func:`accuracy_by_length`: greedy exact match of one model per source length;
- :func:`learning_curve`: the held-out metric after each of a few equal chunks of training, with the time spent.

Used by chapter 5 (teacher forcing, the bottleneck over seeds), chapter 7 (attention against length) and
chapter 8 (Transformer against the recurrent translator).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from ..config import model_device, pick_device, progress as progress_bar, seed_everything
from ..measure import check_ints, count_parameters, markdown_table, spread_cell
from ..models import sequence_accuracy, sequence_loss, token_accuracy
from ..train import evaluate, fit, schedule_callback

__all__ = ["TranslationRuns", "accuracy_by_length", "exact_match", "learning_curve", "train_translators"]


@torch.no_grad()
def exact_match(model: nn.Module, data, *, max_extra: int = 2) -> float:
    """Share of sentences that ``model.greedy`` translates exactly right; ``data`` = (src, lengths, tgt_in, tgt_out).

    Runs where the model's parameters are and restores its training mode.
    """
    src, src_lengths, _, tgt_out = _check_data(data, "data")
    check_ints([max_extra], "max_extra", 0)
    correct = _greedy_correct(model, src, src_lengths, tgt_out, max_len=tgt_out.shape[1] + max_extra,
                              batch_size=len(src))
    return correct.float().mean().item()


@torch.no_grad()
def accuracy_by_length(model: nn.Module, src, src_lengths, tgt_out, *, max_len: int | None = None,
                       batch_size: int = 256) -> dict[int, float]:
    """Greedy exact-match accuracy per source length (any model with ``greedy(src, lengths, max_len)``); runs
    where the model is."""
    correct = _greedy_correct(model, src, src_lengths, tgt_out, max_len=max_len or tgt_out.shape[1] + 2,
                              batch_size=batch_size)
    return {int(n): correct[src_lengths == n].float().mean().item() for n in sorted(set(src_lengths.tolist()))}


def _check_data(data, name: str):
    if not isinstance(data, (tuple, list)) or len(data) != 4 or not all(isinstance(t, torch.Tensor) for t in data):
        raise ValueError(f"{name} must be the four tensors (src, src_lengths, tgt_in, tgt_out) of "
                         f"seqviz.data.pairs_to_tensors, got {type(data).__name__}")
    return data


def _greedy_correct(model, src, src_lengths, tgt_out, *, max_len, batch_size) -> torch.Tensor:
    """(N,) bool on the CPU: whether greedy decoding of each sentence equals ``tgt_out``; where the model is,
    in eval mode, its training mode restored."""
    if not callable(getattr(model, "greedy", None)):
        raise ValueError(f"model must have greedy(src, lengths, max_len) (a Seq2Seq or TransformerSeq2Seq), got "
                         f"{type(model).__name__}")
    was_training = model.training
    model.eval()
    device = model_device(model)
    correct = torch.zeros(len(src), dtype=torch.bool)
    for start in range(0, len(src), max(1, batch_size)):
        sl = slice(start, start + batch_size)
        tokens = model.greedy(src[sl].to(device), src_lengths[sl].to(device), max_len=max_len)[0].cpu()
        correct[sl] = sequence_accuracy(tokens, tgt_out[sl].cpu())
    model.train(was_training)
    return correct


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
        columns = {"model": ("model", ""), **{s: (f"step {s}", spread_cell) for s in self.checkpoints}}
        rows = [{"model": name, **{s: curve[:, j] for j, s in enumerate(self.checkpoints)}}
                for name, curve in self.curves.items()]
        return markdown_table(rows, columns)

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
    Trains on ``device`` (default :func:`~seqviz.config.pick_device`). Chapter 5 uses it for teacher forcing
    on/off and for the bottleneck at several state sizes.
    """
    if not isinstance(models, Mapping) or not models or not all(callable(m) for m in models.values()):
        raise ValueError("models must be a non-empty dict {label: function () -> model}")
    seeds = check_ints(seeds, "seeds", 0)
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    _check_data(train, "train")
    _check_data(valid, "valid")
    eval_every = eval_every or steps
    if not isinstance(eval_every, int) or isinstance(eval_every, bool) or not 1 <= eval_every <= steps:
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
        runs.parameters[name] = count_parameters(model)
        curve: list[float] = []

        def record(step, model, _record, curve=curve):
            if step in checkpoints:
                curve.append(exact_match(model, valid))

        history = fit(model, train, sequence_loss, steps=steps, batch_size=batch_size, lr=lr, device=device,
                      seed=seed, progress=False, callbacks=[record])
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


def learning_curve(model: nn.Module, train, valid, *, steps: int, points: int = 5, lr: float = 1e-3,
                   batch_size: int = 64, device=None, loss_fn=None, metric=None,
                   schedule=None) -> dict[str, list[float]]:
    """Train in ``points`` equal chunks with one optimiser; after each, the held-out metric.

    ``schedule(step) -> learning rate`` (steps counted from 1 over the whole run, e.g. a
    :func:`seqviz.train.warmup_lr`) replaces the constant ``lr``.

    Returns ``{"steps", "seconds", "accuracy"}``; ``seconds`` is cumulative training time
    only (the evaluations between chunks are not counted). Defaults: ``sequence_loss`` and
    teacher-forced ``token_accuracy`` for (src, src_lengths, tgt_in, tgt_out) data. The model is trained
    on ``device`` (default :func:`~seqviz.config.pick_device`), as :func:`seqviz.train.fit` does.
    """
    loss_fn = loss_fn or sequence_loss
    metric = metric or token_accuracy
    (steps,) = check_ints([steps], "steps", 1)
    if not isinstance(points, int) or isinstance(points, bool) or not 1 <= points <= steps:
        raise ValueError(f"points must be an int in 1..steps ({steps}), got {points!r}")
    device = torch.device(device) if device is not None else pick_device()
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    curve: dict[str, list[float]] = {"steps": [], "seconds": [], "accuracy": []}
    done, seconds = 0, 0.0
    for i in range(points):
        chunk = (steps * (i + 1)) // points - done
        callbacks = [schedule_callback(optimizer, schedule, start=done)] if schedule is not None else []
        history = fit(model, train, loss_fn, steps=chunk, batch_size=batch_size, optimizer=optimizer, device=device,
                      seed=i, progress=False, callbacks=callbacks)
        done, seconds = done + chunk, seconds + history.seconds
        curve["steps"].append(done)
        curve["seconds"].append(seconds)
        curve["accuracy"].append(evaluate(model, valid, {"acc": metric}, device=device)["acc"])
    return curve
