"""Exercises of chapter 06, beam search (registered on import).

- ch06.ex1: the length-normalised score of a hypothesis; ch06.ex1b: which hypothesis wins at alpha 0 and 1;
- ch06.ex2: one step of beam search over k live prefixes;
- ch06.ex3: the log-probability of a long sequence, without underflow.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import math

import numpy as np

import torch

from .hidden import agree, hidden_test, randint
from .registry import Feedback, as_number, as_sequence, exercise

# -- ex1: the score -----------------------------------------------------------------------------


def _score_reference(log_prob, length, alpha):
    return log_prob / length ** alpha


@exercise("ch06.ex1", "Length-normalised scores", reference=lambda: _score_reference,
          wrong=[lambda: (lambda lp, n, a: lp / n), lambda: (lambda lp, n, a: lp * n ** a)])
def check_score(answer):
    if not callable(answer):
        return False, "answer should be your function score(log_prob, length, alpha)."
    for lp, n, a in ((-4.0, 4, 0.0), (-4.0, 4, 1.0), (-3.2, 7, 0.7), (-10.0, 12, 0.7), (-1.5, 2, 2.0)):
        got = as_number(answer(lp, n, a), "a number (the score)")
        expected = _score_reference(lp, n, a)
        if abs(got - expected) > 1e-6:
            hint = " With alpha = 0 the score should be the log-probability itself." if a == 0 else ""
            return False, f"score({lp}, {n}, {a}) should be {expected:.4f}, you give {got:.4f}.{hint}"
    return True, "alpha = 0 ranks by log-probability, alpha = 1 by the mean log-probability per token, 0.7 in between."


_FOLLOW_UP = {"short": (-2.0, 2), "long": (-2.7, 4)}


def _winner(alpha):
    return max(_FOLLOW_UP, key=lambda name: _score_reference(*_FOLLOW_UP[name], alpha))


@exercise("ch06.ex1b", "Length-normalised scores: who wins", reference=lambda: ("short", "long"),
          wrong=[lambda: ("short", "short"), lambda: ("long", "short"), lambda: ["long", "long"]])
def check_winners(answer):
    got = as_sequence(answer, 2, "the winners at alpha = 0 and alpha = 1")
    if not all(isinstance(g, str) and g.strip().lower() in _FOLLOW_UP for g in got):
        raise Feedback(f'write the winners as two words, "short" or "long", got {got!r}.')
    got = [g.strip().lower() for g in got]
    expected = [_winner(0.0), _winner(1.0)]
    if got == expected:
        return True, ("at alpha = 0 the short hypothesis wins (-2.0 > -2.7); at alpha = 1 the long one (-2.7 / 4 = "
                      "-0.675 > -2.0 / 2 = -1.0): length normalisation undoes the bias towards short outputs.")
    wrong = [name for name, g, e in zip(("alpha = 0", "alpha = 1"), got, expected) if g != e]
    return False, f"not at {' and '.join(wrong)}: compute score(-2.0, 2, alpha) and score(-2.7, 4, alpha) and compare."


@hidden_test("ch06.ex1")
def _hidden_score(answer, g):
    cases = [(float(-torch.rand((), generator=g) * 20), randint(g, 1, 40), float(torch.rand((), generator=g) * 2))
             for _ in range(8)]
    cases.append((np.float64(-3.0), np.int64(6), np.float32(0.5)))
    return agree(answer, lambda lp, n, a: _score_reference(float(lp), float(n), float(a)), cases, "score", atol=1e-6)


# -- ex2: one beam step -------------------------------------------------------------------------


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


@exercise("ch06.ex2", "One step of beam search", reference=lambda: _beam_step_reference,
          wrong=[lambda: _beam_step_ignores_history, lambda: _beam_step_one_per_row,
                 lambda: _beam_step_worst_first])
def check_beam_step(answer):
    if not callable(answer):
        return False, "answer should be your function beam_step(live, next_log_probs, beam_size)."
    g = torch.Generator().manual_seed(7)
    for k, V, beam in ((3, 5, 3), (2, 6, 4), (1, 4, 2)):
        live = -torch.rand(k, generator=g) * 3
        nxt = torch.randn(k, V, generator=g).log_softmax(-1)
        got = as_sequence(answer(live, nxt, beam), 3, "beam_step's result (parents, tokens, totals)")
        parents, tokens, totals = (torch.as_tensor(t) for t in got)
        if parents.shape != tokens.shape or parents.is_floating_point() or tokens.is_floating_point():
            return False, "parents and tokens should be integer tensors of the same length."
        _, _, expected = _beam_step_reference(live, nxt, beam)
        if totals.shape != expected.shape:
            return False, f"with beam_size={beam} you should return {beam} candidates, got {tuple(totals.shape)}."
        recomputed = live[parents.long()] + nxt[parents.long(), tokens.long()]
        if not torch.allclose(recomputed, totals.float(), atol=1e-5):
            return False, "your totals are not live[parent] + next_log_probs[parent, token]: add the prefix's log-probability."
        if not torch.allclose(totals.float().sort(descending=True).values, expected, atol=1e-5):
            return False, (f"for {k} live prefixes and V = {V} your candidates are not the {beam} best of all "
                           f"{k * V}: rank every (parent, token) pair by its total log-probability.")
        if not torch.allclose(totals.float(), expected, atol=1e-5):
            return False, ("the right candidates, in the wrong order: return them best first (the highest total "
                           "log-probability at index 0), as topk does.")
    return True, "k x V candidates, ranked by total log-probability, the best beam_size kept: that is the whole step."


@hidden_test("ch06.ex2")
def _hidden_beam_step(answer, g):
    for k, V, beam in ((1, 3, 3), (randint(g, 2, 4), 5, 7)):
        live = -torch.rand(k, generator=g) * 3
        nxt = torch.randn(k, V, generator=g).log_softmax(-1)
        got = as_sequence(answer(live, nxt, beam), 3, "beam_step's result")
        parents, tokens, totals = (torch.as_tensor(t) for t in got)
        expected = _beam_step_reference(live, nxt, beam)[2]
        if totals.shape != expected.shape or not torch.allclose(totals.float(), expected, atol=1e-5):
            return False, f"with k={k}, V={V}, beam_size={beam} the totals are not the best {beam}, best first."
        if not torch.allclose(live[parents.long()] + nxt[parents.long(), tokens.long()], expected, atol=1e-5):
            return False, f"with k={k}, V={V}, beam_size={beam} parents and tokens do not give those totals."
    return True, "beam_step keeps the best candidates, best first, with one prefix and with beam_size > V"


# -- ex3: underflow -----------------------------------------------------------------------------


def _log_prob_reference(probs):
    return float(torch.log(torch.as_tensor(probs, dtype=torch.float64)).sum())


@exercise("ch06.ex3", "A long sentence without underflow", reference=lambda: _log_prob_reference,
          wrong=[lambda: (lambda p: float(torch.as_tensor(p).prod().log())),
                 lambda: (lambda p: float(torch.as_tensor(p).prod()))])
def check_log_prob(answer):
    if not callable(answer):
        return False, "answer should be your function sequence_log_prob(probs)."
    g = torch.Generator().manual_seed(8)
    for n in (3, 60, 500, 2000):
        probs = torch.rand(n, generator=g) * 0.5 + 0.05  # (n,) float32
        got = as_number(answer(probs), "a number (a log-probability)")
        expected = _log_prob_reference(probs)
        if not math.isfinite(got):
            return False, (f"for {n} tokens you get {got}: the product of the probabilities underflowed to 0 "
                           "before the log. Add logs instead of multiplying probabilities.")
        if abs(got - expected) > 1e-3 * max(1.0, abs(expected)):
            return False, f"for {n} tokens the log-probability is {expected:.2f}, you give {got:.4g}."
    return True, "the sum of logs stays finite where the product of 2,000 probabilities is 0 in floating point."


@hidden_test("ch06.ex3")
def _hidden_log_prob(answer, g):
    probs = torch.rand(5000, generator=g) * 0.9 + 1e-30  # (5000,) float32, some tiny
    return agree(answer, _log_prob_reference, [(probs,)], "sequence_log_prob", atol=1e-3, rtol=1e-5)
