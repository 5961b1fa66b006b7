"""Exercises of chapter 9b, why Transformers won (registered on import).

- ch09b.ex1: the exponent of a power law ``loss ~ c * compute^p``, fitted by least squares on log-log axes (the
  scaling fits of section 9b.7);
- ch09b.ex2: the bytes of a key/value cache, with grouped-query attention (sections 9b.4 and 9b.5);
- ch09b.ex3: predict, then run: how the steps that must run one after another in a training step change when
  the sequences get longer and the batch shrinks (section 9b.1).

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch09b.py``).
"""

from __future__ import annotations

import math

import torch

from .expected import Expected
from .registry import as_choice, as_number, exercise

EXPECTED = Expected("ch09b")

# -- ex1: the exponent of a power law ------------------------------------------------------------------------------


def _exponent_cases():
    """(name, compute, loss): an exact law, and two noisy ones over different ranges (a seeded generator)."""
    g = torch.Generator().manual_seed(95)
    exact = [10.0 ** k for k in range(10, 15)]
    cases = [("exact", exact, [3.0 * c ** -0.05 for c in exact])]
    for name, (low, high, p, c, n) in {"noisy": (1e11, 1e14, -0.08, 9.0, 12),
                                       "steep": (1e3, 1e6, -0.3, 40.0, 9)}.items():
        compute = torch.logspace(math.log10(low), math.log10(high), n, dtype=torch.float64)
        noise = 1 + 0.02 * torch.randn(n, generator=g, dtype=torch.float64)
        cases.append((name, compute.tolist(), (c * compute ** p * noise).tolist()))
    return cases


@exercise("ch09b.ex1", "The exponent of a scaling law")
def check_exponent(answer):
    if not callable(answer):
        return False, "answer should be your function fit_exponent(compute, loss) returning the exponent p (a number)."
    for name, compute, loss in _exponent_cases():
        got = as_number(answer(list(compute), list(loss)), "the exponent p (a number)")
        expected = EXPECTED("exponent", name, compute, loss)
        if abs(got - expected) <= 1e-6 + 1e-4 * abs(expected):
            continue
        hints = {"semilog": " That is the slope of the loss itself against log compute: take the log of both.",
                 "swapped": " That is the slope of log compute against log loss: regress log loss on log compute.",
                 "ends": " That is the slope between the first and the last point only: fit a line through "
                         "all of them by least squares.",
                 "mixed_bases": " One axis in log10 and the other in the natural log: use the same log for both."}
        hint = next((words for mistake, words in hints.items()
                     if (value := EXPECTED.maybe(mistake, name, compute, loss)) is not None
                     and abs(got - value) <= 1e-6 + 1e-4 * abs(value)), "")
        return False, (f"on the {name} points you gave p = {got:.4g}; the least-squares slope of log loss on log "
                       f"compute is {expected:.4g}.{hint}")
    return True, ("the slope of log loss on log compute: a power law is a straight line on log-log axes, and its "
                  "exponent is the slope (negative: the loss falls as compute grows).")


# -- ex2: the bytes of a key/value cache --------------------------------------------------------------------------

_CACHES = ((30, 3, 64, 8192, 4), (30, 9, 64, 1, 4), (2, 4, 16, 100, 2), (12, 12, 64, 1024, 2))


@exercise("ch09b.ex2", "The memory of a key/value cache")
def check_cache_bytes(answer):
    if not callable(answer):
        return False, ("answer should be your function kv_cache_bytes(num_layers, num_kv_heads, head_dim, tokens, "
                       "bytes_per_value) returning a number of bytes.")
    for sizes in _CACHES:
        case = ",".join(map(str, sizes))
        got = as_number(answer(*sizes), "a number of bytes")
        expected = EXPECTED("cache_bytes", case, *sizes)
        if got == expected:
            continue
        hint = ""
        if got == EXPECTED.maybe("keys_only", case, *sizes):
            hint = " A cache holds keys *and* values: two vectors per head per token."
        elif got == EXPECTED.maybe("one_layer", case, *sizes):
            hint = " Every layer keeps its own keys and values."
        elif got == EXPECTED.maybe("bits", case, *sizes):
            hint = " bytes_per_value is already in bytes: do not multiply by 8."
        return False, (f"for (layers, kv heads, head_dim, tokens, bytes) = {sizes} you gave {got:,.0f}, the cache "
                       f"holds {expected:,} bytes.{hint}")
    return True, ("2 (keys and values) x layers x key/value heads x head_dim x tokens x bytes: with 3 key/value "
                  "heads instead of 9, SmolLM2's cache is three times smaller.")


# -- ex3: predict, then run: the steps that wait for each other ----------------------------------------------------

CH09B_EX3_CHOICES = (
    "a) both double",
    "b) the LSTM's double; the attention layer's stay the same",
    "c) both stay the same, because the tokens per step are fixed",
    "d) the LSTM's stay the same; the attention layer's double",
)


@exercise("ch09b.ex3", "Predict the steps that must wait for each other")
def check_sequential_steps(answer):
    choice = as_choice(answer, CH09B_EX3_CHOICES, "the change you predict")
    if choice == EXPECTED("sequential_steps", "choice", CH09B_EX3_CHOICES):
        return True, ("An LSTM takes one step per token of a sequence, each waiting for the last: n steps in a row, "
                      "whatever the batch. An attention layer computes every position at once: a fixed number of "
                      "products, however long the sequence (Vaswani et al., 2017, Table 1). Its work grows with n, "
                      "not its chain of steps.")
    if choice.startswith("c)"):
        return False, ("The total work is fixed, but not how it is chained: a smaller batch does not shorten the "
                       "LSTM's chain of n steps, it only makes each step smaller.")
    if choice.startswith("a)"):
        return False, ("Attention's work grows with n, but none of it waits for the previous position: all "
                       "positions are computed in the same few products.")
    return False, ("It is the other way round: the recurrence is the chain (step t needs the state of step t - 1); "
                   "attention reads every position at once.")
