"""Exercises of chapter 4b, language models on real text (registered on import).

- ch04b.ex1: perplexity from per-token losses: exp of the mean cross-entropy (nats) over every token of every
  batch, not the mean of the batches' means, and e rather than 2;
- ch04b.ex2: temperature sampling by the book's rule (``seqviz.decode.sample``): softmax(logits / T), then
  the inverse CDF in id order with one uniform number u;
- ch04b.ex3: a bigram baseline: counts with add-one smoothing, its perplexity on a held-out sequence.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import math
import numbers

import torch

from .hidden import agree, hidden_test, randint
from .registry import Feedback, as_number, exercise

# -- ex1: perplexity from per-token losses -------------------------------------------------------------


def _perplexity_reference(batch_losses):
    total = sum(float(losses.sum()) for losses in batch_losses)
    count = sum(losses.numel() for losses in batch_losses)
    return math.exp(total / count)


def _perplexity_of_batch_means(batch_losses):
    return math.exp(sum(float(losses.mean()) for losses in batch_losses) / len(batch_losses))


def _perplexity_base_two(batch_losses):
    total = sum(float(losses.sum()) for losses in batch_losses)
    return 2 ** (total / sum(losses.numel() for losses in batch_losses))


def _mean_loss(batch_losses):
    return sum(float(losses.sum()) for losses in batch_losses) / sum(losses.numel() for losses in batch_losses)


def _ex1_cases():
    generator = torch.Generator().manual_seed(41)
    cases = []
    for sizes in ((64, 64, 7), (5, 200), (128,)):   # the last batch of an epoch is often short
        cases.append([torch.rand(n, generator=generator, dtype=torch.float64) * 4 + 0.5 * i
                      for i, n in enumerate(sizes)])
    return cases


def _value(answer, args, what):
    return as_number(answer(*args), what)


@exercise("ch04b.ex1", "Perplexity from per-token losses", reference=lambda: _perplexity_reference,
          wrong=[lambda: _perplexity_of_batch_means, lambda: _perplexity_base_two, lambda: _mean_loss])
def check_perplexity(answer):
    if not callable(answer):
        return False, "answer should be your function perplexity(batch_losses) returning a number."
    for batch_losses in _ex1_cases():
        sizes = [losses.numel() for losses in batch_losses]
        got = _value(answer, ([b.clone() for b in batch_losses],), "a number: the perplexity")
        expected = _perplexity_reference(batch_losses)
        if abs(got - expected) <= 1e-6 * expected:
            continue
        if abs(got - _perplexity_of_batch_means(batch_losses)) <= 1e-6 * expected:
            return False, (f"With batches of {sizes} tokens you averaged the batches' mean losses: a short batch "
                           "then counts as much as a full one. Add up every token's loss and divide by the number "
                           "of tokens, then take exp.")
        if abs(got - _perplexity_base_two(batch_losses)) <= 1e-6 * expected:
            return False, ("That is 2 to the mean loss; cross_entropy gives natural logarithms (nats), so the "
                           "perplexity is e to the mean loss: math.exp.")
        if abs(got - _mean_loss(batch_losses)) <= 1e-6 * expected:
            return False, "That is the mean loss per token (nats); the perplexity is its exponential."
        return False, (f"For batches of {sizes} tokens the perplexity is {expected:.4f}, you returned {got:.4f}: "
                       "exp(sum of every token's loss / number of tokens).")
    return True, ("perplexity = exp(mean cross-entropy per token, in nats): the model is as unsure as a uniform "
                  "choice among that many tokens.")


@hidden_test("ch04b.ex1")
def _hidden_perplexity(answer, g):
    cases = []
    for _ in range(3):
        sizes = [randint(g, 1, 40) for _ in range(randint(g, 1, 4))]
        cases.append(([torch.rand(n, generator=g, dtype=torch.float64) * randint(g, 1, 6) for n in sizes],))
    cases.append(([torch.full((3,), math.log(10.0), dtype=torch.float64)],))   # uniform over 10: perplexity 10
    return agree(answer, _perplexity_reference, cases, "perplexity", atol=1e-8, rtol=1e-6)


# -- ex2: temperature sampling by the inverse CDF ---------------------------------------------------------


def _sample_reference(logits, temperature, u):
    p = torch.softmax(logits.double() / temperature, -1)   # (V,)
    running = torch.cumsum(p, -1)
    above = torch.nonzero(running > u)
    return int(above[0]) if len(above) else int(torch.nonzero(p > 0)[-1])


def _sample_times_temperature(logits, temperature, u):
    return _sample_reference(logits * temperature ** 2, temperature, u)


def _sample_sorted(logits, temperature, u):   # walks the tokens from the most likely down
    p = torch.softmax(logits.double() / temperature, -1)
    order = torch.argsort(p, descending=True, stable=True)
    running = torch.cumsum(p[order], -1)
    return int(order[torch.nonzero(running > u)[0]])


def _sample_argmax(logits, temperature, u):
    return int(logits.argmax())


EX2_CASES = (((2.0, 1.0, 0.0, -1.0), 1.0, 0.05), ((2.0, 1.0, 0.0, -1.0), 1.0, 0.7), ((2.0, 1.0, 0.0, -1.0), 1.0, 0.97),
             ((0.5, 3.0, 1.0, 2.9, -2.0), 0.5, 0.2), ((0.5, 3.0, 1.0, 2.9, -2.0), 2.0, 0.9),
             ((0.5, 3.0, 1.0, 2.9, -2.0), 0.25, 0.6), ((1.0, 1.0, 1.0), 1.0, 0.5))


@exercise("ch04b.ex2", "Temperature sampling with one uniform number", reference=lambda: _sample_reference,
          wrong=[lambda: _sample_times_temperature, lambda: _sample_sorted, lambda: _sample_argmax])
def check_sample(answer):
    if not callable(answer):
        return False, "answer should be your function sample_token(logits, temperature, u) returning a token id."
    for values, temperature, u in EX2_CASES:
        logits = torch.tensor(values)
        got = answer(logits.clone(), temperature, u)
        if isinstance(got, torch.Tensor) and got.numel() == 1 and not got.is_floating_point():
            got = int(got)
        if isinstance(got, numbers.Integral) and not isinstance(got, bool):   # a numpy integer is an id too
            got = int(got)
        if isinstance(got, bool) or not isinstance(got, int):
            raise Feedback(f"sample_token should return an int token id, got {type(got).__name__} {got!r}.")
        expected = _sample_reference(logits, temperature, u)
        if got == expected:
            continue
        case = f"logits {list(values)}, temperature {temperature}, u = {u}"
        if got == _sample_argmax(logits, temperature, u) and got != expected:
            hint = "you returned the most likely token: sampling must use u, so that a less likely token can win"
        elif got == _sample_sorted(logits, temperature, u):
            hint = ("you walked the tokens from the most likely down; the book's rule walks them in id order "
                    "(0, 1, 2, ...), so that the same u always means the same stretch of [0, 1)")
        elif got == _sample_times_temperature(logits, temperature, u):
            hint = "divide the logits by the temperature (a small T sharpens the distribution), do not multiply"
        else:
            hint = ("softmax(logits / T), add the probabilities up in id order, and return the first id whose "
                    "running sum exceeds u")
        return False, f"For {case} the token is {expected}, you returned {got}: {hint}."
    return True, ("sample_token follows the book's rule: softmax(logits / T), then the first id whose running "
                  "sum exceeds u. The same u gives the same token: the live view's seed slider is that.")


@hidden_test("ch04b.ex2")
def _hidden_sample(answer, g):
    cases = []
    for _ in range(8):
        V = randint(g, 2, 12)
        temperature = [0.3, 0.7, 1.0, 1.6][randint(g, 0, 3)]
        cases.append((torch.randn(V, generator=g) * 2, temperature, float(torch.rand((), generator=g))))
    cases.append((torch.tensor([0.0, 5.0, 0.0]), 0.1, 0.999))
    return agree(lambda *a: int(answer(*a)), _sample_reference, cases, "sample_token")


# -- ex3: a bigram baseline with add-one smoothing ----------------------------------------------------------


def _bigram_counts(train_ids, vocab_size):
    counts = torch.zeros(vocab_size, vocab_size, dtype=torch.float64)   # (V, V): counts[a, b] = #(a then b)
    for a, b in zip(train_ids[:-1], train_ids[1:]):
        counts[a, b] += 1
    return counts


def _bigram_reference(train_ids, test_ids, vocab_size):
    counts = _bigram_counts(train_ids, vocab_size)
    probs = (counts + 1) / (counts.sum(1, keepdim=True) + vocab_size)   # P(b | a), each row sums to 1
    nll = [-math.log(float(probs[a, b])) for a, b in zip(test_ids[:-1], test_ids[1:])]
    return math.exp(sum(nll) / len(nll))


def _bigram_plus_one_below(train_ids, test_ids, vocab_size):
    counts = _bigram_counts(train_ids, vocab_size)
    probs = (counts + 1) / (counts.sum(1, keepdim=True) + 1)   # rows no longer sum to 1
    nll = [-math.log(float(probs[a, b])) for a, b in zip(test_ids[:-1], test_ids[1:])]
    return math.exp(sum(nll) / len(nll))


def _bigram_over_all_tokens(train_ids, test_ids, vocab_size):
    counts = _bigram_counts(train_ids, vocab_size)
    probs = (counts + 1) / (counts.sum(1, keepdim=True) + vocab_size)
    nll = [-math.log(float(probs[a, b])) for a, b in zip(test_ids[:-1], test_ids[1:])]
    return math.exp(sum(nll) / len(test_ids))   # divides by every token, the first (never predicted) included


def _bigram_test_counts(train_ids, test_ids, vocab_size):
    return _bigram_reference(test_ids, test_ids, vocab_size)   # counted on the held-out text itself


EX3_CASES = (([0, 1, 2, 0, 1, 2, 0, 1, 1, 2], [0, 1, 2, 2, 0], 3),
             ([3, 1, 4, 1, 5, 2, 6, 5, 3, 5, 0, 2, 3, 1, 4], [1, 4, 1, 5, 9, 2, 6], 10))


@exercise("ch04b.ex3", "A bigram baseline with add-one smoothing", reference=lambda: _bigram_reference,
          wrong=[lambda: _bigram_plus_one_below, lambda: _bigram_over_all_tokens, lambda: _bigram_test_counts])
def check_bigram(answer):
    if not callable(answer):
        return False, "answer should be your function bigram_perplexity(train_ids, test_ids, vocab_size)."
    unseen = ("a test bigram that never occurs in training (here (2, 2)) gets probability 0 without smoothing; "
              "add-one smoothing, (count(a, b) + 1) / (count(a) + V), keeps it possible")
    for train_ids, test_ids, vocab_size in EX3_CASES:
        try:
            raw = answer(list(train_ids), list(test_ids), vocab_size)
        except (ZeroDivisionError, ValueError) as error:   # math.log(0) and friends
            return False, f"Your function raised {type(error).__name__} ({error}): {unseen}."
        value = raw.item() if isinstance(raw, torch.Tensor) and raw.numel() == 1 else raw
        if isinstance(value, float) and math.isinf(value):
            return False, f"Your perplexity is {value}: {unseen}."
        got = as_number(raw, "a number: the perplexity")
        expected = _bigram_reference(train_ids, test_ids, vocab_size)
        if abs(got - expected) <= 1e-6 * expected:
            continue
        case = f"train {list(train_ids)}, test {list(test_ids)}, V = {vocab_size}"
        close = lambda wrong: abs(got - wrong(train_ids, test_ids, vocab_size)) <= 1e-6 * expected  # noqa: E731
        if close(_bigram_plus_one_below):
            hint = ("add-one smoothing adds 1 to each of the V counts of a row, so the denominator grows by V, "
                    "not by 1: (count(a, b) + 1) / (count(a) + V), and each row sums to 1")
        elif close(_bigram_over_all_tokens):
            hint = ("a test sequence of n tokens has n - 1 bigrams: the first token is never predicted, "
                    "so average the negative log-probabilities over n - 1")
        elif close(_bigram_test_counts):
            hint = "count the bigrams on train_ids only: the test sequence is held out"
        else:
            hint = ("count (a, b) pairs on the training ids, P(b | a) = (count(a, b) + 1) / (count(a) + V), "
                    "then exp of the mean of -log P(b | a) over the test bigrams")
        return False, f"For {case} the perplexity is {expected:.4f}, you returned {got:.4f}: {hint}."
    return True, ("Your bigram baseline matches: add-one smoothing keeps unseen pairs possible, and any model "
                  "worth training must beat this perplexity.")


@hidden_test("ch04b.ex3")
def _hidden_bigram(answer, g):
    cases = []
    for _ in range(3):
        V = randint(g, 2, 8)
        train = torch.randint(0, V, (randint(g, 2, 40),), generator=g).tolist()
        test = torch.randint(0, V, (randint(g, 2, 15),), generator=g).tolist()
        cases.append((train, test, V))
    cases.append(([0, 0], [1, 1], 2))   # an unseen pair: smoothing keeps it possible
    return agree(answer, _bigram_reference, cases, "bigram_perplexity", atol=1e-8, rtol=1e-6)
