"""The measurement layer: how long, how much memory, how it grows, how many parameters, and the tables.

- :func:`time_call`: the median time of a function, repeated until the clock is trustworthy, waiting for the
  accelerator (a GPU runs its work asynchronously); :class:`Stopwatch`: the wall and CPU seconds of a long job,
  paused while it does something else (training time without its evaluations);
  :func:`time_samples`: every repeat, for
  ``seqviz.book.compare_times``, which judges two timings only beyond their spread;
- :func:`activation_bytes`: the one way the book measures what a training step keeps for backward;
- :func:`fit_power_law`, :func:`crossover`, :func:`fitted_growth`: ``y ~ c * x^p`` by least squares on
  log-log axes, where two such fits cross, and the growth a fit reads over a range; :func:`power_law_fit` and
  :func:`crossover_interval`: the same fit with its uncertainty (standard errors, bootstrap intervals) and where
  two fitted families cross, with an interval (scaling laws, chapter 9b);
- :func:`count_parameters`, :func:`match_parameters`: parameter counts, and the size that matches one;
- :func:`largest_difference`: how far a from-scratch model is from PyTorch's built-in, outputs and gradients;
- :func:`measure`: parameters, inference latency and activation memory of one model;
- :func:`markdown_table` and :func:`spread_cell`: the one writer of markdown tables (chapters, the tables of
  :mod:`seqviz.experiments`, ``benchmarks/``), and the "mean (min–max)" cell of a result over seeds.

Nothing here defines a model, trains one or draws. Used by chapters 3, 7, 8 and 10, by
:mod:`seqviz.experiments` and :mod:`seqviz.guide`, and by ``benchmarks/``.

**Activation memory.** Backpropagation needs some of the forward pass's tensors again (the input of every
matrix product, the output of every tanh, the attention weights ...). Autograd hands each of them to a
``torch.autograd.graph.saved_tensors_hooks`` pack hook when it saves it; :func:`activation_bytes` counts
each **storage** once (a tensor saved by two operations, or saved as a view of a larger buffer, costs memory
once, the whole buffer) and **no parameters** (a saved tensor whose root is a leaf that requires grad is a
weight, which exists whatever the length or batch). What is left grows with the batch and the length. The
count does not depend on the device or the allocator, so it reads the same on a CPU and a GPU.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from .book import readable, translate
from .config import model_device

__all__ = ["CrossoverEstimate", "PowerLawFit", "Stopwatch", "activation_bytes", "check_ints", "count_parameters",
           "crossover", "crossover_interval", "fit_power_law", "fitted_growth", "interleaved_samples",
           "largest_difference", "markdown_table", "match_parameters", "measure", "power_law_fit", "spread_cell",
           "time_call", "time_samples"]


def check_ints(values, name: str, minimum: int) -> list[int]:
    """``values`` as a non-empty list of ints ``>= minimum``, or a ``ValueError`` naming ``name``."""
    values = list(values) if isinstance(values, (list, tuple, range)) else values
    if not isinstance(values, list) or not values:
        raise ValueError(f"{name} must be a non-empty list of ints, got {values!r}")
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
            raise ValueError(f"{name} must hold ints >= {minimum}, got {v!r}")
    return values


# -- time ---------------------------------------------------------------------------------------------------


def _sync(device):
    """Wait for the accelerator: a GPU runs its work asynchronously, so a clock read without this misses it."""
    kind = torch.device(device).type if device is not None else ("cuda" if torch.cuda.is_available() else "cpu")
    if kind == "cuda" and torch.cuda.is_initialized():
        torch.cuda.synchronize()
    elif kind == "mps":
        torch.mps.synchronize()


def _check_positive_number(value, name: str, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be a finite number {'>=' if allow_zero else '>'} 0, got {value!r}")
    return float(value)


def time_call(fn: Callable, *, min_time: float = 0.02, repeats: int = 3, device=None) -> float:
    """Median seconds per call of ``fn()``, after one warm-up call.

    Each of ``repeats`` measurements runs ``fn`` as many times as needed to last at least
    ``min_time`` seconds (0: once), so that fast calls are not lost in the clock's resolution. ``device``
    is where ``fn`` works (default: CUDA if present), so the clock waits for it.
    """
    return statistics.median(time_samples(fn, min_time=min_time, repeats=repeats, device=device))


def time_samples(fn: Callable, *, min_time: float = 0.02, repeats: int = 3, device=None) -> list[float]:
    """Seconds per call of ``fn()`` in each of ``repeats`` measurements (what :func:`time_call` takes the median
    of): one warm-up call, then each measurement runs ``fn`` often enough to last ``min_time``."""
    if not callable(fn):
        raise ValueError(f"time_call expects a function to call, got {type(fn).__name__}")
    min_time = _check_positive_number(min_time, "min_time", allow_zero=True)
    (repeats,) = check_ints([repeats], "repeats", 1)
    fn()
    _sync(device)
    start = time.perf_counter()
    fn()
    _sync(device)
    once = max(time.perf_counter() - start, 1e-7)
    inner = max(1, math.ceil(min_time / once))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        _sync(device)
        samples.append((time.perf_counter() - start) / inner)
    return samples


def interleaved_samples(fns: Mapping[str, Callable], *, min_time: float = 0.02, repeats: int = 3,
                        device=None) -> dict[str, list[float]]:
    """Seconds per call of each function of ``fns``, ``repeats`` times, taking turns: repeat r of every function
    runs before repeat r + 1 of any, so that a burst of load on a shared machine falls on all of them alike
    instead of on whichever was being timed then (:func:`time_samples` times one function). Each function is
    warmed up once and called often enough per repeat to last ``min_time``."""
    if not isinstance(fns, Mapping) or not fns or not all(callable(f) for f in fns.values()):
        raise ValueError(f"interleaved_samples expects a non-empty {{name: function}} mapping, got {fns!r}")
    min_time = _check_positive_number(min_time, "min_time", allow_zero=True)
    (repeats,) = check_ints([repeats], "repeats", 1)
    inner = {}
    for name, fn in fns.items():
        fn()  # warm-up
        _sync(device)
        start = time.perf_counter()
        fn()
        _sync(device)
        inner[name] = max(1, math.ceil(min_time / max(time.perf_counter() - start, 1e-7)))
    samples = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(inner[name]):
                fn()
            _sync(device)
            samples[name].append((time.perf_counter() - start) / inner[name])
    return samples


class Stopwatch:
    """Seconds of work, read only after the accelerator has finished it: the book's one clock besides
    :func:`time_call`, for a runner that trains against a time budget or times one long job.

    ``clock = Stopwatch(device)``; ``clock.start()`` ... ``clock.stop()`` adds the interval to ``clock.seconds``
    (start and stop may alternate, to leave evaluation off the clock); ``clock.elapsed()`` is the total so far,
    the running interval included. Also a context manager: ``with Stopwatch(device) as clock: ...``.

    A long job that pauses (``make checkpoints``: evaluations are not training time) uses ``pause()`` and
    ``resume()``, which do nothing when the clock is already paused or running, and reads ``wall`` (the same
    seconds as ``elapsed()``) and ``cpu``: this process's CPU seconds while running, all threads. The CPU
    seconds of a one-thread job on a busy machine are close to the wall seconds it would take on a quiet one.
    ``Stopwatch(running=True)`` starts at once.
    """

    def __init__(self, device=None, *, running: bool = False):
        self.device = device
        self.seconds = 0.0
        self._cpu = 0.0
        self._since: tuple[float, float] | None = None
        if running:
            self.start()

    def start(self) -> Stopwatch:
        if self._since is not None:
            raise ValueError("the stopwatch is already running: stop() it first")
        _sync(self.device)
        self._since = (time.perf_counter(), time.process_time())
        return self

    def stop(self) -> float:
        if self._since is None:
            raise ValueError("the stopwatch is not running: start() it first")
        _sync(self.device)
        self.seconds += time.perf_counter() - self._since[0]
        self._cpu += time.process_time() - self._since[1]
        self._since = None
        return self.seconds

    def resume(self) -> Stopwatch:
        return self if self._since is not None else self.start()

    def pause(self) -> Stopwatch:
        if self._since is not None:
            self.stop()
        return self

    def elapsed(self) -> float:
        if self._since is None:
            return self.seconds
        _sync(self.device)
        return self.seconds + time.perf_counter() - self._since[0]

    @property
    def wall(self) -> float:
        """Seconds on the wall clock while running (as :meth:`elapsed`)."""
        return self.elapsed()

    @property
    def cpu(self) -> float:
        """CPU seconds of this process while running."""
        if self._since is None:
            return self._cpu
        return self._cpu + time.process_time() - self._since[1]

    @property
    def running(self) -> bool:
        return self._since is not None

    def __enter__(self) -> Stopwatch:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# -- memory -------------------------------------------------------------------------------------------------


def _is_parameter(tensor: torch.Tensor) -> bool:
    root = tensor._base if tensor._base is not None else tensor
    return root.is_leaf and root.requires_grad


def activation_bytes(fn: Callable[[], object], *, return_result: bool = False):
    """Bytes of the tensors autograd saves for backward while ``fn()`` runs, parameters excluded,
    each storage counted once (see the module docstring).

    ``fn`` builds the graph (e.g. ``lambda: model(x)[0].pow(2).mean()``); call ``backward`` on its
    result afterwards if you need the gradients. Returns the byte count, or ``(fn's result, bytes)``
    with ``return_result=True``.
    """
    if not callable(fn):
        raise ValueError(f"activation_bytes expects a function that runs the forward pass, got {type(fn).__name__}")
    if not torch.is_grad_enabled() or torch.is_inference_mode_enabled():
        raise ValueError("activation_bytes needs gradients on: under torch.no_grad() (or inference_mode) autograd "
                         "saves nothing, so the count would be 0 whatever the model; call it outside no_grad")
    storages: dict[tuple, int] = {}
    held = []  # keep every saved tensor alive until the count is done, so no address is reused meanwhile

    def pack(tensor):
        if tensor.layout == torch.strided and not _is_parameter(tensor):
            storage = tensor.untyped_storage()
            storages[(tensor.device.type, tensor.device.index, storage.data_ptr())] = storage.nbytes()
            held.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        result = fn()
    total = sum(storages.values())
    outputs = _tensors(result)
    if not storages and outputs and not any(t.requires_grad for t in outputs):
        raise ValueError("fn's result does not require grad: autograd recorded no graph (no_grad inside fn, or "
                         "nothing that requires grad), so there is nothing saved for a backward pass to count")
    held.clear()
    return (result, total) if return_result else total


# -- growth -------------------------------------------------------------------------------------------------


def _positive_values(values, name: str) -> list[float]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise ValueError(f"{name} must be a sequence of numbers, got {values!r}")
    values = list(values.tolist() if hasattr(values, "tolist") else values)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise ValueError(f"{name} must hold finite numbers > 0 (a power law lives on log-log axes), got {v!r}")
    return [float(v) for v in values]


def fit_power_law(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """``(p, c)`` with ``y ~ c * x^p``: least squares of log y on log x. Needs at least two distinct ``x``,
    every value finite and positive."""
    x, y = _positive_values(x, "x"), _positive_values(y, "y")
    if len(x) < 2 or len(x) != len(y):
        raise ValueError(f"need at least two (x, y) points of equal count, got {len(x)} and {len(y)}")
    if len(set(x)) < 2:
        raise ValueError(f"x must hold at least two distinct values to fit a slope, got {x}")
    lx = torch.tensor([math.log(v) for v in x], dtype=torch.float64)
    ly = torch.tensor([math.log(v) for v in y], dtype=torch.float64)
    A = torch.stack([lx, torch.ones_like(lx)], 1)  # (n, 2)
    p, log_c = torch.linalg.lstsq(A, ly[:, None]).solution[:, 0].tolist()
    return p, math.exp(log_c)


def _check_fit(fit, name: str) -> tuple[float, float]:
    if not isinstance(fit, (tuple, list)) or len(fit) != 2:
        raise ValueError(f"{name} must be a fit (p, c) as fit_power_law returns it, got {fit!r}")
    p, c = fit
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in fit) or c <= 0:
        raise ValueError(f"{name} must be (p, c) with finite p and c > 0 (y = c * x^p), got {fit!r}")
    return float(p), float(c)


def crossover(fit_a: tuple[float, float], fit_b: tuple[float, float]) -> float | None:
    """The x > 0 where ``c_a x^p_a = c_b x^p_b``, or None if the exponents are equal."""
    (pa, ca), (pb, cb) = _check_fit(fit_a, "fit_a"), _check_fit(fit_b, "fit_b")
    if abs(pa - pb) < 1e-12:
        return None
    return (cb / ca) ** (1.0 / (pa - pb))


def fitted_growth(xs: Sequence[float], ys: Sequence[float]) -> float:
    """How much ``y`` grows from the first ``x`` to the last, read from a power law fitted to every point
    (one slow timing at one end moves it less than the ratio of the two end points would)."""
    p, _ = fit_power_law(xs, ys)
    xs = _positive_values(xs, "xs")
    return (xs[-1] / xs[0]) ** p


@dataclass(frozen=True)
class PowerLawFit:
    """``y ~ coefficient * x^exponent``, least squares of log y on log x, with its uncertainty: the standard
    errors of ordinary least squares (nan with two points), the spread of log y about the line, and
    ``draws`` (D, 2) of (exponent, log coefficient) refitted on bootstrap resamples of the points, whose
    percentiles give ``exponent_interval`` at ``level``. Points along one training curve are not independent:
    read the intervals as a lower bound on the uncertainty."""

    exponent: float
    coefficient: float
    exponent_se: float
    log_coefficient_se: float
    residual_sd: float
    n: int
    x_range: tuple[float, float]
    level: float
    exponent_interval: tuple[float, float]
    draws: torch.Tensor = field(repr=False)

    def predict(self, x):
        """The fitted ``y`` at ``x`` (a number, or a sequence of them)."""
        if isinstance(x, (int, float)):
            return self.coefficient * x ** self.exponent
        return [self.coefficient * float(v) ** self.exponent for v in x]


def _log_points(x, y) -> tuple[torch.Tensor, torch.Tensor]:
    x, y = list(x), list(y)
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"need at least two (x, y) points of equal count, got {len(x)} and {len(y)}")
    bad = [(a, b) for a, b in zip(x, y) if not (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                                 and math.isfinite(a) and math.isfinite(b) and a > 0 and b > 0)]
    if bad:
        raise ValueError(f"a power law needs finite x > 0 and y > 0; got {bad[:3]}")
    if len(set(x)) < 2:
        raise ValueError(f"need at least two different x values to fit a slope, got only x = {x[0]}")
    return (torch.tensor([math.log(v) for v in x], dtype=torch.float64),
            torch.tensor([math.log(v) for v in y], dtype=torch.float64))


def _line(lx: torch.Tensor, ly: torch.Tensor) -> tuple[float, float]:
    A = torch.stack([lx, torch.ones_like(lx)], 1)  # (n, 2)
    p, log_c = torch.linalg.lstsq(A, ly[:, None]).solution[:, 0].tolist()
    return p, log_c


def power_law_fit(x: Sequence[float], y: Sequence[float], *, level: float = 0.9, draws: int = 1000,
                  seed: int = 0) -> PowerLawFit:
    """Fit ``y ~ c * x^p`` (:class:`PowerLawFit`), with ``draws`` bootstrap refits (resampled points, a seeded
    generator: the same numbers on every run). Used for loss against compute (Kaplan et al., 2020)."""
    lx, ly = _log_points(x, y)
    if not 0 < level < 1 or not isinstance(draws, int) or draws < 10:
        raise ValueError(f"level must be in (0, 1) and draws an int >= 10, got level={level!r}, draws={draws!r}")
    n = lx.numel()
    p, log_c = _line(lx, ly)
    residuals = ly - (p * lx + log_c)
    if n > 2:
        sigma2 = float(residuals.pow(2).sum()) / (n - 2)
        sxx = float((lx - lx.mean()).pow(2).sum())
        p_se = math.sqrt(sigma2 / sxx)
        c_se = math.sqrt(sigma2 * (1 / n + float(lx.mean()) ** 2 / sxx))
    else:
        sigma2, p_se, c_se = 0.0, math.nan, math.nan
    g = torch.Generator().manual_seed(seed)
    refits = []
    while len(refits) < draws:
        pick = torch.randint(0, n, (n,), generator=g)
        if lx[pick].unique().numel() < 2:
            continue  # a resample with one x value has no slope: draw again
        refits.append(_line(lx[pick], ly[pick]))
    table = torch.tensor(refits, dtype=torch.float64)  # (draws, 2)
    tail = (1 - level) / 2
    low, high = torch.quantile(table[:, 0], torch.tensor([tail, 1 - tail], dtype=torch.float64)).tolist()
    return PowerLawFit(p, math.exp(log_c), p_se, c_se, math.sqrt(sigma2), n, (min(x), max(x)), level, (low, high),
                       table)


@dataclass(frozen=True)
class CrossoverEstimate:
    """Where two fitted power laws cross: ``x`` from the two fits (None if parallel), ``interval`` the
    percentiles at ``level`` of the crossings of paired bootstrap draws (parallel draws count as never),
    ``share_in_range`` the share of draws that cross inside ``x_range`` (every x either fit was measured at),
    and ``a_lower_before``: whether fit a is the lower one to the left of the crossing."""

    x: float | None
    interval: tuple[float, float]
    level: float
    share_in_range: float
    x_range: tuple[float, float]
    a_lower_before: bool | None

    @property
    def inside(self) -> bool:
        """True when the fits cross inside the measured range (no extrapolation needed to see it)."""
        return self.x is not None and self.x_range[0] <= self.x <= self.x_range[1]


def crossover_interval(fit_a: PowerLawFit, fit_b: PowerLawFit) -> CrossoverEstimate:
    """The crossing of two :class:`PowerLawFit` s and its uncertainty (:class:`CrossoverEstimate`): each bootstrap
    draw of ``fit_a`` is paired with the same-numbered draw of ``fit_b`` (independent resamples)."""
    if not isinstance(fit_a, PowerLawFit) or not isinstance(fit_b, PowerLawFit):
        raise ValueError(f"crossover_interval needs two PowerLawFit (power_law_fit), got {type(fit_a).__name__} "
                         f"and {type(fit_b).__name__}")
    x = crossover((fit_a.exponent, fit_a.coefficient), (fit_b.exponent, fit_b.coefficient))
    k = min(len(fit_a.draws), len(fit_b.draws))
    (pa, ca), (pb, cb) = fit_a.draws[:k].T, fit_b.draws[:k].T
    slope = pa - pb
    log_x = torch.where(slope.abs() > 1e-12, (cb - ca) / slope.where(slope.abs() > 1e-12, torch.ones_like(slope)),
                        torch.full_like(slope, math.inf))  # log of each draw's crossing; parallel: never
    lo, hi = min(fit_a.x_range[0], fit_b.x_range[0]), max(fit_a.x_range[1], fit_b.x_range[1])
    share = float(((log_x >= math.log(lo)) & (log_x <= math.log(hi))).double().mean())
    tail = (1 - fit_a.level) / 2
    sorted_x = log_x.sort().values
    low, high = (float(sorted_x[min(k - 1, int(q * (k - 1) + 0.5))].exp()) for q in (tail, 1 - tail))
    before = None
    if x is not None:
        left = x / 10
        before = fit_a.predict(left) < fit_b.predict(left)
    return CrossoverEstimate(x, (low, high), fit_a.level, share, (lo, hi), before)


# -- parameters and one model's costs -----------------------------------------------------------------------


def count_parameters(model: nn.Module) -> int:
    """The number of trainable numbers in ``model`` (a tied weight counts once, as ``parameters()`` yields it once)."""
    if not isinstance(model, nn.Module):
        raise ValueError(f"count_parameters expects a torch.nn.Module, got {type(model).__name__}")
    return sum(p.numel() for p in model.parameters())


def _tensors(result) -> list[torch.Tensor]:
    """The tensors in a model's result, in order: ``out``, ``(out, state)``, ``(out, (h, c))`` ..."""
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [t for part in result for t in _tensors(part)]
    return []  # None, a trace dict: not compared


def largest_difference(ours: nn.Module, theirs: nn.Module, inputs: Sequence, their_inputs: Sequence | None = None,
                       *, gradients: bool = False) -> float:
    """The largest ``|ours - theirs|`` between two models given the same input: the proof that a from-scratch
    model equals PyTorch's built-in (chapters 4 and 8).

    Compares the tensors the two return, in order, up to the fewer of them (a from-scratch layer may also
    return its attention weights), called as ``ours(*inputs)`` and ``theirs(*their_inputs)`` (the built-in
    may take its mask the other way round). With ``gradients=True`` it also compares the gradient of every
    parameter, in order, of one fixed loss of the first output (its weighted sum with a ramp from -1 to 1).
    """
    for name, model in (("ours", ours), ("theirs", theirs)):
        if not isinstance(model, nn.Module):
            raise ValueError(f"largest_difference compares two torch.nn.Modules; {name} is a {type(model).__name__}")
    for name, args in (("inputs", inputs), ("their_inputs", their_inputs)):
        if args is not None and (isinstance(args, torch.Tensor) or not isinstance(args, (tuple, list))):
            raise ValueError(f"{name} must be a tuple of the arguments, e.g. (x,), got {type(args).__name__}")
    if not inputs:
        raise ValueError("largest_difference needs the inputs to call the models with, e.g. (x,)")
    outputs, grads = [], []
    for model, args in ((ours, inputs), (theirs, inputs if their_inputs is None else their_inputs)):
        with torch.set_grad_enabled(gradients):
            tensors = _tensors(model(*args))
            if not tensors:
                raise ValueError(f"{type(model).__name__} returned no tensor to compare")
            if gradients:
                out = tensors[0]
                ramp = torch.linspace(-1, 1, out.numel(), device=out.device).view_as(out)  # any fixed loss will do
                grads.append(torch.autograd.grad((out * ramp).sum(), list(model.parameters())))
        outputs.append(tensors)
    if gradients and len(grads[0]) != len(grads[1]):
        raise ValueError(f"the two models have {len(grads[0])} and {len(grads[1])} parameters; "
                         "copy one into the other first")
    pairs = list(zip(*outputs)) + (list(zip(*grads)) if gradients else [])
    for a, b in pairs:
        if a.shape != b.shape:
            raise ValueError(f"the models give tensors of shapes {tuple(a.shape)} and {tuple(b.shape)}")
    return max((a.detach() - b.detach()).abs().max().item() for a, b in pairs)


def match_parameters(make: Callable[[int], nn.Module], target: int, sizes: Sequence[int]) -> tuple[int, int]:
    """``(size, parameters)``: the size among ``sizes`` whose ``make(size)`` has the parameter count nearest ``target``.

    Chapter 7 uses it to give the translator without attention a larger hidden state, so that both
    translators have (nearly) the same number of parameters. Ties go to the smaller size.
    """
    if not callable(make):
        raise ValueError(f"make must be a function size -> model, got {type(make).__name__}")
    sizes = check_ints(sizes, "sizes", 1)
    if not isinstance(target, int) or isinstance(target, bool) or target < 1:
        raise ValueError(f"target must be a positive int (a parameter count), got {target!r}")
    counts = {size: count_parameters(make(size)) for size in sizes}
    best = min(sorted(counts), key=lambda size: abs(counts[size] - target))
    return best, counts[best]


def measure(model: nn.Module, inputs: Sequence[torch.Tensor], one: Sequence[torch.Tensor], *,
            loss: Callable | None = None, infer: Callable | None = None, min_time: float = 0.01,
            repeats: int = 3) -> dict:
    """``{"parameters", "latency_ms", "memory_kb"}`` of ``model``.

    ``latency_ms``: median time of one no-grad ``infer(*one)`` (default: the forward) on a single example;
    ``memory_kb``: what a training step on ``inputs`` keeps for backward (:func:`activation_bytes`), in KiB.
    Runs where the model is: ``inputs`` and ``one`` are moved there. Chapter 10's rows use it.
    """
    device = model_device(model)
    inputs, one = [t.to(device) for t in inputs], [t.to(device) for t in one]
    loss = loss or (lambda out: out.float().pow(2).mean())
    was_training = model.training
    model.eval()
    infer = infer or model

    def call():
        with torch.no_grad():
            infer(*one)

    latency = time_call(call, min_time=min_time, repeats=repeats, device=device)
    model.train()
    memory = activation_bytes(lambda: loss(model(*inputs)))
    model.zero_grad(set_to_none=True)
    model.train(was_training)
    return {"parameters": count_parameters(model), "latency_ms": 1e3 * latency, "memory_kb": memory / 1024}


# -- tables -------------------------------------------------------------------------------------------------


def spread_cell(values, scale: float = 100.0, show_range: bool = True) -> str:
    """``"mean (min–max)"`` of the runs in ``values`` (one number per seed), times ``scale``, one decimal;
    just ``"mean"`` for a single run or ``show_range=False``."""
    try:
        values = torch.as_tensor(values, dtype=torch.float64).flatten()
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"spread_cell needs numbers (one per run), got {values!r}") from None
    if values.numel() == 0:
        raise ValueError("spread_cell needs at least one value")
    if not bool(torch.isfinite(values).all()):
        raise ValueError(f"spread_cell needs finite values (a run that diverged has no place in a mean), got "
                         f"{values.tolist()}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale):
        raise ValueError(f"scale must be a finite number, got {scale!r}")
    cell = f"{scale * values.mean():.1f}"
    if show_range and values.numel() > 1:
        cell += f" ({scale * values.min():.1f}–{scale * values.max():.1f})"
    return cell


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _auto(value) -> str:
    """Numbers to 3 significant digits (large ones whole, with thousands separators; tiny ones as a power of ten,
    ``"1.23 × 10⁻⁵"``, never e-notation), the rest as ``str``."""
    if isinstance(value, float):
        if math.isfinite(value) and 0 < abs(value) < 1e-3:
            return readable(value, 3)
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def _escape(text: str) -> str:
    """A cell's text that cannot break its row: ``|`` escaped, a line break written as ``<br>``."""
    return re.sub(r"(?<!\\)\|", r"\\|", text).replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")


def _cell(value, fmt) -> str:
    if isinstance(value, str):  # words of the book (the reader's language where the catalogue has them) or data
        return _escape(translate(value, strict=False))
    if callable(fmt):
        return _escape(str(fmt(value)))
    if fmt == "%":
        if not _is_number(value):
            raise ValueError(f"a '%' column needs numbers, got {value!r}")
        return f"{100 * value:.1f}%"
    if fmt is None:
        return _escape(_auto(value))
    try:
        return _escape(format(value, fmt))
    except (TypeError, ValueError):
        raise ValueError(f"format {fmt!r} does not fit the value {value!r}") from None


def markdown_table(rows: Sequence[dict], columns=None) -> str:
    """``rows`` (dicts) as a markdown table, one line per row.

    ``columns`` says which keys, in order, under which header and in which format: ``None`` (every key of the
    first row), a list of keys, or a dict ``key -> header`` or ``key -> (header, format)``. A format is ``""``
    (text, left-aligned), ``"%"`` (a fraction as a percentage), a format spec (``","``, ``".2f"``), a function
    ``value -> str``, or ``None`` (numbers to 3 significant digits). A missing key leaves its cell empty. Number
    columns are right-aligned. Headers and string cells are written in the book's language where the catalogue
    has them (:func:`seqviz.book.translate`, not strict: a cell may be data, which stays as it is).
    """
    rows = list(rows)
    if not rows or not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"markdown_table needs a non-empty list of dicts, got {type(rows).__name__} of "
                         f"{len(rows)} rows")
    if columns is None:
        columns = list(rows[0])
    if isinstance(columns, (str, bytes)):
        raise ValueError(f"columns must be None, a list of keys or a dict key -> header, got the string {columns!r}")
    if not isinstance(columns, dict):
        columns = {key: str(key) for key in columns}
    if not columns:
        raise ValueError("markdown_table needs at least one column")
    spec = {}
    for key, value in columns.items():
        if isinstance(value, str):
            value = (value, None)
        if not (isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[0], str)):
            raise ValueError(f"column {key!r} must map to a header or (header, format), got {value!r}")
        spec[key] = (_escape(translate(value[0], strict=False)), value[1])

    def right(key, fmt):
        if fmt is not None:
            return fmt != ""
        present = [r[key] for r in rows if key in r]
        return bool(present) and all(_is_number(v) for v in present)

    head = "| " + " | ".join(header for header, _ in spec.values()) + " |"
    rule = "|" + "|".join("---:" if right(k, f) else "---" for k, (_, f) in spec.items()) + "|"
    body = ["| " + " | ".join(_cell(r[k], f) if k in r else "" for k, (_, f) in spec.items()) + " |" for r in rows]
    return "\n".join([head, rule, *body])
