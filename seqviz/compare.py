"""Measuring models side by side, on the reader's own hardware (chapter 8; chapter 10 reuses it).

- :func:`time_call`: the median time of a function, repeated until the clock is trustworthy;
- :func:`cost_vs_length`: one self-attention block (a Transformer encoder layer) against one
  GRU layer of the same width, forward or training step, at several sequence lengths;
- :func:`fit_power_law` and :func:`crossover`: ``time ~ c * n^p`` by least squares on log-log
  axes, and where two such fits cross;
- :func:`attention_entropy`: how peaked softmax rows get as the width grows, with and
  without the 1/sqrt(d) scaling; :func:`attention_gradients`: how much gradient then reaches
  the scores and the queries (:func:`softmax_attention_gradients` for one batch);
- :func:`accuracy_by_length`: greedy exact-match accuracy of a translation model per
  source length.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence

import torch
from torch import nn

from .config import pick_device, progress as progress_bar
from .models import make_block

__all__ = ["accuracy_by_length", "attention_entropy", "attention_gradients", "cost_vs_batch", "cost_vs_length",
           "crossover", "fit_power_law", "learning_curve", "softmax_attention_gradients", "time_call"]


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


def _step(block, x, train):
    if not train:
        with torch.no_grad():
            block(x)
        return
    out = block(x)[0]
    out.pow(2).mean().backward()


def cost_vs_length(lengths: Sequence[int], *, kinds: Sequence[str] = ("attention", "gru"), d_model: int = 64,
                   batch_size: int = 8, num_heads: int = 4, train: bool = False, device=None,
                   min_time: float = 0.02, repeats: int = 3, progress: bool = True) -> dict[str, list[float]]:
    """Seconds per call (forward, or forward + backward with ``train=True``) of each block at each length,
    on ``device`` (default :func:`~seqviz.config.pick_device`)."""
    device = torch.device(device) if device is not None else pick_device()
    lengths = list(lengths)
    if not lengths or any(not isinstance(n, int) or n < 1 for n in lengths):
        raise ValueError(f"lengths must be a non-empty list of positive ints, got {lengths!r}")
    results: dict[str, list[float]] = {}
    for kind in kinds:
        torch.manual_seed(0)
        block = make_block(kind, d_model, num_heads).to(device)
        times = []
        for n in progress_bar(lengths, desc=f"{kind} ({'train' if train else 'forward'})", disable=not progress, leave=False):
            x = torch.randn(batch_size, n, d_model, device=device)
            times.append(time_call(lambda: _step(block, x, train), min_time=min_time, repeats=repeats,
                                   device=device))
        results[kind] = times
    return results


def cost_vs_batch(batch_sizes: Sequence[int], length: int, *, kinds: Sequence[str] = ("attention", "gru"),
                  d_model: int = 64, num_heads: int = 4, train: bool = True, device=None, min_time: float = 0.02,
                  repeats: int = 3, progress: bool = True) -> dict[str, list[float]]:
    """Seconds per call of each block at each batch size, for one sequence ``length``, on ``device``
    (default :func:`~seqviz.config.pick_device`)."""
    device = torch.device(device) if device is not None else pick_device()
    results: dict[str, list[float]] = {}
    for kind in kinds:
        torch.manual_seed(0)
        block = make_block(kind, d_model, num_heads).to(device)
        results[kind] = [time_call(lambda: _step(block, torch.randn(B, length, d_model, device=device), train),
                                   min_time=min_time, repeats=repeats, device=device)
                         for B in batch_sizes]
    return results


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


def attention_entropy(widths: Sequence[int], *, length: int = 32, samples: int = 64, scaled: bool = True,
                      seed: int = 0) -> list[float]:
    """Mean entropy (nats) of softmax rows of q.k scores for random unit-variance q, k of each width.

    The maximum is log(length) (uniform weights); near 0 the softmax has saturated onto one key.
    """
    g = torch.Generator().manual_seed(seed)
    out = []
    for d in widths:
        q = torch.randn(samples, length, d, generator=g, dtype=torch.float64)
        k = torch.randn(samples, length, d, generator=g, dtype=torch.float64)
        scores = q @ k.transpose(1, 2) / (math.sqrt(d) if scaled else 1.0)  # (samples, T, T)
        p = scores.softmax(-1)
        out.append(float(-(p * p.clamp_min(1e-300).log()).sum(-1).mean()))
    return out


def softmax_attention_gradients(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, readout: torch.Tensor, *,
                                scaled: bool = True) -> dict[str, torch.Tensor]:
    """Gradient norms of one attention step, per query row, for the loss ``L = sum_i z_i . readout_i``.

    ``q``, ``k``: (B, T, d); ``v``, ``readout``: (B, T, dv); ``z = softmax(q k^T / s) v`` with ``s = sqrt(d)`` if
    ``scaled`` else 1. Returns ``{"scores": ||dL/d logits_i||, "query": ||dL/dq_i||}``, each (B, T), where the
    logits are what enters the softmax. A saturated softmax row (one weight near 1) has a Jacobian near 0, so
    both norms collapse.
    """
    if q.dim() != 3 or k.shape != q.shape or v.dim() != 3 or v.shape[:2] != q.shape[:2] or readout.shape != v.shape:
        raise ValueError(f"expected q, k (B, T, d) and v, readout (B, T, dv) of matching B and T; got "
                         f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, readout {tuple(readout.shape)}")
    q = q.detach().clone().requires_grad_(True)
    scale = math.sqrt(q.shape[-1]) if scaled else 1.0
    with torch.enable_grad():
        logits = q @ k.transpose(1, 2) / scale  # (B, T, T)
        logits.retain_grad()
        z = logits.softmax(-1) @ v  # (B, T, dv)
        (z * readout).sum().backward()
    return {"scores": logits.grad.norm(dim=-1), "query": q.grad.norm(dim=-1)}


def attention_gradients(widths: Sequence[int], *, length: int = 32, samples: int = 64, value_width: int = 16,
                        scaled: bool = True, threshold: float = 0.01, seed: int = 0) -> dict[str, list[float]]:
    """Gradient norms (:func:`softmax_attention_gradients`) for random unit-variance q, k of each width.

    Values and read-out have a fixed width ``value_width``, so only the scores change with the width ``d``.
    Returns one number per width under each key: ``"query_median"`` and ``"query_mean"`` (of ||dL/dq|| over the
    query rows), ``"scores_median"`` (of ||dL/d logits||) and ``"starved"``, the share of query rows whose
    logits receive a gradient of norm below ``threshold``. The median and the mean can tell different stories:
    a saturated softmax starves most rows, while the few unsaturated ones can get large gradients.
    """
    g = torch.Generator().manual_seed(seed)
    out: dict[str, list[float]] = {"query_median": [], "query_mean": [], "scores_median": [], "starved": []}
    for d in widths:
        q, k = (torch.randn(samples, length, d, generator=g, dtype=torch.float64) for _ in range(2))
        v, readout = (torch.randn(samples, length, value_width, generator=g, dtype=torch.float64) for _ in range(2))
        norms = softmax_attention_gradients(q, k, v, readout, scaled=scaled)
        out["query_median"].append(norms["query"].median().item())
        out["query_mean"].append(norms["query"].mean().item())
        out["scores_median"].append(norms["scores"].median().item())
        out["starved"].append((norms["scores"] < threshold).double().mean().item())
    return out


def learning_curve(model: nn.Module, train, valid, *, steps: int, points: int = 5, lr: float = 1e-3,
                   batch_size: int = 64, device=None, loss_fn=None, metric=None) -> dict[str, list[float]]:
    """Train in ``points`` equal chunks with one optimiser; after each, the held-out metric.

    Returns ``{"steps", "seconds", "accuracy"}``; ``seconds`` is cumulative training time
    only (the evaluations between chunks are not counted). Defaults: ``sequence_loss`` and
    teacher-forced ``token_accuracy`` for (src, src_lengths, tgt_in, tgt_out) data. The model is trained
    on ``device`` (default :func:`~seqviz.config.pick_device`), as :func:`seqviz.train.fit` does.
    """
    from .models import sequence_loss, token_accuracy
    from .train import evaluate, fit

    loss_fn = loss_fn or sequence_loss
    metric = metric or token_accuracy
    if not isinstance(points, int) or not 1 <= points <= steps:
        raise ValueError(f"points must be an int in 1..steps ({steps}), got {points!r}")
    device = torch.device(device) if device is not None else pick_device()
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    curve: dict[str, list[float]] = {"steps": [], "seconds": [], "accuracy": []}
    done, seconds = 0, 0.0
    for i in range(points):
        chunk = (steps * (i + 1)) // points - done
        history = fit(model, train, loss_fn, steps=chunk, batch_size=batch_size, optimizer=optimizer, device=device,
                      seed=i, progress=False)
        done, seconds = done + chunk, seconds + history.seconds
        curve["steps"].append(done)
        curve["seconds"].append(seconds)
        curve["accuracy"].append(evaluate(model, valid, {"acc": metric}, device=device)["acc"])
    return curve


@torch.no_grad()
def accuracy_by_length(model: nn.Module, src, src_lengths, tgt_out, *, max_len: int | None = None,
                       batch_size: int = 256) -> dict[int, float]:
    """Greedy exact-match accuracy per source length (any model with ``greedy(src, lengths, max_len)``); runs
    where the model is."""
    from .models import sequence_accuracy

    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    max_len = max_len or tgt_out.shape[1] + 2
    correct = torch.zeros(len(src), dtype=torch.bool)
    for start in range(0, len(src), batch_size):
        sl = slice(start, start + batch_size)
        tokens = model.greedy(src[sl].to(device), src_lengths[sl].to(device), max_len=max_len)[0].cpu()
        correct[sl] = sequence_accuracy(tokens, tgt_out[sl])
    model.train(was_training)
    return {int(n): correct[src_lengths == n].float().mean().item() for n in sorted(set(src_lengths.tolist()))}
