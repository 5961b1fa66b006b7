"""Chapter 9b's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch09b.py``)."""

from __future__ import annotations

import math

import torch

from seqviz.exercises.registry import as_number

from . import hidden, mistakes, solution, values
from .helpers import agree, randint


def _exponent_reference(compute, loss):
    lx = [math.log(c) for c in compute]
    ly = [math.log(v) for v in loss]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def _exponent_semilog(compute, loss):
    return _exponent_reference(compute, [math.exp(v) for v in loss])  # the slope of loss itself on log compute


def _exponent_swapped(compute, loss):
    return _exponent_reference(loss, compute)  # log compute regressed on log loss


def _exponent_ends(compute, loss):
    return (math.log(loss[-1]) - math.log(loss[0])) / (math.log(compute[-1]) - math.log(compute[0]))


def _exponent_mixed_bases(compute, loss):
    return _exponent_reference(compute, loss) * math.log(10)  # log10 of the loss, natural log of the compute


def _cache_reference(num_layers, num_kv_heads, head_dim, tokens, bytes_per_value):
    return 2 * num_layers * num_kv_heads * head_dim * tokens * bytes_per_value


values("ch09b", exponent=_exponent_reference, cache_bytes=_cache_reference,
       sequential_steps=lambda choices: choices[1])
mistakes("ch09b", "exponent", semilog=_exponent_semilog, swapped=_exponent_swapped, ends=_exponent_ends,
         mixed_bases=_exponent_mixed_bases)
mistakes("ch09b", "cache_bytes", keys_only=lambda *s: _cache_reference(*s) // 2,
         one_layer=lambda *s: _cache_reference(*s) // s[0], bits=lambda *s: 8 * _cache_reference(*s))

solution("ch09b.ex1", lambda: _exponent_reference,
         forbidden=("seqviz.measure.power_law_fit", "seqviz.measure.fit_power_law"), wrong={
             "semilog": (lambda: _exponent_semilog, "take the log of both"),
             "swapped": (lambda: _exponent_swapped, "regress log loss on log compute"),
             "ends only": (lambda: _exponent_ends, "by least squares"),
             "mixed bases": (lambda: _exponent_mixed_bases, "use the same log for both")})
solution("ch09b.ex2", lambda: _cache_reference, wrong={
    "keys only": (lambda: (lambda *s: _cache_reference(*s) // 2), "keys *and* values"),
    "one layer": (lambda: (lambda *s: _cache_reference(*s) // s[0]), "Every layer keeps"),
    "bits": (lambda: (lambda *s: 8 * _cache_reference(*s)), "do not multiply by 8"),
    "query heads": (lambda: (lambda L, kv, d, n, b: _cache_reference(L, 3 * kv, d, n, b)), "the cache holds")})
solution("ch09b.ex3", lambda: "b", wrong={
    "fixed tokens": (lambda: "c", "a smaller batch does not shorten"),
    "both double": (lambda: "a", "none of it waits"),
    "the other way": (lambda: "d", "the other way round")})


@hidden("ch09b.ex1")
def _hidden_exponent(answer, g):
    cases = []
    for _ in range(3):
        n = randint(g, 4, 15)
        p = -float(torch.rand((), generator=g, dtype=torch.float64)) * 0.5 - 0.01
        start = 10.0 ** randint(g, 2, 12)
        compute = [start * 10.0 ** (3 * float(u)) for u in torch.rand(n, generator=g, dtype=torch.float64).sort()[0]]
        noise = (1 + 0.05 * torch.randn(n, generator=g, dtype=torch.float64)).tolist()
        cases.append((compute, [2.5 * c ** p * e for c, e in zip(compute, noise)]))
    for compute, loss in cases:
        got = as_number(answer(list(compute), list(loss)), "the exponent p")
        expected = _exponent_reference(compute, loss)
        if abs(got - expected) > 1e-6 + 1e-4 * abs(expected):
            return False, f"on {len(compute)} unevenly spaced points you gave p = {got:.4g}, expected {expected:.4g}"
    return True, "3 further sets of points agree with the least-squares slope"


@hidden("ch09b.ex2")
def _hidden_cache(answer, g):
    cases = [(randint(g, 1, 40), randint(g, 1, 16), 8 * randint(g, 1, 16), randint(g, 1, 40000), randint(g, 1, 4))
             for _ in range(4)]
    return agree(answer, _cache_reference, cases, "kv_cache_bytes", atol=0.5, rtol=0)
