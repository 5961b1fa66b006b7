"""Chapter 6's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch06.py``)."""

from __future__ import annotations

import numpy as np
import torch

from seqviz.exercises.registry import as_sequence

from . import hidden, solution, values
from .helpers import agree, randint


def _score_reference(log_prob, length, alpha):
    return log_prob / length ** alpha


def _winner(hypotheses, alpha):
    return max(hypotheses, key=lambda name: _score_reference(*hypotheses[name], alpha))


def _beam_step_reference(live, next_log_probs, beam_size):
    V = next_log_probs.shape[1]
    totals = (live[:, None] + next_log_probs).flatten()  # (k*V,)
    best = totals.topk(beam_size)
    return best.indices // V, best.indices % V, best.values


def _beam_step_ignores_history(live, next_log_probs, beam_size):
    V = next_log_probs.shape[1]
    best = next_log_probs.flatten().topk(beam_size)
    return best.indices // V, best.indices % V, best.values


def _beam_step_one_per_row(live, next_log_probs, beam_size):
    values, tokens = next_log_probs.max(-1)
    totals = live + values
    order = totals.argsort(descending=True)[:beam_size]
    return order, tokens[order], totals[order]


def _beam_step_worst_first(live, next_log_probs, beam_size):
    return tuple(t.flip(0) for t in _beam_step_reference(live, next_log_probs, beam_size))


def _beam_step_swapped(live, next_log_probs, beam_size):
    parents, tokens, totals = _beam_step_reference(live, next_log_probs, beam_size)
    return tokens, parents, totals


def _log_prob_reference(probs):
    return float(torch.log(torch.as_tensor(probs, dtype=torch.float64)).sum())


values("ch06", score=_score_reference, winner=_winner,
       best_totals=lambda live, nxt, beam: _beam_step_reference(live, nxt, beam)[2],
       sequence_log_prob=_log_prob_reference, wider_beam=lambda choices: choices[1])

solution("ch06.ex1", lambda: _score_reference, forbidden=("seqviz.decode.length_score",), wrong={
    "per token": (lambda: (lambda lp, n, a: lp / n), "should be the log-probability itself"),
    "times": (lambda: (lambda lp, n, a: lp * n ** a), "you give")})
solution("ch06.ex1b", lambda: ("short", "long"), wrong={"short short": (lambda: ("short", "short"), "alpha = 1"),
                                                         "swapped": (lambda: ("long", "short"), "alpha = 0 and"),
                                                         "long long": (lambda: ["long", "long"], "not at alpha = 0")})
solution("ch06.ex2", lambda: _beam_step_reference, wrong={
    "ignores history": (lambda: _beam_step_ignores_history, "add the prefix's log-probability"),
    "one per row": (lambda: _beam_step_one_per_row, "rank every (parent, token) pair"),
    "worst first": (lambda: _beam_step_worst_first, "best first"),
    "parents and tokens swapped": (lambda: _beam_step_swapped, "in the right order")})
solution("ch06.ex3", lambda: _log_prob_reference, wrong={
    "log of the product": (lambda: (lambda p: float(torch.as_tensor(p).prod().log())), "underflowed"),
    "the product": (lambda: (lambda p: float(torch.as_tensor(p).prod())), "the log-probability is")})


@hidden("ch06.ex1")
def _hidden_score(answer, g):
    cases = [(float(-torch.rand((), generator=g) * 20), randint(g, 1, 40), float(torch.rand((), generator=g) * 2))
             for _ in range(8)]
    cases.append((np.float64(-3.0), np.int64(6), np.float32(0.5)))
    return agree(answer, lambda lp, n, a: _score_reference(float(lp), float(n), float(a)), cases, "score", atol=1e-6)


@hidden("ch06.ex2")
def _hidden_beam_step(answer, g):
    for k, V, beam in ((1, 3, 3), (randint(g, 2, 4), 5, 7)):
        live = -torch.rand(k, generator=g) * 3
        nxt = torch.randn(k, V, generator=g).log_softmax(-1)
        got = as_sequence(answer(live, nxt, beam), 3, "beam_step's result")
        parents, tokens, totals = (torch.as_tensor(np.asarray(t)) for t in got)
        expected = _beam_step_reference(live, nxt, beam)[2]
        if totals.shape != expected.shape or not torch.allclose(totals.float(), expected, atol=1e-5):
            return False, f"with k={k}, V={V}, beam_size={beam} the totals are not the best {beam}, best first."
        if parents.shape != expected.shape or tokens.shape != expected.shape or parents.is_floating_point() or \
                tokens.is_floating_point() or bool((parents < 0).any() or (parents >= k).any()
                                                   or (tokens < 0).any() or (tokens >= V).any()):
            return False, f"with k={k}, V={V}, beam_size={beam} parents and tokens are not valid ids."
        if not torch.allclose(live[parents.long()] + nxt[parents.long(), tokens.long()], expected, atol=1e-5):
            return False, f"with k={k}, V={V}, beam_size={beam} parents and tokens do not give those totals."
    return True, "beam_step keeps the best candidates, best first, with one prefix and with beam_size > V"


@hidden("ch06.ex3")
def _hidden_log_prob(answer, g):
    probs = torch.rand(5000, generator=g) * 0.9 + 1e-30  # (5000,) float32, some tiny
    return agree(answer, _log_prob_reference, [(probs,)], "sequence_log_prob", atol=1e-3, rtol=1e-5)

solution("ch06.ex4", lambda: "b", wrong={"never": (lambda: "a", "count"),
                                         "always": (lambda: "c", "greedy is beam search")})
