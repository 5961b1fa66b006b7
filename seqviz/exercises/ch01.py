"""Exercises of chapter 01, "Why order matters" (registered on import).

- ``ch01.ex1``: how many word orders a bag of words cannot tell apart (a number);
- ``ch01.ex2``: ``same_bag(a, b)``, True iff two sentences have the same bag of words;
- ``ch01.ex3``: ``receptive_field(kernel_size, num_layers)`` of a stack of causal convolutions;
- ``ch01.ex4``: the fewest kernel-3 layers that let a causal CNN recall a token 50 steps back.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import torch

from .hidden import agree, hidden_test, randint
from .registry import as_bool, as_number, exercise

# -- ex1: orderings -------------------------------------------------------------------------

SENTENCE = "the dog bites the man"


def _orderings(sentence: str) -> int:
    """Distinct orders of the words: n! / (product of each word's count!)."""
    counts = Counter(sentence.split())
    return math.factorial(sum(counts.values())) // math.prod(math.factorial(c) for c in counts.values())


@exercise("ch01.ex1", "Orders a bag of words cannot tell apart",
          reference=lambda: 60, wrong=[lambda: 120, lambda: 1, lambda: 2])
def _check_orderings(answer):
    value = as_number(answer, "a whole number of word orders")
    expected = _orderings(SENTENCE)
    if value == expected:
        return True, (f"{expected} = 5!/2!: five words, and swapping the two copies of 'the' gives the same "
                      f"sentence. All {expected} orders reach the model as one and the same input.")
    if value == math.factorial(5):
        return False, ("120 = 5! counts the two copies of 'the' as different words. Swapping them changes nothing "
                       "you could read: divide by the 2! ways to arrange them.")
    if value in (1, 2):
        return False, ("That is how many different *inputs* the bag of words sees (one), or how many readings a "
                       "person finds; the question asks how many word orders all map to that one input.")
    return False, ("Count the arrangements of five words in which two are identical ('the' appears twice). "
                   "Start from 5! and correct for the repeated word.")


# -- ex2: same bag of words -------------------------------------------------------------------

_BAG_CASES = [
    ("the dog bites the man", "the man bites the dog", True),
    ("man bites dog", "dog bites man", True),
    ("the dog bites", "the dog bites", True),
    ("the dog bites the man", "the dog bites a man", False),
    ("the the dog", "the dog dog", False),  # same set of words, different counts
    ("dog bites man", "dog bites man man", False),
    ("the dog bites the man", "the dog bites the man the", False),
    ("bites", "bites", True),
    ("dog bites man", "god bites man", False),  # the same letters, other words
    ("the cat sat", "act the sat", False),
    ("a b", "ab", False),  # the same characters without the space: one word, not two
]


def _same_bag_reference(a: str, b: str) -> bool:
    return Counter(a.split()) == Counter(b.split())


@exercise("ch01.ex2", "Same bag of words?",
          reference=lambda: _same_bag_reference,
          wrong=[lambda: (lambda a, b: set(a.split()) == set(b.split())),
                 lambda: (lambda a, b: a == b),
                 lambda: (lambda a, b: len(a.split()) == len(b.split())),
                 lambda: (lambda a, b: sorted(a) == sorted(b))])
def _check_same_bag(answer):
    if not callable(answer):
        return False, f"answer should be a function same_bag(a, b), got {type(answer).__name__}."
    for a, b, expected in _BAG_CASES:
        got = as_bool(answer(a, b), f"same_bag({a!r}, {b!r}) to return True or False")
        if got != expected:
            why = {
                ("the the dog", "the dog dog"): " Both use the words {the, dog}, but how often each appears "
                                                "differs, and a bag of words counts.",
                ("dog bites man", "dog bites man man"): " A repeated word changes the counts (and the average "
                                                        "embedding).",
                ("dog bites man", "god bites man"): " The same letters make other words: count words "
                                                    "(a.split()), not characters.",
            }.get((a, b), "")
            return False, f"same_bag({a!r}, {b!r}) returned {got}, expected {expected}.{why}"
    return True, (f"All {len(_BAG_CASES)} cases agree. collections.Counter is a bag of words: two sentences "
                  "with equal counters get exactly the same input, so any model built on counts or averages "
                  "gives them the same answer.")


_WORDS = "the dog bites man a god cat sat on mat".split()


@hidden_test("ch01.ex2")
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


# -- ex3: receptive field of a causal CNN -------------------------------------------------------


def _receptive_field(kernel_size: int, num_layers: int) -> int:
    return 1 + num_layers * (kernel_size - 1)


@exercise("ch01.ex3", "Receptive field of a causal CNN",
          reference=lambda: _receptive_field,
          wrong=[lambda: (lambda k, n: k * n), lambda: (lambda k, n: n * (k - 1)), lambda: (lambda k, n: k ** n)])
def _check_receptive_field(answer):
    if not callable(answer):
        return False, f"answer should be a function receptive_field(kernel_size, num_layers), got {answer!r}."
    cases = [(3, 3), (3, 1), (5, 2), (2, 4), (1, 4), (7, 10)]  # the first tells the common mistakes apart
    cases += [(k, n) for k in (1, 2, 3, 5, 7) for n in (1, 2, 3, 4, 10)]
    for kernel_size, num_layers in cases:
        expected = _receptive_field(kernel_size, num_layers)
        got = as_number(answer(kernel_size, num_layers), "a number of tokens")
        if got == expected:
            continue
        hint = ""
        if got == num_layers * (kernel_size - 1):
            hint = " You counted the tokens each layer adds, but not the current token itself."
        elif got == kernel_size ** num_layers and got != kernel_size * num_layers:
            hint = " That growth needs dilated convolutions (dilation kernel_size ** layer); these are plain."
        elif got == kernel_size * num_layers:
            hint = (" Neighbouring windows overlap: the second layer adds only kernel_size - 1 new tokens, "
                    "not kernel_size.")
        return False, f"receptive_field({kernel_size}, {num_layers}) returned {got:g}, expected {expected}.{hint}"
    return True, ("1 + num_layers * (kernel_size - 1): the field grows by kernel_size - 1 tokens per layer, "
                  "linearly in depth. To see 1,000 tokens back with kernel 3 takes 500 layers.")


@hidden_test("ch01.ex3")
def _hidden_receptive_field(answer, g):
    cases = [(randint(g, 1, 9), randint(g, 1, 30)) for _ in range(20)] + [(np.int64(3), np.int64(5))]
    return agree(answer, lambda k, n: _receptive_field(int(k), int(n)), cases, "receptive_field")


# -- ex4: layers needed for a distance ----------------------------------------------------------

DISTANCE, KERNEL = 50, 3


@exercise("ch01.ex4", "Layers needed to reach a distance",
          reference=lambda: 25, wrong=[lambda: 24, lambda: 50, lambda: 26])
def _check_layers(answer):
    value = as_number(answer, "a number of layers")
    need = math.ceil(DISTANCE / (KERNEL - 1))  # 1 + L (k - 1) >= distance + 1
    if value == need:
        return True, (f"{need} layers give a receptive field of {_receptive_field(KERNEL, need)} tokens: the "
                      f"last one and the {DISTANCE} before it. One layer fewer and the answer is at chance.")
    if value != int(value) or value < 1:
        return False, "The number of layers is a positive whole number."
    field = _receptive_field(KERNEL, int(value))
    if field < DISTANCE + 1:
        return False, (f"{int(value)} layers see {field} tokens, that is distances 0 to {field - 1}: the token "
                       f"{DISTANCE} steps back is outside the window. Remember the window includes the last "
                       f"token itself.")
    return False, (f"{int(value)} layers are enough ({field} tokens), but not the fewest: each layer of kernel "
                   f"{KERNEL} adds {KERNEL - 1} tokens, not one.")
