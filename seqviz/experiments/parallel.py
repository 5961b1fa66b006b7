"""Why Transformers won, measured: training throughput against sequence length, and the cost of a generated
token with and without the key/value cache.

- :func:`training_throughput`: tokens per second of a training step (forward and backward) of one recurrent
  layer and one causal Transformer block of matched parameter count, at a fixed number of tokens per step split
  into sequences of each length. The recurrent layer needs ``length`` steps one after another, each on a batch of
  ``tokens_per_step / length`` rows; the block does the same tokens in a few large matrix products (Vaswani et
  al., 2017, Table 1: O(n) sequential operations against O(1)). Both are ``torch.nn``'s own layers (cuDNN or
  oneDNN kernels for the LSTM, fused attention on a GPU), the fastest each has, so the comparison is fair to
  recurrence;
- :func:`generation_cost`: seconds per generated token after ``n`` tokens of context, for a decoder with
  ``prefill``/``step`` (its key/value cache, Pope et al., 2022) and re-reading the whole prefix.

Every timing is a list of repeats (:func:`seqviz.measure.time_samples`), so ``seqviz.book.compare_times`` can
judge them beyond their spread; :func:`training_throughput` takes the kinds' repeats in turns at each length,
so that the load of a shared machine falls on both alike. On the CPU :func:`training_throughput` uses all the cores the process may run on
(``threads``) and puts the thread count back afterwards. Used by chapter 9b and ``benchmarks/parallel_training.py``.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence

import torch
from torch import nn

from ..config import model_device, pick_device, progress as progress_bar
from ..measure import check_ints, count_parameters, interleaved_samples, time_samples

__all__ = ["KINDS", "all_threads", "generation_cost", "throughput_layer", "training_throughput"]
KINDS = ("LSTM", "GRU", "attention")


def all_threads() -> int:
    """How many CPU threads this process may use: the cores it may run on, capped by ``OMP_NUM_THREADS`` where
    that is set to a number (the book's builds and test runs set it to 1 for every kernel that shares the machine
    with another, so that a timing "on every core" never measures the other kernel; a chapter run by itself, in
    Colab or on a laptop, sees every core)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    limit = os.environ.get("OMP_NUM_THREADS", "").strip()
    return max(1, min(cores, int(limit))) if limit.isdigit() and int(limit) > 0 else cores


def throughput_layer(kind: str, width: int, num_heads: int = 4) -> nn.Module:
    """``torch.nn``'s ``LSTM``/``GRU`` layer (``width`` in and out), or a pre-LN ``TransformerEncoderLayer`` of
    ``width`` with a feed-forward of ``2 * width``: about ``8 width^2`` parameters each for the LSTM and the block
    (the GRU has ``6 width^2``)."""
    if kind == "LSTM":
        return nn.LSTM(width, width, batch_first=True)
    if kind == "GRU":
        return nn.GRU(width, width, batch_first=True)
    if kind == "attention":
        return nn.TransformerEncoderLayer(width, num_heads, dim_feedforward=2 * width, dropout=0.0, batch_first=True,
                                          norm_first=True)
    raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


def _training_step(layer, kind, x, mask):
    out = layer(x, src_mask=mask, is_causal=True) if kind == "attention" else layer(x)[0]  # (B, T, width)
    out.pow(2).mean().backward()


