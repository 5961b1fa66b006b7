"""Exercises of chapter 06, beam search (registered on import).

- ch06.ex1: the length-normalised score of a hypothesis; ch06.ex1b: which hypothesis wins at alpha 0 and 1;
- ch06.ex2: one step of beam search over k live prefixes;
- ch06.ex3: the log-probability of a long sequence, without underflow.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch06.py``).
"""

from __future__ import annotations

import math

import torch

from .expected import Expected
from .registry import Feedback, as_choice, as_number, as_sequence, as_tensor, exercise

EXPECTED = Expected("ch06")

# -- ex1: the score -----------------------------------------------------------------------------


@exercise("ch06.ex1", "Length-normalised scores")
def check_score(answer):
    if not callable(answer):
        return False, "answer should be your function score(log_prob, length, alpha)."
    for lp, n, a in ((-4.0, 4, 0.0), (-4.0, 4, 1.0), (-3.2, 7, 0.7), (-10.0, 12, 0.7), (-1.5, 2, 2.0)):
        got = as_number(answer(lp, n, a), "a number (the score)")
        expected = EXPECTED("score", f"{lp},{n},{a}", lp, n, a)
        if abs(got - expected) > 1e-6:
            hint = " With alpha = 0 the score should be the log-probability itself." if a == 0 else ""
            return False, f"score({lp}, {n}, {a}) should be {expected:.4f}, you give {got:.4f}.{hint}"
    return True, ("alpha = 0 ranks by log-probability, alpha = 1 by the mean log-probability per token, 0.7 in "
                  "between.")


_FOLLOW_UP = {"short": (-2.0, 2), "long": (-2.7, 4)}


@exercise("ch06.ex1b", "Length-normalised scores: who wins")
def check_winners(answer):
    got = as_sequence(answer, 2, "the winners at alpha = 0 and alpha = 1")
    if not all(isinstance(g, str) and g.strip().lower() in _FOLLOW_UP for g in got):
        raise Feedback(f'write the winners as two words, "short" or "long", got {got!r}.')
    got = [g.strip().lower() for g in got]
    expected = [EXPECTED("winner", alpha, _FOLLOW_UP, alpha) for alpha in (0.0, 1.0)]
    if got == expected:
        return True, ("at alpha = 0 the short hypothesis wins (-2.0 > -2.7); at alpha = 1 the long one (-2.7 / 4 = "
                      "-0.675 > -2.0 / 2 = -1.0): length normalisation undoes the bias towards short outputs.")
    wrong = [name for name, g, e in zip(("alpha = 0", "alpha = 1"), got, expected) if g != e]
    return False, f"not at {' and '.join(wrong)}: compute score(-2.0, 2, alpha) and score(-2.7, 4, alpha) and compare."


# -- ex2: one beam step -------------------------------------------------------------------------


def _indices(values, what: str, size: int, name: str) -> torch.Tensor:
    """Integer ids in [0, size) (Feedback naming the range otherwise)."""
    if values.is_floating_point() or values.is_complex() or values.dtype == torch.bool:
        raise Feedback(f"{what} should be an integer tensor, got dtype {values.dtype}.")
    if values.numel() and (int(values.min()) < 0 or int(values.max()) >= size):
        raise Feedback(f"{what} should hold {name} between 0 and {size - 1}, got values from {int(values.min())} to "
                       f"{int(values.max())}: are parents and tokens in the right order, (parents, tokens, totals)?")
    return values.long()


