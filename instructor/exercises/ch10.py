"""Chapter 10's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch10.py``)."""

from __future__ import annotations

import json
import math

import torch

from seqviz.checkpoints import FOLDER, names

from . import hidden, solution, values
from .helpers import agree, randint, same


def _cache_bytes(num_layers, num_heads, head_size, context, batch=1, bytes_per_value=4):
    return 2 * num_layers * batch * num_heads * head_size * context * bytes_per_value  # keys and values


def _persistence_mse(inputs, targets):
    return float((inputs[:, -1, :1] - targets[:, :1]).pow(2).mean())


def _reads(n, cache):
    if cache:
        return n * (n + 1) // 2  # step t: one query against t keys
    return sum(t * (t + 1) // 2 for t in range(1, n + 1))  # step t: t queries, causal, over the whole prefix


FOLLOW_UP_EX1 = (32, 32, 128, 4096, 1, 2)

def _long_run_leader(choices):
    """The family with the lower validation perplexity at the largest matched size of the shipped long runs, or
    the third choice when the two are within 5% (the chapter's tolerance for perplexities)."""
    loss = {family: json.loads((FOLDER / names(family=family)[-1] / "manifest.json").read_text())["final"]
            ["valid_loss"] for family in ("charlm-lstm", "charlm-transformer")}
    lstm, trf = math.exp(loss["charlm-lstm"]), math.exp(loss["charlm-transformer"])
    if abs(lstm - trf) <= 0.05 * max(lstm, trf):
        return choices[2]
    return choices[0] if lstm < trf else choices[1]


values("ch10", cache_bytes=_cache_bytes, persistence_mse=_persistence_mse, query_key_products=_reads,
       long_run_leader=_long_run_leader)

solution("ch10.ex1", lambda: _cache_bytes, wrong={
    "keys only": (lambda: (lambda L, h, hs, n, B=1, b=4: L * B * h * hs * n * b), "a key and a value"),
    "one layer": (lambda: (lambda L, h, hs, n, B=1, b=4: 2 * B * h * hs * n * b), "its own cache")})
solution("ch10.ex1b", lambda: _cache_bytes(*FOLLOW_UP_EX1), wrong={
    "keys only": (lambda: _cache_bytes(*FOLLOW_UP_EX1) / 2, "a key and a value"),
    "float32": (lambda: _cache_bytes(*FOLLOW_UP_EX1[:5], 4), "2 bytes per value"),
    "in GiB": (lambda: _cache_bytes(*FOLLOW_UP_EX1) / 2**30, "size in GiB")})
solution("ch10.ex2", lambda: _persistence_mse, wrong={
    "the mean": (lambda: (lambda x, y: float((x.mean(1)[:, :1] - y[:, :1]).pow(2).mean())), "last value"),
    "the first": (lambda: (lambda x, y: float((x[:, 0, :1] - y[:, :1]).pow(2).mean())), "last value")})
solution("ch10.ex3", lambda: _reads, wrong={
    "squares": (lambda: (lambda n, cache: n * n if cache else n ** 3), "causal mask allows"),
    "one per step": (lambda: (lambda n, cache: n if cache else n * (n + 1) // 2), "causal mask allows")})


@hidden("ch10.ex1")
def _hidden_cache(answer, g):
    for _ in range(4):
        L, h, hs, n = randint(g, 1, 48), randint(g, 1, 64), randint(g, 1, 256), randint(g, 1, 10**5)
        B, b = randint(g, 1, 16), randint(g, 1, 4)
        ok, message = same(answer(L, h, hs, n, batch=B, bytes_per_value=b), _cache_bytes(L, h, hs, n, B, b),
                           f"kv_cache_bytes({L}, {h}, {hs}, {n}, batch={B}, bytes_per_value={b})", atol=0.5, rtol=0)
        if not ok:
            return ok, message
    return True, "the cache size is right at other sizes, with batch and bytes_per_value given by keyword"


@hidden("ch10.ex2")
def _hidden_persistence(answer, g):
    cases = []
    for m, length in ((1, 1), (randint(g, 2, 40), randint(g, 2, 20))):
        x = torch.randn(m, length, 1, generator=g).cumsum(1)
        cases.append((x, x[:, -1] + torch.randn(m, 1, generator=g)))
    return agree(answer, _persistence_mse, cases, "persistence_mse")


@hidden("ch10.ex3")
def _hidden_products(answer, g):
    cases = [(n, cache) for n in (randint(g, 3, 300), randint(g, 3, 300)) for cache in (True, False)]
    return agree(answer, _reads, cases, "query_key_products", atol=0.5, rtol=0)


solution("ch10.ex4", lambda: "a", wrong={"the Transformer": (lambda: "b", "Not in these runs"),
                                          "neither": (lambda: "c", "further apart than 5%")})
