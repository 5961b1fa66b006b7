"""Exercises of chapter 10, choosing a model (registered on import).

- ch10.ex1: the memory of a key/value cache; ch10.ex1b: the cache of a 7B-sized model after 4,096 tokens;
- ch10.ex2: the persistence baseline every forecaster must beat;
- ch10.ex3: how many query-key products generating n tokens costs, with and without a cache.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import torch

from .hidden import agree, hidden_test, randint, same
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
        got = as_number(answer(*case), "a number of bytes")
        if abs(got - expected) > 0.5:
            hint = ""
            if abs(2 * got - expected) < 0.5:
                hint = " Each position stores a key and a value."
            elif abs(got * case[0] - expected) < 0.5:
                hint = " Every layer keeps its own cache."
            return False, (f"for (layers, heads, head_size, context, batch, bytes) = {case} expected {expected:,}, "
                           f"got {got:,.0f}.{hint}")
    return True, "A cache grows linearly with the context, per layer, head and sequence in the batch."


FOLLOW_UP_EX1 = (32, 32, 128, 4096, 1, 2)  # layers, heads, head size, context, batch, bytes (float16)


@exercise("ch10.ex1b", "The memory of a key/value cache: a large model", reference=lambda: _cache_bytes(*FOLLOW_UP_EX1),
          wrong=[lambda: _cache_bytes(*FOLLOW_UP_EX1) / 2, lambda: _cache_bytes(*FOLLOW_UP_EX1[:5], 4),
                 lambda: float("inf")])
def check_cache_follow_up(answer):
    got = as_number(answer, "a number of bytes")
    expected = _cache_bytes(*FOLLOW_UP_EX1)
    if abs(got - expected) < 0.5:
        return True, (f"{expected:,} bytes = {expected / 2**30:g} GiB for one sequence: a cache of this size per "
                      "user is why serving long contexts is memory-bound.")
    if abs(got - expected / 2**30) < 0.05:
        return False, f"That is the size in GiB; give it in bytes ({got:g} GiB = {expected:,} bytes?)."
    if abs(got - 2 * expected) < 0.5:
        return False, "float16 takes 2 bytes per value, not 4."
    if abs(2 * got - expected) < 0.5:
        return False, "Each position stores a key and a value."
    return False, f"{got:,.0f} is not it: kv_cache_bytes(32, 32, 128, 4096, bytes_per_value=2)."


@hidden_test("ch10.ex1")
def _hidden_cache(answer, g):
    for _ in range(4):
        L, h, hs, n = randint(g, 1, 48), randint(g, 1, 64), randint(g, 1, 256), randint(g, 1, 10**5)
        B, b = randint(g, 1, 16), randint(g, 1, 4)
        ok, message = same(answer(L, h, hs, n, batch=B, bytes_per_value=b), _cache_bytes(L, h, hs, n, B, b),
                           f"kv_cache_bytes({L}, {h}, {hs}, {n}, batch={B}, bytes_per_value={b})", atol=0.5, rtol=0)
        if not ok:
            return ok, message
    return True, "the cache size is right at other sizes, with batch and bytes_per_value given by keyword"


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
        got = as_number(answer(x, y), "a number (the mean squared error)")
        if abs(got - expected) > 1e-5 * max(1.0, abs(expected)):
            return False, (f"expected {expected:.5f}, got {got}. Predict each target by the last value of its window "
                           "(inputs[:, -1]), then average the squared errors.")
    return True, "A forecaster that cannot beat 'tomorrow equals today' has learned nothing useful."


@hidden_test("ch10.ex2")
def _hidden_persistence(answer, g):
    cases = []
    for m, length in ((1, 1), (randint(g, 2, 40), randint(g, 2, 20))):
        x = torch.randn(m, length, 1, generator=g).cumsum(1)
        cases.append((x, x[:, -1] + torch.randn(m, 1, generator=g)))
    return agree(answer, _persistence_mse, cases, "persistence_mse")


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
            got = as_number(answer(n, cache), "a number of products")
            if abs(got - expected) > 0.5:
                return False, (f"for n = {n}, cache = {cache} expected {expected}, got {got}. Step t (1-based) has "
                               f"t tokens in the prefix; count the (query, key) pairs a causal mask allows.")
    return True, "With a cache the total is quadratic in n; without one it is cubic."


@hidden_test("ch10.ex3")
def _hidden_products(answer, g):
    cases = [(n, cache) for n in (randint(g, 3, 300), randint(g, 3, 300)) for cache in (True, False)]
    return agree(answer, _reads, cases, "query_key_products", atol=0.5, rtol=0)
