"""The measurement layer: how long, how much memory, how it grows, how many parameters, and the tables.

- :func:`time_call`: the median time of a function, repeated until the clock is trustworthy, waiting for the
  accelerator (a GPU runs its work asynchronously); :class:`Stopwatch`: the wall and CPU seconds of a long job,
  paused while it does something else (training time without its evaluations);
- :func:`activation_bytes`: the one way the book measures what a training step keeps for backward;
- :func:`fit_power_law`, :func:`crossover`, :func:`fitted_growth`: ``y ~ c * x^p`` by least squares on
  log-log axes, where two such fits cross, and the growth a fit reads over a range;
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
import statistics
import time
from collections.abc import Callable, Sequence

import torch
from torch import nn

__all__ = ["Stopwatch", "activation_bytes", "check_ints", "count_parameters", "crossover", "fit_power_law", "fitted_growth",
           "largest_difference", "markdown_table", "match_parameters", "measure", "spread_cell", "time_call"]


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


def time_call(fn: Callable, *, min_time: float = 0.02, repeats: int = 3, device=None) -> float:
    """Median seconds per call of ``fn()``, after one warm-up call.

    Each of ``repeats`` measurements runs ``fn`` as many times as needed to last at least
    ``min_time`` seconds, so that fast calls are not lost in the clock's resolution. ``device``
    is where ``fn`` works (default: CUDA if present), so the clock waits for it.
    """
    if not callable(fn):
        raise ValueError(f"time_call expects a function to call, got {type(fn).__name__}")
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
    return statistics.median(samples)


class Stopwatch:
    """A clock for a long job that can be paused (an evaluation inside a training run is not training time):
    ``wall`` and ``cpu`` (this process's CPU seconds, all threads) accumulated while running. Starts running
    unless ``running=False``; ``device`` is waited for at every read, as in :func:`time_call`.

    The CPU seconds of a one-thread job on a busy machine are close to the wall seconds it would take on a
    quiet one (``make checkpoints`` logs both)."""

    def __init__(self, running: bool = True, device=None):
        self.device, self._wall, self._cpu, self._since = device, 0.0, 0.0, None
        if running:
            self.resume()

    @property
    def running(self) -> bool:
        return self._since is not None

    def resume(self) -> "Stopwatch":
        if self._since is None:
            _sync(self.device)
            self._since = (time.perf_counter(), time.process_time())
        return self

    def pause(self) -> "Stopwatch":
        if self._since is not None:
            _sync(self.device)
            self._wall += time.perf_counter() - self._since[0]
            self._cpu += time.process_time() - self._since[1]
            self._since = None
        return self

    def _now(self, which: int) -> float:
        total = (self._wall, self._cpu)[which]
        if self._since is not None:
            _sync(self.device)
            total += (time.perf_counter(), time.process_time())[which] - self._since[which]
        return total

    @property
    def wall(self) -> float:
        """Seconds on the wall clock while running."""
        return self._now(0)

    @property
    def cpu(self) -> float:
        """CPU seconds of this process while running."""
        return self._now(1)


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
    held.clear()
    return (result, total) if return_result else total


# -- growth -------------------------------------------------------------------------------------------------


def fit_power_law(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """``(p, c)`` with ``y ~ c * x^p``: least squares of log y on log x."""
    lx = torch.tensor([math.log(v) for v in x], dtype=torch.float64)
    ly = torch.tensor([math.log(v) for v in y], dtype=torch.float64)
    if lx.numel() < 2 or lx.numel() != ly.numel():
        raise ValueError(f"need at least two (x, y) points of equal count, got {lx.numel()} and {ly.numel()}")
    A = torch.stack([lx, torch.ones_like(lx)], 1)  # (n, 2)
    p, log_c = torch.linalg.lstsq(A, ly[:, None]).solution[:, 0].tolist()
    return p, math.exp(log_c)


def crossover(fit_a: tuple[float, float], fit_b: tuple[float, float]) -> float | None:
    """The x > 0 where ``c_a x^p_a = c_b x^p_b``, or None if the exponents are equal."""
    (pa, ca), (pb, cb) = fit_a, fit_b
    if abs(pa - pb) < 1e-12:
        return None
    return (cb / ca) ** (1.0 / (pa - pb))


def fitted_growth(xs: Sequence[float], ys: Sequence[float]) -> float:
    """How much ``y`` grows from the first ``x`` to the last, read from a power law fitted to every point
    (one slow timing at one end moves it less than the ratio of the two end points would)."""
    p, _ = fit_power_law(xs, ys)
    return (xs[-1] / xs[0]) ** p


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
    from .config import model_device

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
    values = torch.as_tensor(values, dtype=torch.float64).flatten()
    if values.numel() == 0:
        raise ValueError("spread_cell needs at least one value")
    cell = f"{scale * values.mean():.1f}"
    if show_range and values.numel() > 1:
        cell += f" ({scale * values.min():.1f}–{scale * values.max():.1f})"
    return cell


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _auto(value) -> str:
    """Numbers to 3 significant digits (large ones whole, with thousands separators), the rest as ``str``."""
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def _cell(value, fmt) -> str:
    if isinstance(value, str):
        return value
    if callable(fmt):
        return fmt(value)
    if fmt == "%":
        return f"{100 * value:.1f}%"
    if fmt is None:
        return _auto(value)
    return format(value, fmt)


def markdown_table(rows: Sequence[dict], columns=None) -> str:
    """``rows`` (dicts) as a markdown table, one line per row.

    ``columns`` says which keys, in order, under which header and in which format: ``None`` (every key of the
    first row), a list of keys, or a dict ``key -> header`` or ``key -> (header, format)``. A format is ``""``
    (text, left-aligned), ``"%"`` (a fraction as a percentage), a format spec (``","``, ``".2f"``), a function
    ``value -> str``, or ``None`` (numbers to 3 significant digits). Strings are written as they are; a missing
    key leaves its cell empty. Number columns are right-aligned.
    """
    rows = list(rows)
    if not rows or not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"markdown_table needs a non-empty list of dicts, got {type(rows).__name__} of "
                         f"{len(rows)} rows")
    if columns is None:
        columns = list(rows[0])
    if not isinstance(columns, dict):
        columns = {key: str(key) for key in columns}
    spec = {k: (v, None) if isinstance(v, str) else tuple(v) for k, v in columns.items()}

    def right(key, fmt):
        if fmt is not None:
            return fmt != ""
        present = [r[key] for r in rows if key in r]
        return bool(present) and all(_is_number(v) for v in present)

    head = "| " + " | ".join(header for header, _ in spec.values()) + " |"
    rule = "|" + "|".join("---:" if right(k, f) else "---" for k, (_, f) in spec.items()) + "|"
    body = ["| " + " | ".join(_cell(r[k], f) if k in r else "" for k, (_, f) in spec.items()) + " |" for r in rows]
    return "\n".join([head, rule, *body])
