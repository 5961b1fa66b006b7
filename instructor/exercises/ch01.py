"""Chapter 1's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch01.py``)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import torch

from seqviz.exercises.ch01 import CH01_EX5_CHOICES

from . import hidden, solution, values
from .helpers import agree, randint, same_choice


def _orderings(sentence: str) -> int:
    """Distinct orders of the words: n! / (product of each word's count!)."""
    counts = Counter(sentence.split())
    return math.factorial(sum(counts.values())) // math.prod(math.factorial(c) for c in counts.values())


def _same_bag_reference(a: str, b: str) -> bool:
    return Counter(a.split()) == Counter(b.split())


def _receptive_field(kernel_size: int, num_layers: int) -> int:
    return 1 + num_layers * (kernel_size - 1)


values("ch01", orderings=_orderings, receptive_field=_receptive_field,
       shuffled_bag=lambda choices: choices[0],  # a mean of word vectors ignores their order
       layers_needed=lambda distance, kernel: math.ceil(distance / (kernel - 1)))  # 1 + L (k - 1) >= distance + 1

solution("ch01.ex1", lambda: 60, wrong={"5!": (lambda: 120, "counts the two copies"),
                                        "one input": (lambda: 1, "different *inputs*"),
                                        "two readings": (lambda: 2, "different *inputs*")})
solution("ch01.ex2", lambda: _same_bag_reference, wrong={
    "a set": (lambda: (lambda a, b: set(a.split()) == set(b.split())), "how often each appears"),
    "equal strings": (lambda: (lambda a, b: a == b), "expected True"),
    "equal lengths": (lambda: (lambda a, b: len(a.split()) == len(b.split())), "expected False"),
    "characters": (lambda: (lambda a, b: sorted(a) == sorted(b)), "count words")})
solution("ch01.ex3", lambda: _receptive_field, not_called=("seqviz.models.classifier.CausalCNN.__init__",),
         wrong={
    "k n": (lambda: (lambda k, n: k * n), "Neighbouring windows overlap"),
    "no current token": (lambda: (lambda k, n: n * (k - 1)), "not the current token"),
    "dilated": (lambda: (lambda k, n: k ** n), "dilated convolutions")})
solution("ch01.ex4", lambda: 25, wrong={"one short": (lambda: 24, "outside the window"),
                                        "one per layer": (lambda: 50, "not the fewest"),
                                        "one more": (lambda: 26, "not the fewest")})

_WORDS = "the dog bites man a god cat sat on mat".split()


@hidden("ch01.ex2")
def _hidden_same_bag(answer, g):
    cases = []
    for _ in range(40):
        a = [_WORDS[i] for i in torch.randint(len(_WORDS), (randint(g, 1, 7),), generator=g)]
        kind = randint(g, 0, 2)
        if kind == 0:  # a permutation: the same bag
            b = [a[i] for i in torch.randperm(len(a), generator=g)]
        elif kind == 1:  # one word replaced
            b = list(a)
            b[randint(g, 0, len(b) - 1)] = _WORDS[randint(g, 0, len(_WORDS) - 1)]
        else:  # one word repeated
            b = a + [a[0]]
        cases.append((" ".join(a), " ".join(b)))
    return agree(answer, _same_bag_reference, cases, "same_bag")


@hidden("ch01.ex3")
def _hidden_receptive_field(answer, g):
    cases = [(randint(g, 1, 9), randint(g, 1, 30)) for _ in range(20)] + [(np.int64(3), np.int64(5))]
    return agree(answer, lambda k, n: _receptive_field(int(k), int(n)), cases, "receptive_field")

solution("ch01.ex5", lambda: "a", wrong={"chance": (lambda: "b", "Chance is what a model scores"),
                                        "half": (lambda: "c", "cannot lose what it never used")})


@hidden("ch01.ex5")
def _hidden_shuffled(answer, g):
    return same_choice(answer, CH01_EX5_CHOICES, CH01_EX5_CHOICES[0])
