"""Exercises of chapter 4b, language models on real text (registered on import).

- ch04b.ex1: perplexity from per-token losses: exp of the mean cross-entropy (nats) over every token of every
  batch, not the mean of the batches' means, and e rather than 2;
- ch04b.ex2: temperature sampling by the book's rule (``seqviz.decode.sample``): softmax(logits / T), then
  the inverse CDF in id order with one uniform number u;
- ch04b.ex3: a bigram baseline: counts with add-one smoothing, its perplexity on a held-out sequence;
- ch04b.ex4: a conceptual question (predict, then run): the perplexity of an untrained network, about the size
  of the vocabulary.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch04b.py``).
"""

from __future__ import annotations

import math
import numbers

import torch

from .expected import Expected
from .registry import AnswerRaised, Feedback, as_choice, as_number, describe, exercise

EXPECTED = Expected("ch04b")

# -- ex1: perplexity from per-token losses -------------------------------------------------------------


def _ex1_cases():
    generator = torch.Generator().manual_seed(41)
    cases = []
    for sizes in ((64, 64, 7), (5, 200), (128,)):   # the last batch of an epoch is often short
        cases.append([torch.rand(n, generator=generator, dtype=torch.float64) * 4 + 0.5 * i
                      for i, n in enumerate(sizes)])
    return cases


def _close(got, value, scale):
    return value is not None and abs(got - value) <= 1e-6 * scale


@exercise("ch04b.ex1", "Perplexity from per-token losses")
def check_perplexity(answer):
    if not callable(answer):
        return False, "answer should be your function perplexity(batch_losses) returning a number."
    for batch_losses in _ex1_cases():
        sizes = [losses.numel() for losses in batch_losses]
        case = ",".join(map(str, sizes))
        got = as_number(answer([b.clone() for b in batch_losses]), "a number: the perplexity")
        expected = EXPECTED("perplexity", case, batch_losses)
        if abs(got - expected) <= 1e-6 * expected:
            continue
        if _close(got, EXPECTED.maybe("perplexity_of_batch_means", case), expected):
            return False, (f"With batches of {sizes} tokens you averaged the batches' mean losses: a short batch "
                           "then counts as much as a full one. Add up every token's loss and divide by the number "
                           "of tokens, then take exp.")
        if _close(got, EXPECTED.maybe("perplexity_base_two", case), expected):
            return False, ("That is 2 to the mean loss; cross_entropy gives natural logarithms (nats), so the "
                           "perplexity is e to the mean loss: math.exp.")
        if _close(got, EXPECTED.maybe("mean_loss", case), expected):
            return False, "That is the mean loss per token (nats); the perplexity is its exponential."
        return False, (f"For batches of {sizes} tokens the perplexity is {expected:.4f}, you returned {got:.4f}: "
                       "exp(sum of every token's loss / number of tokens).")
    return True, ("perplexity = exp(mean cross-entropy per token, in nats): the model is as unsure as a uniform "
                  "choice among that many tokens.")


# -- ex2: temperature sampling by the inverse CDF ---------------------------------------------------------

EX2_CASES = (((2.0, 1.0, 0.0, -1.0), 1.0, 0.05), ((2.0, 1.0, 0.0, -1.0), 1.0, 0.7), ((2.0, 1.0, 0.0, -1.0), 1.0, 0.97),
             ((0.5, 3.0, 1.0, 2.9, -2.0), 0.5, 0.2), ((0.5, 3.0, 1.0, 2.9, -2.0), 2.0, 0.9),
             ((0.5, 3.0, 1.0, 2.9, -2.0), 0.25, 0.6), ((1.0, 1.0, 1.0), 1.0, 0.5))


def token_id(got) -> int:
    """A token id returned by an answer: an int, a numpy integer or a one-element integer tensor."""
    if isinstance(got, torch.Tensor) and got.numel() == 1 and not got.is_floating_point() and \
            got.dtype != torch.bool:
        got = int(got)
    if isinstance(got, numbers.Integral) and not isinstance(got, bool):   # a numpy integer is an id too
        return int(got)
    raise Feedback(f"sample_token should return an int token id, got {describe(got)}.")


@exercise("ch04b.ex2", "Temperature sampling with one uniform number")
def check_sample(answer):
    if not callable(answer):
        return False, "answer should be your function sample_token(logits, temperature, u) returning a token id."
    for i, (values, temperature, u) in enumerate(EX2_CASES):
        logits = torch.tensor(values)
        got = token_id(answer(logits.clone(), temperature, u))
        expected = EXPECTED("sample", i, logits, temperature, u)
        if got == expected:
            continue
        case = f"logits {list(values)}, temperature {temperature}, u = {u}"
        if got == EXPECTED.maybe("sample_argmax", i):
            hint = "you returned the most likely token: sampling must use u, so that a less likely token can win"
        elif got == EXPECTED.maybe("sample_sorted", i):
            hint = ("you walked the tokens from the most likely down; the book's rule walks them in id order "
                    "(0, 1, 2, ...), so that the same u always means the same stretch of [0, 1)")
        elif got == EXPECTED.maybe("sample_times_temperature", i):
            hint = "divide the logits by the temperature (a small T sharpens the distribution), do not multiply"
        else:
            hint = ("softmax(logits / T), add the probabilities up in id order, and return the first id whose "
                    "running sum exceeds u")
        return False, f"For {case} the token is {expected}, you returned {got}: {hint}."
    return True, ("sample_token follows the book's rule: softmax(logits / T), then the first id whose running "
                  "sum exceeds u. The same u gives the same token: the live view's seed slider is that.")


