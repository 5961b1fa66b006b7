"""Exercises of chapter 01, "Why order matters" (registered on import).

- ``ch01.ex1``: how many word orders a bag of words cannot tell apart (a number);
- ``ch01.ex2``: ``same_bag(a, b)``, True iff two sentences have the same bag of words;
- ``ch01.ex3``: ``receptive_field(kernel_size, num_layers)`` of a stack of causal convolutions;
- ``ch01.ex4``: the fewest kernel-3 layers that let a causal CNN recall a token 50 steps back;
- ``ch01.ex5`` (a conceptual question, a choice): what shuffling the test sentences does to the bag of words'
  accuracy.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch01.py``).
"""

from __future__ import annotations

import math

from .expected import Expected
from .registry import as_bool, as_choice, as_number, exercise

EXPECTED = Expected("ch01")

# -- ex1: orderings -------------------------------------------------------------------------

SENTENCE = "the dog bites the man"


@exercise("ch01.ex1", "Orders a bag of words cannot tell apart")
def _check_orderings(answer):
    value = as_number(answer, "a whole number of word orders")
    expected = EXPECTED("orderings", SENTENCE, SENTENCE)
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


@exercise("ch01.ex2", "Same bag of words?")
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


# -- ex3: receptive field of a causal CNN -------------------------------------------------------


@exercise("ch01.ex3", "Receptive field of a causal CNN")
def _check_receptive_field(answer):
    if not callable(answer):
        return False, f"answer should be a function receptive_field(kernel_size, num_layers), got {answer!r}."
    cases = [(3, 3), (3, 1), (5, 2), (2, 4), (1, 4), (7, 10)]  # the first tells the common mistakes apart
    cases += [(k, n) for k in (1, 2, 3, 5, 7) for n in (1, 2, 3, 4, 10)]
    for kernel_size, num_layers in cases:
        expected = EXPECTED("receptive_field", f"{kernel_size},{num_layers}", kernel_size, num_layers)
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


# -- ex4: layers needed for a distance ----------------------------------------------------------

DISTANCE, KERNEL = 50, 3


@exercise("ch01.ex4", "Layers needed to reach a distance")
def _check_layers(answer):
    value = as_number(answer, "a number of layers")
    need = EXPECTED("layers_needed", f"{DISTANCE},{KERNEL}", DISTANCE, KERNEL)
    if value == need:
        return True, (f"{need} layers give a receptive field of {1 + need * (KERNEL - 1)} tokens: the "
                      f"last one and the {DISTANCE} before it. One layer fewer and the answer is at chance.")
    if value != int(value) or value < 1:
        return False, "The number of layers is a positive whole number."
    field = 1 + int(value) * (KERNEL - 1)  # the receptive field of the student's depth (the formula of ex3)
    if field < DISTANCE + 1:
        return False, (f"{int(value)} layers see {field} tokens, that is distances 0 to {field - 1}: the token "
                       f"{DISTANCE} steps back is outside the window. Remember the window includes the last "
                       f"token itself.")
    return False, (f"{int(value)} layers are enough ({field} tokens), but not the fewest: each layer of kernel "
                   f"{KERNEL} adds {KERNEL - 1} tokens, not one.")


# -- ex5: shuffled sentences (predict, then run) ------------------------------------------------

CH01_EX5_CHOICES = ("a) it stays the same", "b) it falls to 1 in 8, chance over the eight animals",
                    "c) it falls to about half of what it was")


@exercise("ch01.ex5", "Shuffle the test sentences")
def _check_shuffled(answer):
    choice = as_choice(answer, CH01_EX5_CHOICES, "the change you predict")
    if choice == EXPECTED("shuffled_bag", "choice", CH01_EX5_CHOICES):
        return True, ("A bag of words averages its word vectors, and shuffling only reorders the terms of that "
                      "average: every shuffled sentence reaches the model as the same input, gets the same answer, "
                      "and the accuracy does not move, whatever the weights. An RNN reads the order: run the cell "
                      "below and compare.")
    if choice.startswith("b)"):
        return False, ("Chance is what a model scores when its input tells it nothing. A shuffled sentence still "
                       "holds the same words, and the same words are all a bag of words ever used: its input does "
                       "not change at all. (On \"who did it?\" it is already at its own chance, one in two, since both "
                       "animals are in every sentence.)")
    return False, ("The bag of words cannot lose what it never used: before and after the shuffle its input is the "
                   "same set of words with the same counts, so each answer stays exactly as it was.")
