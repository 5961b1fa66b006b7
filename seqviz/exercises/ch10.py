"""Exercises of chapter 10, choosing a model (registered on import).

- ch10.ex1: the memory of a key/value cache; ch10.ex1b: the cache of a 7B-sized model after 4,096 tokens;
- ch10.ex2: the persistence baseline every forecaster must beat;
- ch10.ex3: how many query-key products generating n tokens costs, with and without a cache;
- ch10.ex4 (a conceptual question, predict then run): which family the book's long runs put ahead at the largest
  matched size.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch10.py``).
"""

from __future__ import annotations

import torch

from .expected import Expected
from .registry import as_choice, as_number, exercise

EXPECTED = Expected("ch10")

# -- ex1: key/value cache memory ------------------------------------------------------------------

CASES_EX1 = [(12, 12, 64, 2048, 8, 2), (2, 4, 32, 1024, 1, 4), (1, 1, 8, 10, 3, 4)]  # 12 layers first: the
# hints for "keys only" (half) and "one layer" (a twelfth) cannot be confused there


@exercise("ch10.ex1", "The memory of a key/value cache")
def check_cache_bytes(answer):
    if not callable(answer):
        return False, ("answer should be a function kv_cache_bytes(num_layers, num_heads, head_size, context, "
                       "batch=1, bytes_per_value=4).")
    for case in CASES_EX1:
        expected = EXPECTED("cache_bytes", ",".join(map(str, case)), *case)
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


@exercise("ch10.ex1b", "The memory of a key/value cache: a large model")
def check_cache_follow_up(answer):
    got = as_number(answer, "a number of bytes")
    expected = EXPECTED("cache_bytes", ",".join(map(str, FOLLOW_UP_EX1)), *FOLLOW_UP_EX1)
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


# -- ex2: the persistence baseline ----------------------------------------------------------------


@exercise("ch10.ex2", "The persistence baseline")
def check_persistence(answer):
    if not callable(answer):
        return False, "answer should be a function persistence_mse(inputs (m, L, 1), targets (m, 1)) -> float."
    g = torch.Generator().manual_seed(10)
    for m, length in ((50, 12), (7, 3)):
        x = torch.randn(m, length, 1, generator=g).cumsum(1)
        y = x[:, -1] + 0.3 * torch.randn(m, 1, generator=g)
        expected = EXPECTED("persistence_mse", f"{m},{length}", x, y)
        got = as_number(answer(x.clone(), y.clone()), "a number (the mean squared error)")
        if abs(got - expected) > 1e-5 * max(1.0, abs(expected)):
            return False, (f"expected {expected:.5f}, got {got}. Predict each target by the last value of its window "
                           "(inputs[:, -1]), then average the squared errors.")
    return True, "A forecaster that cannot beat 'tomorrow equals today' has learned nothing useful."


# -- ex3: query-key products when generating --------------------------------------------------------


@exercise("ch10.ex3", "The cost of generating without a cache")
def check_reads(answer):
    if not callable(answer):
        return False, "answer should be a function query_key_products(n, cache) -> int."
    for n in (1, 2, 5, 100):
        for cache in (True, False):
            expected = EXPECTED("query_key_products", f"{n},{cache}", n, cache)
            got = as_number(answer(n, cache), "a number of products")
            if abs(got - expected) > 0.5:
                return False, (f"for n = {n}, cache = {cache} expected {expected}, got {got:g}. Step t (1-based) has "
                               f"t tokens in the prefix; count the (query, key) pairs a causal mask allows.")
    return True, "With a cache the total is quadratic in n; without one it is cubic."


# -- ex4: predict the long runs' leader ---------------------------------------------------------------

CH10_EX4_CHOICES = ("a) the LSTM", "b) the Transformer", "c) neither: within 5% of each other in perplexity")


@exercise("ch10.ex4", "Predict the long runs' character models")
def check_long_run_leader(answer):
    choice = as_choice(answer, CH10_EX4_CHOICES, "the family you predict")  # "a", "A)" or the whole text
    expected = EXPECTED("long_run_leader", "choice", CH10_EX4_CHOICES)
    if choice == expected:
        return True, ("That is what the long runs show. Remember their regime: about a million parameters, eight "
                      "million characters, one CPU thread; the published comparisons at scale are another regime.")
    if choice.startswith("b)"):
        return False, ("Not in these runs. A Transformer step does more arithmetic per character than a recurrent "
                       "step of the same size, and one CPU thread runs none of it in parallel; compare the two "
                       "families' validation loss at the largest size in the long runs' table.")
    if choice.startswith("a)"):
        return False, ("Not in these runs: compare the two families' validation loss at the largest size in the long "
                       "runs' table (the lower is better).")
    return False, ("The two largest models are further apart than 5% in perplexity: compare their validation loss in "
                   "the long runs' table (perplexity is e to the loss).")