@exercise("ch06.ex2", "One step of beam search")
def check_beam_step(answer):
    if not callable(answer):
        return False, "answer should be your function beam_step(live, next_log_probs, beam_size)."
    g = torch.Generator().manual_seed(7)
    for k, V, beam in ((3, 5, 3), (2, 6, 4), (1, 4, 2)):
        live = -torch.rand(k, generator=g) * 3
        nxt = torch.randn(k, V, generator=g).log_softmax(-1)
        got = as_sequence(answer(live.clone(), nxt.clone(), beam), 3, "beam_step's result (parents, tokens, totals)")
        expected = EXPECTED("best_totals", f"{k},{V},{beam}", live, nxt, beam)
        parents, tokens = (as_tensor(t, torch.zeros(0, dtype=torch.long), n) for t, n in zip(got[:2],
                                                                                             ("parents", "tokens")))
        totals = as_tensor(got[2], expected, "totals")
        if parents.shape != tokens.shape or parents.dim() != 1:
            return False, "parents and tokens should be 1-D integer tensors of the same length."
        if totals.shape != expected.shape or parents.shape != expected.shape:
            return False, (f"with beam_size={beam} you should return {beam} candidates, got "
                           f"{tuple(totals.shape)} totals and {tuple(parents.shape)} parents.")
        parents = _indices(parents, "parents", k, "row numbers of live")
        tokens = _indices(tokens, "tokens", V, "token ids")
        recomputed = live[parents] + nxt[parents, tokens]
        if not torch.allclose(recomputed, totals.float(), atol=1e-5):
            return False, ("your totals are not live[parent] + next_log_probs[parent, token]: add the prefix's "
                           "log-probability.")
        if not torch.allclose(totals.float().sort(descending=True).values, expected, atol=1e-5):
            return False, (f"for {k} live prefixes and V = {V} your candidates are not the {beam} best of all "
                           f"{k * V}: rank every (parent, token) pair by its total log-probability.")
        if not torch.allclose(totals.float(), expected, atol=1e-5):
            return False, ("the right candidates, in the wrong order: return them best first (the highest total "
                           "log-probability at index 0), as topk does.")
    return True, "k x V candidates, ranked by total log-probability, the best beam_size kept: that is the whole step."


# -- ex3: underflow -----------------------------------------------------------------------------


@exercise("ch06.ex3", "A long sentence without underflow")
def check_log_prob(answer):
    if not callable(answer):
        return False, "answer should be your function sequence_log_prob(probs)."
    g = torch.Generator().manual_seed(8)
    for n in (3, 60, 500, 2000):
        probs = torch.rand(n, generator=g) * 0.5 + 0.05  # (n,) float32
        raw = answer(probs.clone())
        value = raw.item() if isinstance(raw, torch.Tensor) and raw.numel() == 1 else raw
        if isinstance(value, float) and not math.isfinite(value):
            return False, (f"for {n} tokens you get {value}: the product of the probabilities underflowed to 0 "
                           "before the log. Add logs instead of multiplying probabilities.")
        got = as_number(raw, "a number (a log-probability)")
        expected = EXPECTED("sequence_log_prob", n, probs)
        if abs(got - expected) > 1e-3 * max(1.0, abs(expected)):
            return False, f"for {n} tokens the log-probability is {expected:.2f}, you give {got:.4g}."
    return True, "the sum of logs stays finite where the product of 2,000 probabilities is 0 in floating point."


# -- ex4: predict whether a wider beam can do worse than greedy -------------------------------------

CH06_EX4_CHOICES = ("a) never: its output is always at least as probable as greedy's",
                    "b) it can: a wider beam may prune greedy's prefix and end with a less probable output",
                    "c) always: a wider beam only ever lowers the probability")


@exercise("ch06.ex4", "Predict: can a wider beam do worse than greedy?")
def check_wider_beam(answer):
    choice = as_choice(answer, CH06_EX4_CHOICES, "the statement you predict")
    if choice == EXPECTED("wider_beam", "choice", CH06_EX4_CHOICES):
        return True, ("a beam keeps the k best prefixes of each step, and greedy's prefix is not always among "
                      "them: rare, but possible, so beam search is not monotone in k.")
    if choice.startswith("a)"):
        return False, ("that would hold if greedy's prefix always stayed in the beam. Can two other prefixes "
                       "outrank it at some step? Then count the test sentences whose beam output has a lower "
                       "log P than greedy's.")
    return False, "greedy is beam search with k = 1; a wider beam usually finds something more probable, not less."
