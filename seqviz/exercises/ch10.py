"""Exercises of chapter 10, choosing a model (registered on import).

- ch10.ex1: the memory of a key/value cache;
- ch10.ex2: the persistence baseline every forecaster must beat;
- ch10.ex3: how many query-key products generating n tokens costs, with and without a cache.
"""

from __future__ import annotations

import torch

from .registry import as_number, exercise

# -- ex1: key/value cache memory ------------------------------------------------------------------


def _cache_bytes(num_layers, num_heads, head_size, context, batch=1, bytes_per_value=4):
    return 2 * num_layers * batch * num_heads * head_size * context * bytes_per_value  # keys and values


CASES_EX1 = [(2, 4, 32, 1024, 1, 4), (12, 12, 64, 2048, 8, 2), (1, 1, 8, 10, 3, 4)]


@exercise("ch10.ex1", "The memory of a key/value cache", reference=lambda: _cache_bytes,
          wrong=[lambda: (lambda L, h, hs, n, B=1, b=4: L * B * h * hs * n * b),
                 lambda: (lambda L, h, hs, n, B=1, b=4: 2 * B * h * hs * n * b)])
def check_cache_bytes(answer):
    if not callable(answer):
        return False, ("answer should be a function kv_cache_bytes(num_layers, num_heads, head_size, context, "
                       "batch=1, bytes_per_value=4).")
    for case in CASES_EX1:
        expected = _cache_bytes(*case)
        try:
            got = as_number(answer(*case))
        except Exception as error:  # noqa: BLE001  (feedback, never a traceback)
            return False, f"your function raised {type(error).__name__}: {error}"
        if got is None or abs(got - expected) > 0.5:
            hint = ""
            if got is not None and abs(2 * got - expected) < 0.5:
                hint = " Each position stores a key and a value."
            elif got is not None and abs(got * case[0] - expected) < 0.5:
                hint = " Every layer keeps its own cache."
            return False, (f"for (layers, heads, head_size, context, batch, bytes) = {case} expected {expected:,}, "
                           f"got {got}.{hint}")
    return True, "A cache grows linearly with the context, per layer, head and sequence in the batch."


# -- ex2: the persistence baseline ----------------------------------------------------------------


def _persistence_mse(inputs, targets):
    return float((inputs[:, -1, :1] - targets[:, :1]).pow(2).mean())


@exercise("ch10.ex2", "The persistence baseline", reference=lambda: _persistence_mse,
          wrong=[lambda: (lambda x, y: float((x.mean(1)[:, :1] - y[:, :1]).pow(2).mean())),
                 lambda: (lambda x, y: float((x[:, 0, :1] - y[:, :1]).pow(2).mean()))])
def check_persistence(answer):
    if not callable(answer):
        return False, "answer should be a function persistence_mse(inputs (m, L, 1), targets (m, 1)) -> float."
    g = torch.Generator().manual_seed(10)
    for m, length in ((50, 12), (7, 3)):
        x = torch.randn(m, length, 1, generator=g).cumsum(1)
        y = x[:, -1] + 0.3 * torch.randn(m, 1, generator=g)
        expected = _persistence_mse(x, y)
        try:
            got = as_number(answer(x, y))
        except Exception as error:  # noqa: BLE001
            return False, f"your function raised {type(error).__name__}: {error}"
        if got is None or abs(got - expected) > 1e-5 * max(1.0, abs(expected)):
            return False, (f"expected {expected:.5f}, got {got}. Predict each target by the last value of its window "
                           "(inputs[:, -1]), then average the squared errors.")
    return True, "A forecaster that cannot beat 'tomorrow equals today' has learned nothing useful."


# -- ex3: query-key products when generating --------------------------------------------------------


def _reads(n, cache):
    if cache:
        return n * (n + 1) // 2  # step t: one query against t keys
    return sum(t * (t + 1) // 2 for t in range(1, n + 1))  # step t: t queries, causal, over the whole prefix


@exercise("ch10.ex3", "The cost of generating without a cache", reference=lambda: _reads,
          wrong=[lambda: (lambda n, cache: n * n if cache else n ** 3),
                 lambda: (lambda n, cache: n if cache else n * (n + 1) // 2)])
def check_reads(answer):
    if not callable(answer):
        return False, "answer should be a function query_key_products(n, cache) -> int."
    for n in (1, 2, 5, 100):
        for cache in (True, False):
            expected = _reads(n, cache)
            try:
                got = as_number(answer(n, cache))
            except Exception as error:  # noqa: BLE001
                return False, f"your function raised {type(error).__name__}: {error}"
            if got is None or abs(got - expected) > 0.5:
                return False, (f"for n = {n}, cache = {cache} expected {expected}, got {got}. Step t (1-based) has "
                               f"t tokens in the prefix; count the (query, key) pairs a causal mask allows.")
    return True, "With a cache the total is quadratic in n; without one it is cubic."
