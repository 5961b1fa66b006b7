"""Cost against length and batch, on the reader's own hardware: training steps and generated tokens.

- :func:`cost_vs_length`, :func:`cost_vs_batch`: one self-attention block (a Transformer encoder layer) against
  one GRU layer of the same width, forward or training step, at several sequence lengths or batch sizes
  (chapter 8);
- :func:`step_cost`: one training step of a GRU, LSTM or causal Transformer layer at each length: its time and
  the activation memory it keeps for backward (chapter 10, ``benchmarks/length_cost.py``);
- :func:`streaming_cost`: the cost of one generated token after ``n`` tokens of context, for a GRU language
  model and a Transformer decoder with and without its key/value cache (chapter 10,
  ``benchmarks/streaming_cost.py``).

Each builds its models on ``device`` (default :func:`~seqviz.config.pick_device`) and times them there with
:func:`seqviz.measure.time_call`. Used by chapters 8 and 10 and ``benchmarks/``.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

import torch

from ..config import pick_device, progress as progress_bar
from ..measure import activation_bytes, check_ints, interleaved_samples, time_call, time_samples
from ..models import KINDS, GRULM, TransformerLM, cache_bytes, make_block, make_encoder

__all__ = ["cost_vs_batch", "cost_vs_length", "step_cost", "streaming_cost"]


def _where(device) -> torch.device:
    return torch.device(device) if device is not None else pick_device()


def _step(block, x, train):
    if not train:
        with torch.no_grad():
            block(x)
        return
    out = block(x)[0]
    out.pow(2).mean().backward()


BLOCKS = ("attention", "gru")   # make_block's kinds


def _check_kinds(kinds, known) -> list[str]:
    kinds = None if isinstance(kinds, (str, bytes)) or not hasattr(kinds, "__iter__") else list(kinds)
    if not kinds or any(k not in known for k in kinds) or len(set(kinds)) != len(kinds):
        raise ValueError(f"kinds must be a list of distinct names from {known}, got {kinds!r}")
    return kinds


def _check_width(d_model: int, num_heads: int, what: str = "d_model") -> None:
    check_ints([d_model], what, 1)
    check_ints([num_heads], "num_heads", 1)
    if d_model % num_heads:
        raise ValueError(f"{what} ({d_model}) must split into num_heads ({num_heads}) heads of equal width")


def _block_times(shapes, kinds, d_model, num_heads, train, device, min_time, repeats, progress, samples=False):
    """Seconds per call of each block kind on an input of each (batch, length) in ``shapes`` (the median, or with
    ``samples`` the list of every repeat)."""
    timer = time_samples if samples else time_call
    kinds = _check_kinds(kinds, BLOCKS)
    if "attention" in kinds:
        _check_width(d_model, num_heads)
    check_ints([d_model], "d_model", 1)
    check_ints([repeats], "repeats", 1)
    results: dict[str, list[float]] = {}
    for kind in kinds:
        torch.manual_seed(0)
        block = make_block(kind, d_model, num_heads).to(device)
        times = []
        for batch, length in progress_bar(shapes, desc=f"{kind} ({'train' if train else 'forward'})",
                                          disable=not progress, leave=False):
            x = torch.randn(batch, length, d_model, device=device)
            times.append(timer(lambda: _step(block, x, train), min_time=min_time, repeats=repeats, device=device))
        results[kind] = times
    return results


def cost_vs_length(lengths: Sequence[int], *, kinds: Sequence[str] = ("attention", "gru"), d_model: int = 64,
                   batch_size: int = 8, num_heads: int = 4, train: bool = False, device=None,
                   min_time: float = 0.02, repeats: int = 3, progress: bool = True,
                   samples: bool = False) -> dict[str, list]:
    """Seconds per call (forward, or forward + backward with ``train=True``) of each block
    (:func:`~seqviz.models.make_block`) at each length, on ``device``: the median of ``repeats`` timings, or with
    ``samples=True`` the list of all of them (to judge a difference by its spread)."""
    (batch_size,) = check_ints([batch_size], "batch_size", 1)
    shapes = [(batch_size, n) for n in check_ints(lengths, "lengths", 1)]
    return _block_times(shapes, kinds, d_model, num_heads, train, _where(device), min_time, repeats, progress,
                        samples)


def cost_vs_batch(batch_sizes: Sequence[int], length: int, *, kinds: Sequence[str] = ("attention", "gru"),
                  d_model: int = 64, num_heads: int = 4, train: bool = True, device=None, min_time: float = 0.02,
                  repeats: int = 3, progress: bool = True, samples: bool = False) -> dict[str, list]:
    """Seconds per call of each block at each batch size, for one sequence ``length``, on ``device`` (as
    :func:`cost_vs_length`: medians, or every repeat with ``samples=True``)."""
    (length,) = check_ints([length], "length", 1)
    shapes = [(b, length) for b in check_ints(batch_sizes, "batch_sizes", 1)]
    return _block_times(shapes, kinds, d_model, num_heads, train, _where(device), min_time, repeats, progress,
                        samples)


def step_cost(lengths: Sequence[int], kinds: Sequence[str] = ("GRU", "LSTM", "Transformer"), *, width: int = 64,
              batch_size: int = 8, min_time: float = 0.02, repeats: int = 3, progress: bool = True,
              device=None) -> list[dict]:
    """One training step (forward + backward, one layer of ``width``) at each length: rows with
    ``model, length, ms_per_step`` (the median of ``ms_samples``, the repeats of
    :func:`~seqviz.measure.time_samples`) and ``saved_MiB``
    (activation memory kept for backward, :func:`~seqviz.measure.activation_bytes`), on ``device``."""
    lengths = check_ints(lengths, "lengths", 1)
    kinds = _check_kinds(kinds, KINDS)
    check_ints([width, batch_size], "width and batch_size", 1)
    if "Transformer" in kinds:
        _check_width(width, 4, "width")   # the Transformer encoder's 4 heads
    device = _where(device)
    rows = []
    for kind in progress_bar(list(kinds), desc="cost vs length", disable=not progress, leave=False):
        torch.manual_seed(0)
        model = make_encoder(kind, width, width, **({"max_len": max(lengths)} if kind == "Transformer" else {}))
        model.to(device)
        for n in lengths:
            x = torch.randn(batch_size, n, width).to(device)

            def step():
                model(x)[0].pow(2).mean().backward()

            samples = [1e3 * t for t in time_samples(step, min_time=min_time, repeats=repeats, device=device)]
            memory = activation_bytes(lambda: model(x)[0].pow(2).mean())
            model.zero_grad(set_to_none=True)
            rows.append({"model": kind, "length": n, "ms_per_step": statistics.median(samples), "ms_samples": samples,
                         "saved_MiB": memory / 2 ** 20})
    return rows


def streaming_cost(contexts: Sequence[int], *, d_model: int = 64, num_layers: int = 2, vocab_size: int = 200,
                   min_time: float = 0.01, repeats: int = 3, progress: bool = True, device=None) -> list[dict]:
    """The cost of one generated token (batch 1, no grad) after ``n`` tokens of context: a GRU
    language model, a Transformer decoder with a key/value cache, and one that re-reads the prefix.
    Rows: ``model, context, ms_per_token`` (the median of ``ms_samples``, the repeats), ``state_bytes``, measured
    on ``device``.

    Every context is prefilled first and every case warmed up before any is timed, and the repeats take turns
    (:func:`seqviz.measure.interleaved_samples`: repeat r of every model at every context before repeat r + 1 of
    any), so neither the first context timed nor a burst of load on a shared machine lands on one point alone."""
    contexts = check_ints(contexts, "contexts", 1)
    check_ints([num_layers], "num_layers", 1)
    (vocab_size,) = check_ints([vocab_size], "vocab_size", 2)
    _check_width(d_model, 4)   # the Transformer decoder's 4 heads
    device = _where(device)
    torch.manual_seed(0)
    gru = GRULM(vocab_size, d_model, num_layers=num_layers).eval().to(device)
    tlm = TransformerLM(vocab_size, d_model, num_heads=4, num_layers=num_layers, dim_feedforward=4 * d_model,
                        max_len=max(contexts) + 1).eval().to(device)
    token = torch.zeros(1, 1, dtype=torch.long).to(device)
    cases, held = {}, {}
    with torch.no_grad():
        for n in progress_bar(contexts, desc="cost per token", disable=not progress, leave=False):
            prefix = torch.randint(0, vocab_size, (1, n)).to(device)
            _, state = gru.prefill(prefix)
            _, cache = tlm.prefill(prefix)
            full = torch.cat([prefix, token], 1)
            cases["GRU", n] = lambda state=state: gru.step(token, state)
            cases["Transformer (KV cache)", n] = lambda cache=cache: tlm.step(token, cache)
            cases["Transformer (no cache)", n] = lambda full=full: tlm(full)[:, -1]
            held["GRU", n], held["Transformer (KV cache)", n] = cache_bytes(state), cache_bytes(cache)
            held["Transformer (no cache)", n] = 0
        times = interleaved_samples(cases, min_time=min_time, repeats=repeats, device=device)
    rows = []
    for n in contexts:
        for model in ("GRU", "Transformer (KV cache)", "Transformer (no cache)"):
            samples = [1e3 * t for t in times[model, n]]
            rows.append({"model": model, "context": n, "ms_per_token": statistics.median(samples),
                         "ms_samples": samples, "state_bytes": held[model, n]})
    return rows
