"""One training loop for every chapter. It knows nothing about the model it trains.

``fit(model, (inputs..., targets), loss_fn, steps=...)`` samples minibatches, steps an
optimiser, optionally clips gradients (by norm or by value), shows a ``tqdm.auto``
bar, guards against NaN/inf losses and returns a :class:`History`. Extra behaviour goes
in through ``callbacks``: ``callback(step, model, record)``; returning True stops.

Three hooks serve long runs (``make checkpoints``) without changing what a chapter's call does:
``schedule(step) -> factor`` multiplies the learning rate (:func:`warmup_schedule`: a linear warm-up,
then a cosine, linear or inverse-square-root decay; Vaswani et al., 2017; Loshchilov and Hutter, 2017);
``sampler(generator, batch_size) -> row indices`` chooses each minibatch (:func:`length_buckets`: rows of
similar length together, so a batch carries little padding); ``collate(batch) -> batch`` reshapes it
(e.g. :func:`seqviz.data.trim_padding`) before it goes to the device.

A learning-rate schedule is such a callback: :func:`schedule_callback` sets the optimiser's rate
before every step from ``schedule(step)``, and :func:`warmup_lr` is the Transformer's schedule (a linear
warm-up, then a decay with the inverse square root of the step; Vaswani et al. 2017). Used by chapter 8.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from .config import pick_device, progress as progress_bar
from .measure import Stopwatch


class TrainingDiverged(RuntimeError):
    """The loss or the gradient norm became NaN or infinite."""


@dataclass
class History:
    """What happened during :func:`fit`: one record (a dict) per logged step."""

    records: list[dict] = field(default_factory=list)
    diverged_at: int | None = None
    seconds: float = 0.0

    def __getitem__(self, key: str) -> list:
        """``history["loss"]``: the values of one field, in order (records without it skipped)."""
        values = [r[key] for r in self.records if key in r]
        if not values and self.records:
            raise KeyError(f"no record has {key!r}; fields: {sorted({k for r in self.records for k in r})}")
        return values

    def steps(self, key: str) -> list[int]:
        return [r["step"] for r in self.records if key in r]

    def last(self, key: str):
        return self[key][-1]

    def __repr__(self) -> str:
        keys = sorted({k for r in self.records for k in r} - {"step"})
        tail = f", diverged_at={self.diverged_at}" if self.diverged_at is not None else ""
        return f"History({len(self.records)} records: {', '.join(keys)}; {self.seconds:.1f} s{tail})"


def accuracy(logits: torch.Tensor, targets: torch.Tensor) -> float:
    """Share of argmax predictions equal to the targets (over the last dimension of logits)."""
    return (logits.argmax(-1) == targets).float().mean().item()


DECAYS = ("constant", "cosine", "linear", "inverse_sqrt")


def warmup_schedule(warmup: int, total: int, decay: str = "cosine", floor: float = 0.0) -> Callable[[int], float]:
    """A learning-rate factor per step (1-based) for :func:`fit`'s ``schedule``: it rises linearly from
    ``1/warmup`` to 1 over the first ``warmup`` steps, then ``decay``s: ``"constant"`` (stays 1), ``"cosine"``
    (half a cosine down to ``floor`` at step ``total``), ``"linear"`` (a straight line down to ``floor``) or
    ``"inverse_sqrt"`` (``sqrt(warmup / step)``, the Transformer's schedule, never below ``floor``)."""
    for name, value in (("warmup", warmup), ("total", total)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    if total < 1 or warmup > total:
        raise ValueError(f"need 0 <= warmup <= total and total >= 1, got warmup={warmup}, total={total}")
    if decay not in DECAYS:
        raise ValueError(f"decay must be one of {DECAYS}, got {decay!r}")
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0.0 <= floor <= 1.0:
        raise ValueError(f"floor must be a number in [0, 1] (a share of the peak rate), got {floor!r}")

    def factor(step: int) -> float:
        if step <= warmup:
            return step / warmup
        if decay == "constant":
            return 1.0
        if decay == "inverse_sqrt":
            return max(floor, math.sqrt(max(1, warmup) / step))
        progress = min(1.0, (step - warmup) / max(1, total - warmup))  # 0 after warm-up, 1 at the last step
        shape = 0.5 * (1.0 + math.cos(math.pi * progress)) if decay == "cosine" else 1.0 - progress
        return floor + (1.0 - floor) * shape

    return factor


def length_buckets(lengths, batch_size: int, bucket_size: int | None = None) -> Callable:
    """A ``sampler`` for :func:`fit` that draws each minibatch from rows of similar length.

    The rows are sorted by ``lengths`` (ties in a fixed random order) and cut into buckets of ``bucket_size``
    rows (default ``50 * batch_size``); a step picks one bucket at random, with a chance proportional to its
    rows, and ``batch_size`` rows inside it. Every row keeps the same chance of being drawn as with plain random
    sampling, but a batch's rows differ little in length, so :func:`seqviz.data.trim_padding` can cut most of
    the padding. Deterministic for a given ``generator``."""
    lengths = torch.as_tensor(lengths)
    if lengths.dim() != 1 or lengths.numel() == 0 or lengths.dtype.is_floating_point:
        raise ValueError(f"lengths must be a non-empty 1-D tensor of ints (one per row), got "
                         f"{tuple(lengths.shape)} {lengths.dtype}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    bucket_size = bucket_size or 50 * batch_size
    if isinstance(bucket_size, bool) or not isinstance(bucket_size, int) or bucket_size < batch_size:
        raise ValueError(f"bucket_size must be an int >= batch_size ({batch_size}), got {bucket_size!r}")
    jitter = torch.rand(lengths.numel(), generator=torch.Generator().manual_seed(0))
    order = torch.argsort(lengths.double() + 0.5 * jitter)  # sorted by length, ties shuffled once
    buckets = list(order.split(bucket_size))
    sizes = torch.tensor([len(b) for b in buckets], dtype=torch.double)

    def sample(generator: torch.Generator, size: int) -> torch.Tensor:
        bucket = buckets[int(torch.multinomial(sizes, 1, generator=generator))]
        return bucket[torch.randint(len(bucket), (min(size, len(bucket)),), generator=generator)]

    return sample


def _split(data, name):
    if not isinstance(data, (tuple, list)) or len(data) < 2:
        raise ValueError(f"{name} must be a tuple (inputs..., targets) of tensors, got {type(data).__name__}")
    n = data[0].shape[0]
    for i, t in enumerate(data):
        if not isinstance(t, torch.Tensor) or t.shape[0] != n:
            raise ValueError(f"{name}[{i}] must be a tensor with {n} rows like {name}[0], got "
                             f"{tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__}")
    return n


@torch.no_grad()
def evaluate(model: nn.Module, data: Sequence[torch.Tensor], metrics: dict[str, Callable], loss_fn=None,
             batch_size: int = 512, device=None) -> dict[str, float]:
    """Average ``metrics`` (and the loss, if given) over ``data`` = (inputs..., targets), where the model is
    (each batch is moved there; ``device`` overrides)."""
    n = _split(data, "data")
    device = device or next(model.parameters()).device
    was_training = model.training
    model.eval()
    totals: dict[str, float] = {}
    for start in range(0, n, batch_size):
        batch = [t[start : start + batch_size].to(device) for t in data]
        output = model(*batch[:-1])
        scores = {k: fn(output, batch[-1]) for k, fn in metrics.items()}
        if loss_fn is not None:
            scores["loss"] = float(loss_fn(output, batch[-1]))
        for k, v in scores.items():
            totals[k] = totals.get(k, 0.0) + float(v) * batch[0].shape[0]
    model.train(was_training)
    return {k: v / n for k, v in totals.items()}


def warmup_lr(step: int, *, peak: float, warmup: int, decay: bool = True, warm: bool = True) -> float:
    """The learning rate at ``step`` (counted from 1) of the Transformer's schedule: a linear rise to ``peak`` over
    the first ``warmup`` steps, then, with ``decay``, ``peak * sqrt(warmup / step)`` (Vaswani et al. 2017, eq. 3,
    with its scale ``d_model ** -0.5 * warmup ** -0.5`` written as ``peak``).

    ``warm=False`` is the same schedule without its warm-up: the rate holds ``peak`` over the first ``warmup``
    steps instead of rising to it, and decays as before (chapter 8 compares the two)."""
    if not isinstance(step, int) or step < 1:
        raise ValueError(f"step counts from 1, got {step!r}")
    if not (isinstance(warmup, int) and warmup >= 1) or not peak > 0:
        raise ValueError(f"warmup must be an int >= 1 and peak > 0, got warmup={warmup!r}, peak={peak!r}")
    if step <= warmup:
        return peak * step / warmup if warm else peak
    return peak * math.sqrt(warmup / step) if decay else peak


def schedule_callback(optimizer: torch.optim.Optimizer, schedule: Callable[[int], float], start: int = 0):
    """A :func:`fit` callback that sets every parameter group's learning rate to ``schedule(start + step + 1)``
    after step ``step``, and sets the rate of the first step (``schedule(start + 1)``) now."""
    def set_rate(step: int) -> None:
        for group in optimizer.param_groups:
            group["lr"] = schedule(step)

    set_rate(start + 1)

    def callback(step, model, record):
        record["lr"] = optimizer.param_groups[0]["lr"]  # the rate this step was taken with
        set_rate(start + step + 1)
        return False

    return callback


def fit(model: nn.Module, train: Sequence[torch.Tensor], loss_fn: Callable, *, steps: int, batch_size: int = 32,
        lr: float = 1e-3, optimizer: torch.optim.Optimizer | None = None, clip_norm: float | None = None,
        clip_value: float | None = None, valid: Sequence[torch.Tensor] | None = None,
        metrics: dict[str, Callable] | None = None, eval_every: int | None = None, log_every: int = 1,
        device=None, seed: int = 0, progress: bool = True, on_nonfinite: str = "raise",
        callbacks: Sequence[Callable] = (), desc: str = "training", schedule: Callable[[int], float] | None = None,
        sampler: Callable | None = None, collate: Callable | None = None) -> History:
    """Train ``model`` for ``steps`` minibatch updates and return the :class:`History`.

    ``train`` and ``valid`` are tuples ``(inputs..., targets)``; the model is called as
    ``model(*inputs)`` and the loss as ``loss_fn(output, targets)``. Each record holds
    ``step``, ``loss`` and ``grad_norm`` (before clipping); every ``eval_every`` steps
    (and at the end) ``valid_<metric>`` for each metric. ``on_nonfinite="raise"`` stops
    with :class:`TrainingDiverged` at the first NaN/inf loss or gradient; ``"stop"``
    records where it happened (``history.diverged_at``) and returns. ``device`` (default
    :func:`~seqviz.config.pick_device`) is where the model is moved and trained; the data may stay on the
    CPU (each minibatch is moved), and the model stays on ``device`` afterwards.

    ``schedule(step)`` multiplies every parameter group's learning rate at that step (:func:`warmup_schedule`);
    each record then holds the ``lr`` used. ``sampler(generator, batch_size)`` returns the row indices of a
    minibatch (default: uniformly at random; :func:`length_buckets`); ``collate(batch)`` maps the list of
    indexed tensors to the list the model and loss read (e.g. :func:`seqviz.data.trim_padding`).
    """
    n = _split(train, "train")
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    if on_nonfinite not in ("raise", "stop"):
        raise ValueError(f"on_nonfinite must be 'raise' or 'stop', got {on_nonfinite!r}")
    if valid is not None:
        _split(valid, "valid")
    metrics = dict(metrics or {})
    device = torch.device(device) if device is not None else pick_device()
    model.to(device)
    for name, hook in (("schedule", schedule), ("sampler", sampler), ("collate", collate)):
        if hook is not None and not callable(hook):
            raise ValueError(f"{name} must be a function or None, got {type(hook).__name__}")
    optimizer = optimizer or torch.optim.Adam(model.parameters(), lr=lr)
    base_lrs = [group["lr"] for group in optimizer.param_groups]
    generator = torch.Generator().manual_seed(seed)
    history = History()
    eval_every = eval_every or steps
    clock = Stopwatch(device).start()   # the run's wall-clock seconds, read after the device has finished

    bar = progress_bar(range(1, steps + 1), desc=desc, disable=not progress, leave=False)
    model.train()
    for step in bar:
        index = sampler(generator, batch_size) if sampler is not None else \
            torch.randint(n, (min(batch_size, n),), generator=generator)
        batch = [t[index] for t in train]
        batch = [t.to(device) for t in (collate(batch) if collate is not None else batch)]
        output = model(*batch[:-1])
        loss = loss_fn(output, batch[-1])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        grad_norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads])).item() \
            if grads else 0.0
        record = {"step": step, "loss": loss.item(), "grad_norm": grad_norm}
        if schedule is not None:
            factor = float(schedule(step))
            for group, base in zip(optimizer.param_groups, base_lrs):
                group["lr"] = base * factor
            record["lr"] = base_lrs[0] * factor
        if not (math.isfinite(record["loss"]) and math.isfinite(grad_norm)):
            history.records.append(record)
            history.diverged_at = step
            if on_nonfinite == "raise":
                bar.close()
                raise TrainingDiverged(
                    f"step {step}: loss = {record['loss']}, gradient norm = {grad_norm}. Training diverged; "
                    f"try a lower learning rate (lr={lr}) or clip the gradients (clip_norm=1.0)")
            break
        if clip_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        if clip_value is not None:
            nn.utils.clip_grad_value_(model.parameters(), clip_value)
        optimizer.step()
        if valid is not None and (step % eval_every == 0 or step == steps):
            scores = evaluate(model, valid, metrics, loss_fn, device=device)
            record.update({f"valid_{k}": v for k, v in scores.items()})
            bar.set_postfix({k: f"{v:.3f}" for k, v in scores.items()})
        if step % log_every == 0 or step == steps or any(k.startswith("valid_") for k in record):
            history.records.append(record)
        if any(cb(step, model, record) for cb in callbacks):
            break
    bar.close()
    history.seconds = clock.stop()
    return history