# -- ex3: a bigram baseline with add-one smoothing ----------------------------------------------------------

EX3_CASES = (([0, 1, 2, 0, 1, 2, 0, 1, 1, 2], [0, 1, 2, 2, 0], 3),
             ([3, 1, 4, 1, 5, 2, 6, 5, 3, 5, 0, 2, 3, 1, 4], [1, 4, 1, 5, 9, 2, 6], 10))


@exercise("ch04b.ex3", "A bigram baseline with add-one smoothing")
def check_bigram(answer):
    if not callable(answer):
        return False, "answer should be your function bigram_perplexity(train_ids, test_ids, vocab_size)."
    unseen = ("a test bigram that never occurs in training (here (2, 2)) gets probability 0 without smoothing; "
              "add-one smoothing, (count(a, b) + 1) / (count(a) + V), keeps it possible")
    for i, (train_ids, test_ids, vocab_size) in enumerate(EX3_CASES):
        try:
            raw = answer(list(train_ids), list(test_ids), vocab_size)
        except AnswerRaised as error:
            if isinstance(error.original, (ZeroDivisionError, ValueError)) or \
                    str(error).startswith(("ZeroDivisionError", "ValueError")):   # math.log(0) and friends
                return False, f"Your function raised {error}: {unseen}."
            raise
        value = raw.item() if isinstance(raw, torch.Tensor) and raw.numel() == 1 else raw
        if isinstance(value, float) and math.isinf(value):
            return False, f"Your perplexity is {value}: {unseen}."
        got = as_number(raw, "a number: the perplexity")
        expected = EXPECTED("bigram_perplexity", i, train_ids, test_ids, vocab_size)
        if abs(got - expected) <= 1e-6 * expected:
            continue
        case = f"train {list(train_ids)}, test {list(test_ids)}, V = {vocab_size}"
        if _close(got, EXPECTED.maybe("bigram_plus_one_below", i), expected):
            hint = ("add-one smoothing adds 1 to each of the V counts of a row, so the denominator grows by V, "
                    "not by 1: (count(a, b) + 1) / (count(a) + V), and each row sums to 1")
        elif _close(got, EXPECTED.maybe("bigram_over_all_tokens", i), expected):
            hint = ("a test sequence of n tokens has n - 1 bigrams: the first token is never predicted, "
                    "so average the negative log-probabilities over n - 1")
        elif _close(got, EXPECTED.maybe("bigram_test_counts", i), expected):
            hint = "count the bigrams on train_ids only: the test sequence is held out"
        else:
            hint = ("count (a, b) pairs on the training ids, P(b | a) = (count(a, b) + 1) / (count(a) + V), "
                    "then exp of the mean of -log P(b | a) over the test bigrams")
        return False, f"For {case} the perplexity is {expected:.4f}, you returned {got:.4f}: {hint}."
    return True, ("Your bigram baseline matches: add-one smoothing keeps unseen pairs possible, and any model "
                  "worth training must beat this perplexity.")


# -- ex4: predict the perplexity of an untrained network ---------------------------------------------------

CH04B_EX4_CHOICES = ("a) about 1", "b) about 11, the bigram's", "c) about 84, the size of the vocabulary",
                     "d) far above 84")


@exercise("ch04b.ex4", "Predict: how unsure is a model that has not trained?")
def check_untrained_perplexity(answer):
    choice = as_choice(answer, CH04B_EX4_CHOICES, "the letter of your prediction")   # "c", "C)" or the text
    if choice == EXPECTED("untrained_perplexity", "choice", CH04B_EX4_CHOICES):
        return True, ("Small random weights give every character nearly the same score, so the softmax is nearly "
                      "uniform over the V = 84 characters, and a uniform guess over V tokens has perplexity V. "
                      "Run the next cell to see how near.")
    if choice.startswith("a)"):
        return False, ("Perplexity 1 is a perfect model, sure of every next character and always right; a model "
                       "that has read nothing cannot be that.")
    if choice.startswith("b)"):
        return False, ("The bigram counted every pair of characters in the training text; the untrained network "
                       "has read nothing, so it cannot know which letter tends to follow which.")
    return False, ("Confident mistakes need large scores, and the weights start small: every score is near 0, so "
                   "the model is unsure of every character rather than sure of the wrong one.")