def training_throughput(lengths: Sequence[int], *, tokens_per_step: int = 4096, width: int = 128,
                        num_heads: int = 4, kinds: Sequence[str] = ("LSTM", "attention"), device=None,
                        threads: int | None = None, min_time: float = 0.05, repeats: int = 5,
                        progress: bool = True) -> list[dict]:
    """Rows ``kind, length, batch, tokens_per_s`` (median), ``seconds`` (every repeat of one step),
    ``parameters``, ``device``, ``threads``: one training step of each layer (:func:`throughput_layer`) on
    ``tokens_per_step`` tokens cut into sequences of each length (the batch is ``tokens_per_step // length``).

    ``device`` defaults to :func:`~seqviz.config.pick_device`; on the CPU ``threads`` (default: every core,
    :func:`all_threads`) are used during the measurement only.
    """
    lengths = check_ints(lengths, "lengths", 1)
    check_ints([tokens_per_step, width, num_heads], "tokens_per_step, width and num_heads", 1)
    if max(lengths) > tokens_per_step:
        raise ValueError(f"a length of {max(lengths)} does not fit in tokens_per_step = {tokens_per_step}")
    for kind in kinds:
        throughput_layer(kind, 8, 2)  # a clear error for an unknown kind before any timing
    device = torch.device(device) if device is not None else pick_device()
    threads = threads or all_threads()
    before = torch.get_num_threads()
    if device.type == "cpu":
        torch.set_num_threads(threads)
    layers = {}
    for kind in kinds:
        torch.manual_seed(0)
        layers[kind] = throughput_layer(kind, width, num_heads).to(device)
    found = {}
    try:
        for length in progress_bar(lengths, desc="training steps", disable=not progress, leave=False):
            batch = tokens_per_step // length
            x = torch.randn(batch, length, width, device=device)
            mask = nn.Transformer.generate_square_subsequent_mask(length, device=device)  # (T, T), -inf above
            steps = {kind: (lambda layer=layers[kind], kind=kind: _training_step(layer, kind, x, mask))
                     for kind in kinds}
            for kind, seconds in interleaved_samples(steps, min_time=min_time, repeats=repeats, device=device).items():
                layers[kind].zero_grad(set_to_none=True)
                found[kind, length] = {"kind": kind, "length": length, "batch": batch, "seconds": seconds,
                                       "tokens_per_s": batch * length / statistics.median(seconds),
                                       "parameters": count_parameters(layers[kind]), "device": device.type,
                                       "threads": threads if device.type == "cpu" else None}
    finally:
        torch.set_num_threads(before)
    return [found[kind, length] for kind in kinds for length in lengths]


def generation_cost(model, contexts: Sequence[int], *, vocab_size: int | None = None, min_time: float = 0.01,
                    repeats: int = 3, seed: int = 0, progress: bool = True) -> list[dict]:
    """Rows ``context, mode, seconds`` (every repeat), ``ms_per_token`` (median): the time to produce the logits
    of one more token after ``context`` tokens, ``mode="cache"`` with ``model.step(token, cache)`` after a
    ``prefill``, ``mode="re-read"`` with ``model(prefix + token)``. Batch 1, no gradients, on the model's
    device; the prompt is random ids (the cost does not depend on which)."""
    contexts = check_ints(contexts, "contexts", 1)
    if not all(hasattr(model, name) for name in ("prefill", "step")):
        raise ValueError(f"model must have prefill(ids) and step(ids, cache) (LlamaDecoder, TransformerLM), got "
                         f"{type(model).__name__}")
    vocab_size = vocab_size or getattr(getattr(model, "config", None), "vocab_size", None) \
        or getattr(model, "vocab_size", None)
    if not vocab_size:
        raise ValueError("pass vocab_size: the model does not say how many token ids it reads")
    device = model_device(model)
    generator = torch.Generator().manual_seed(seed)
    was_training = model.training
    model.eval()
    rows = []
    try:
        with torch.no_grad():
            for n in progress_bar(contexts, desc="cost per token", disable=not progress, leave=False):
                full = torch.randint(0, vocab_size, (1, n + 1), generator=generator).to(device)  # prefix + token
                _, cache = model.prefill(full[:, :n])
                cases = {"cache": lambda: model.step(full[:, n:], cache), "re-read": lambda: model(full)[:, -1]}
                for mode, fn in cases.items():
                    seconds = time_samples(fn, min_time=min_time, repeats=repeats, device=device)
                    rows.append({"context": n, "mode": mode, "seconds": seconds,
                                 "ms_per_token": 1e3 * statistics.median(seconds)})
    finally:
        model.train(was_training)
    return rows
