"""Chapter 4b's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch04b.py``)."""

from __future__ import annotations

import math

import torch

from . import hidden, mistakes, solution, values
from .helpers import agree, randint


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


def _unsmoothed(train_ids, test_ids, vocab_size):
    counts = _bigram_counts(train_ids, vocab_size)
    probs = counts / counts.sum(1, keepdim=True)
    return math.exp(-sum(math.log(float(probs[a, b])) for a, b in zip(test_ids[:-1], test_ids[1:]))
                    / (len(test_ids) - 1))


values("ch04b", perplexity=_perplexity_reference, sample=_sample_reference, bigram_perplexity=_bigram_reference,
       untrained_perplexity=lambda choices: choices[2])
mistakes("ch04b", "perplexity", perplexity_of_batch_means=_perplexity_of_batch_means,
         perplexity_base_two=_perplexity_base_two, mean_loss=_mean_loss)
mistakes("ch04b", "sample", sample_argmax=_sample_argmax, sample_sorted=_sample_sorted,
         sample_times_temperature=_sample_times_temperature)
mistakes("ch04b", "bigram_perplexity", bigram_plus_one_below=_bigram_plus_one_below,
         bigram_over_all_tokens=_bigram_over_all_tokens, bigram_test_counts=_bigram_test_counts)

solution("ch04b.ex1", lambda: _perplexity_reference, wrong={
    "mean of batch means": (lambda: _perplexity_of_batch_means, "averaged the batches' mean losses"),
    "base two": (lambda: _perplexity_base_two, "natural logarithms (nats)"),
    "mean loss": (lambda: _mean_loss, "its exponential"),
    "constant": (lambda: (lambda b: 1.0), "exp(sum of every token's loss / number of tokens)")})
solution("ch04b.ex2", lambda: _sample_reference,
         forbidden=("seqviz.sampling.choose", "seqviz.sampling.distribution", "seqviz.sampling.sample"),
         wrong={"argmax": (lambda: _sample_argmax, "you returned the most likely token"),
                "sorted": (lambda: _sample_sorted, "in id order"),
                "times T": (lambda: _sample_times_temperature, "do not multiply"),
                "last id": (lambda: (lambda logits, t, u: len(logits) - 1), "whose running sum exceeds u"),
                "a float": (lambda: (lambda logits, t, u: 0.5), "should return an int token id")})
solution("ch04b.ex3", lambda: _bigram_reference, forbidden=("seqviz.experiments.language.ngram_perplexity",),
         wrong={
    "plus one below": (lambda: _bigram_plus_one_below, "the denominator grows by V"),
    "over all tokens": (lambda: _bigram_over_all_tokens, "n - 1 bigrams"),
    "test counts": (lambda: _bigram_test_counts, "held out"),
    "constant": (lambda: (lambda train, test, V: float(V)), "then exp of the mean of -log P(b | a)"),
    "unsmoothed": (lambda: _unsmoothed, "never occurs in training")})


solution("ch04b.ex4", lambda: "c", wrong={
    "perfect": (lambda: "a", "a perfect model"),
    "bigram": (lambda: "b", "has read nothing"),
    "confident": (lambda: "d", "the weights start small")})


@hidden("ch04b.ex1")
def _hidden_perplexity(answer, g):
    cases = []
    for _ in range(3):
        sizes = [randint(g, 1, 40) for _ in range(randint(g, 1, 4))]
        cases.append(([torch.rand(n, generator=g, dtype=torch.float64) * randint(g, 1, 6) for n in sizes],))
    cases.append(([torch.full((3,), math.log(10.0), dtype=torch.float64)],))   # uniform over 10: perplexity 10
    return agree(answer, _perplexity_reference, cases, "perplexity", atol=1e-8, rtol=1e-6)


@hidden("ch04b.ex2")
def _hidden_sample(answer, g):
    from seqviz.exercises.ch04b import token_id

    cases = []
    for _ in range(8):
        V = randint(g, 2, 12)
        temperature = [0.3, 0.7, 1.0, 1.6][randint(g, 0, 3)]
        cases.append((torch.randn(V, generator=g) * 2, temperature, float(torch.rand((), generator=g))))
    cases.append((torch.tensor([0.0, 5.0, 0.0]), 0.1, 0.999))
    return agree(lambda *a: token_id(answer(*a)), _sample_reference, cases, "sample_token")


@hidden("ch04b.ex3")
def _hidden_bigram(answer, g):
    cases = []
    for _ in range(3):
        V = randint(g, 2, 8)
        train = torch.randint(0, V, (randint(g, 2, 40),), generator=g).tolist()
        test = torch.randint(0, V, (randint(g, 2, 15),), generator=g).tolist()
        cases.append((train, test, V))
    cases.append(([0, 0], [1, 1], 2))   # an unseen pair: smoothing keeps it possible
    return agree(answer, _bigram_reference, cases, "bigram_perplexity", atol=1e-8, rtol=1e-6)
