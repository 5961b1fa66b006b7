"""Chapter 4b's exercises: the references are right (by hand, by PyTorch, by seqviz.decode.sample's rule), and
the typical wrong answers get the explanation that fits them. (the references are the instructor's: instructor/exercises/ch04b.py. tests/test_exercises.py runs the generic checks:
reference accepted, wrong answers rejected, junk answers and NaN give feedback, random state kept, hidden tests.)"""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from seqviz.exercises import EXERCISES, normalise_id, run_checker
from seqviz.sampling import choose, distribution

from instructor.exercises import SOLUTIONS, ch04b
from instructor.grader.judge import points, run_hidden


def test_the_three_exercises_are_registered_under_chapter_4b():
    assert {"ch04b.ex1", "ch04b.ex2", "ch04b.ex3"} <= set(EXERCISES)
    assert normalise_id("CH4B-EX2") == "ch04b.ex2" and points("ch04b.ex1") == 2
    for key in ("ch04b.ex1", "ch04b.ex2", "ch04b.ex3"):
        assert run_checker(key, SOLUTIONS[key].reference())[0]
        assert run_hidden(key, SOLUTIONS[key].reference(), seed=7)[0]


def test_perplexity_reference_is_exp_of_pytorchs_mean_cross_entropy():
    generator = torch.Generator().manual_seed(0)
    logits, targets = torch.randn(3, 11, 7, generator=generator), torch.randint(0, 7, (3, 11), generator=generator)
    losses = F.cross_entropy(logits.reshape(-1, 7), targets.reshape(-1), reduction="none").double()   # (33,)
    batches = [losses[:20], losses[20:31], losses[31:]]                                                  # 20, 11, 2
    mean = F.cross_entropy(logits.reshape(-1, 7), targets.reshape(-1)).item()
    assert ch04b._perplexity_reference(batches) == pytest.approx(math.exp(mean), rel=1e-6)
    assert ch04b._perplexity_reference([torch.full((4,), math.log(5.0))]) == pytest.approx(5.0)


@pytest.mark.parametrize("wrong,words", [
    (lambda b: ch04b._perplexity_of_batch_means(b), "averaged the batches' mean losses"),
    (lambda b: ch04b._perplexity_base_two(b), "natural logarithms (nats)"),
    (lambda b: ch04b._mean_loss(b), "its exponential"),
    (lambda b: 1.0, "exp(sum of every token's loss / number of tokens)"),
])
def test_perplexity_wrong_answers_are_explained(wrong, words):
    ok, message = run_checker("ch04b.ex1", wrong)
    assert not ok and words in message, message


def test_sampling_reference_is_the_books_rule():
    generator = torch.Generator().manual_seed(1)
    for _ in range(200):
        logits = torch.randn(int(torch.randint(2, 30, (), generator=generator)), generator=generator) * 3
        temperature, u = float(torch.rand((), generator=generator)) * 2 + 0.05, float(torch.rand((), generator=generator))
        assert ch04b._sample_reference(logits, temperature, u) == choose(distribution(logits, temperature), u)
    # by hand: logits (2, 1, 0, -1), T = 1: p = (0.644, 0.237, 0.087, 0.032), running 0.644, 0.881, 0.968, 1
    assert [ch04b._sample_reference(torch.tensor([2.0, 1, 0, -1]), 1.0, u) for u in (0.6, 0.7, 0.9, 0.97)] == [0, 1, 2, 3]


@pytest.mark.parametrize("wrong,words", [
    (ch04b._sample_argmax, "you returned the most likely token"),
    (ch04b._sample_sorted, "in id order"),
    (ch04b._sample_times_temperature, "do not multiply"),
    (lambda logits, t, u: len(logits) - 1, "return the first id whose running sum exceeds u"),
    (lambda logits, t, u: 0.5, "should return an int token id"),
])
def test_sampling_wrong_answers_are_explained(wrong, words):
    ok, message = run_checker("ch04b.ex2", wrong)
    assert not ok and words in message, message


def test_a_tensor_token_id_is_accepted():
    assert run_checker("ch04b.ex2", lambda *a: torch.tensor(ch04b._sample_reference(*a)))[0]


def test_a_numpy_integer_token_id_is_judged_by_its_value():
    import numpy as np

    ok, _ = run_checker("ch04b.ex2", lambda logits, t, u: np.int64(ch04b._sample_reference(logits, t, u)))
    assert ok
    ok, message = run_checker("ch04b.ex2", lambda logits, t, u: np.int64(0))
    assert not ok and "most likely token" in message


def test_bigram_reference_by_hand():
    # train bigrams: 0->1 x3, 1->2 x3, 1->1 x1, 2->0 x2; with V = 3 and add-one:
    # P(1|0) = 4/6, P(2|1) = 4/7, P(2|2) = 1/5, P(0|2) = 3/5; the test sequence has 4 bigrams
    hand = math.exp(-(math.log(4 / 6) + math.log(4 / 7) + math.log(1 / 5) + math.log(3 / 5)) / 4)
    from seqviz.exercises.ch04b import EX3_CASES

    train, test, V = EX3_CASES[0]
    assert ch04b._bigram_reference(train, test, V) == pytest.approx(hand, rel=1e-12)
    assert ch04b._bigram_reference([0, 0], [0, 0], 5) == pytest.approx(6 / 2)   # P(0|0) = 2/6


@pytest.mark.parametrize("wrong,words", [
    (ch04b._bigram_plus_one_below, "the denominator grows by V"),
    (ch04b._bigram_over_all_tokens, "n - 1 bigrams"),
    (ch04b._bigram_test_counts, "held out"),
    (lambda train, test, V: float(V), "then exp of the mean of -log P(b | a)"),
])
def test_bigram_wrong_answers_are_explained(wrong, words):
    ok, message = run_checker("ch04b.ex3", wrong)
    assert not ok and words in message, message


def test_unsmoothed_counts_get_feedback_not_a_traceback():
    def unsmoothed(train, test, V):
        counts = ch04b._bigram_counts(train, V)
        probs = counts / counts.sum(1, keepdim=True)
        return math.exp(-sum(math.log(float(probs[a, b])) for a, b in zip(test[:-1], test[1:])) / (len(test) - 1))

    def unsmoothed_torch(train, test, V):
        counts = ch04b._bigram_counts(train, V)
        probs = counts / counts.sum(1, keepdim=True)
        return torch.exp(-torch.stack([probs[a, b].log() for a, b in zip(test[:-1], test[1:])]).mean())

    for answer in (unsmoothed, unsmoothed_torch):   # math.log(0) raises; torch's log(0) is -inf: both explained
        ok, message = run_checker("ch04b.ex3", answer)
        assert not ok and "never occurs in training" in message, message
